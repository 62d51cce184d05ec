// Answering-machine detection while the message is spoken: Asterisk's TALK_DETECT is set on the
// channel when it is originated, and every phrase the phone sends back after the answer
// (ChannelTalkingStarted/Finished) is read by core/talk-verdict. Only what the phone sends is read (TALK_DETECT hooks the channel's read
// direction), never our own playback. A machine stops the message; once its greeting and beep have
// ended, the whole message is left on it.
import { greetingEnded, readTalk, type TalkPhrase, type TalkVerdict } from '../core/talk-verdict.js';
import type { CallLedger } from './call-ledger.js';
import type { CallScript } from './call-script.js';
import { alertsOf, arm, type CallSession } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';

/** What machine detection uses of the call desk (call-desk.ts). */
export interface DetectionDesk {
  readonly settings: Pick<DialerSettings, 'now'>;
  readonly ledger: Pick<CallLedger, 'note' | 'detection'>;
  readonly script: Pick<CallScript, 'machineAnswered' | 'leaveMessage'>;
  /** Is the call still going (a look armed for later may come after its end)? */
  isActive(session: CallSession): boolean;
}

export class MachineDetection {
  constructor(private readonly desk: DetectionDesk) {}

  /** The call was answered: what the phone sends from here is read while the message starts (talk while it rang is not). */
  start(session: CallSession): void {
    session.talk = { phrases: [], phase: 'listening', look: 0 };
    this.look(session);
  }

  talkingStarted(session: CallSession): void {
    const talk = session.talk;
    const last = talk?.phrases.at(-1);
    if (!talk || talk.phase === 'done' || (last && last.durationMs === undefined)) return;
    talk.phrases.push({ startMs: this.sinceAnswer(session) });
    this.look(session);
  }

  talkingFinished(session: CallSession, durationMs: number): void {
    const open = session.talk?.phrases.at(-1);
    if (!open || open.durationMs !== undefined || session.talk?.phase === 'done') return;
    open.durationMs = durationMs;
    this.look(session);
  }

  /** A digit: only a person presses one. */
  digit(session: CallSession): void {
    if (session.talk?.phase === 'listening') this.decide(session, { status: 'HUMAN', cause: 'DIGIT' });
  }

  private look(session: CallSession): void {
    const talk = session.talk;
    if (!talk || talk.phase === 'done' || !this.desk.isActive(session)) return;
    const now = this.sinceAnswer(session);
    if (talk.phase === 'greeting') {
      const ended = greetingEnded(talk.phrases, talk.machineAtMs ?? now, now);
      if (ended === true) {
        talk.phase = 'done';
        this.desk.ledger.note(session.call.callId, 'greeting over', describePhrases(talk.phrases, now));
        // The machine's greeting and beep have ended: the whole message is left on it.
        void this.desk.script.leaveMessage(session);
      } else this.lookAgainAt(session, ended.recheckAtMs - now);
      return;
    }
    const reading = readTalk(talk.phrases, now);
    if ('verdict' in reading) this.decide(session, reading.verdict);
    else this.lookAgainAt(session, reading.recheckAtMs - now);
  }

  private decide(session: CallSession, verdict: TalkVerdict): void {
    const talk = session.talk;
    if (talk?.phase !== 'listening') return;
    this.desk.ledger.detection(alertsOf(session), verdict.status, verdict.cause);
    // What was heard, on the call's timeline: how the verdict can be checked (and tuned) afterwards.
    this.desk.ledger.note(session.call.callId, 'talk', describePhrases(talk.phrases, this.sinceAnswer(session)));
    session.machine = verdict.status === 'MACHINE';
    if (!session.machine) {
      talk.phase = 'done';
      talk.look++;
      return;
    }
    talk.phase = 'greeting';
    talk.machineAtMs = this.sinceAnswer(session);
    // The message is stopped while the greeting goes on.
    void this.desk.script.machineAnswered(session);
    this.look(session);
  }

  private lookAgainAt(session: CallSession, inMs: number): void {
    const talk = session.talk!;
    const look = ++talk.look;
    arm(session, Math.max(0, inMs), () => {
      if (talk.look === look) this.look(session);
    });
  }

  private sinceAnswer(session: CallSession): number {
    const now = this.desk.settings.now();
    return now - (session.answeredAt ?? now);
  }
}

/** "talk 0.21 s for 4.60 s; talk 5.30 s going on (at 6.10 s)": times since the answer. */
export function describePhrases(phrases: readonly TalkPhrase[], nowMs: number): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const each = phrases.map(
    (p) => `talk ${s(p.startMs)} ${p.durationMs === undefined ? 'going on' : `for ${s(p.durationMs)}`}`,
  );
  return `${each.length ? each.join('; ') : 'no talk'} (at ${s(nowMs)})`;
}
