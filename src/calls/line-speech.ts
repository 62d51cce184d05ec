// Speech made ahead for the alerts next in line (speech/speech-ahead.ts), while an engine is free:
// the call desk's queue and its alerts as the speech engine sees them.
import { SpeechAhead } from '../speech/index.js';
import type { CallQueue } from './call-queue.js';
import type { DialerSettings } from './dialer-options.js';
import type { QueuedAlert } from './waiting-alerts.js';

export class LineSpeech {
  /** Undefined when the speech engine cannot make speech ahead. */
  private readonly ahead: SpeechAhead | undefined;

  constructor({
    tts,
    burstVoice,
    callsPerSecond,
    japanese,
  }: Pick<DialerSettings, 'tts' | 'burstVoice' | 'callsPerSecond' | 'japanese'>) {
    const { ahead, fastestMakingMs } = tts;
    if (ahead && fastestMakingMs)
      this.ahead = new SpeechAhead({
        tts: { ahead, fastestMakingMs },
        burstVoice,
        callsPerSecond,
        japanese: japanese && (() => japanese.loadedOrLoad()),
      });
  }

  /** The call's alerts left the line (it is being placed). */
  forget(call: readonly { callId: string }[]): void {
    for (const { callId } of call) if (!this.ahead?.forget(callId)) return;
  }

  /** Speech for the alerts next in line; `again` when an engine is free for more. */
  next(
    queue: Pick<CallQueue, 'has' | 'ids' | 'length'>,
    alerts: ReadonlyMap<string, QueuedAlert>,
    again: () => void,
  ): void {
    if (!this.ahead || queue.length === 0) return;
    this.ahead.keepOnly((id) => queue.has(id), queue.length);
    this.ahead.next(inLine(queue, alerts), queue.length, again);
  }
}

function* inLine(
  queue: Pick<CallQueue, 'ids'>,
  alerts: ReadonlyMap<string, QueuedAlert>,
): Generator<QueuedAlert | undefined> {
  for (const id of queue.ids()) yield alerts.get(id);
}
