// While machine detection listens, the channel's receive counters are read every TALK.rtpReadMs:
// a phone with silence suppression sends no audio (or only comfort noise) while its user is
// silent, and TALK_DETECT, which hears only the frames that arrive, never hears that silence. The
// gaps the counters show are it (core/calls/talk-verdict: audioGaps). Read over ARI on Asterisk's HTTP
// thread, not the channel's: the reading works while the message plays.
import { TALK } from '../core/calls/talk-verdict.js';
import type { AriCallControl } from '../pbx/index.js';
import type { CallLedger } from './call-ledger.js';
import type { CallSession, TalkListening } from './call-session.js';

/** One reading of the channel's receive counter: when (ms since the answer), and the bytes received so far. */
export interface AudioReading {
  atMs: number;
  bytes: number;
}

export interface AudioWatchDeps {
  readonly settings: { ari: Pick<AriCallControl, 'rtpStatistics'>; now: () => number };
  readonly ledger: Pick<CallLedger, 'note'>;
  isActive(session: CallSession): boolean;
}

/**
 * Reads the counters until the listening is done or the call ends (one reading at most after it);
 * each reading is handed to `counted` (machine detection keeps the gaps: machine-detection.ts).
 */
export function watchAudio(
  deps: AudioWatchDeps,
  session: CallSession,
  talk: Readonly<TalkListening>,
  counted: (reading: AudioReading) => void,
): void {
  const listening = () => talk.phase !== 'done' && deps.isActive(session);
  const read = async () => {
    if (!listening()) return;
    const askedAt = deps.settings.now();
    let bytes: number;
    try {
      bytes = (await deps.settings.ari.rtpStatistics(session.channelId)).rxoctetcount;
    } catch (error) {
      // Detection goes on with TALK_DETECT alone (a phone that goes quiet after "Hello?" may then be taken for a machine).
      if (listening()) deps.ledger.note(session.call.callId, 'audio watch', `stopped: ${(error as Error).message}`);
      return;
    }
    const now = deps.settings.now();
    counted({ atMs: now - (session.line.answeredAt ?? now), bytes });
    // Not one of the session's timers: the script disarms those when it stops the message for a machine's greeting.
    setTimeout(() => void read(), Math.max(0, askedAt + TALK.rtpReadMs - deps.settings.now())).unref();
  };
  // The first reading after the first interval: the answer's moment is the message's (its play request goes first).
  setTimeout(() => void read(), TALK.rtpReadMs).unref();
}
