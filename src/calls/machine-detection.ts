// Answering-machine detection while the message is spoken: Asterisk's TALK_DETECT is set on the
// channel when it is originated, and every phrase the phone sends back after the answer
// (ChannelTalkingStarted/Finished) is read by core/calls/talk-verdict. Only what the phone sends is read (TALK_DETECT hooks the channel's read
// direction), never our own playback. A machine stops the message; once its greeting and beep have
// ended, the whole message is left on it. The gaps in the phone's audio (silence suppression) are
// read alongside (audio-watch.ts): silence that TALK_DETECT cannot hear.
import {
  audioGaps,
  type AudioGap,
  greetingEnded,
  heardPhrases,
  readTalk,
  TALK,
  type TalkPhrase,
  type TalkVerdict,
} from '../core/calls/talk-verdict.js';
import { watchAudio } from './audio-watch.js';
import type { CallLedger } from './call-ledger.js';
import { alertsOf, arm, type CallSession, type DetectionRecord, type TalkListening } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';

/**
 * What detection came to, for the flow to act on (call-flow.ts): a machine answered (the message
 * stops while its greeting goes on), or its greeting and beep are over (the message is left on it).
 */
export type DetectionVerdict = 'machine' | 'greeting over';

/** What machine detection is given. */
export interface DetectionDeps {
  /** `ari`: the channel's receive counters are read while listening (audio-watch.ts). */
  readonly settings: Pick<DialerSettings, 'now' | 'ari'>;
  readonly ledger: Pick<CallLedger, 'note' | 'detection'>;
  /** Is the call still going (a look armed for later may come after its end)? */
  isActive(session: CallSession): boolean;
}

/** Machine detection, the only writer of its record (session.detection). */
export class MachineDetection {
  /** `verdict`: told of each verdict as it comes (some come from a timer, not from an event). */
  constructor(
    private readonly deps: DetectionDeps,
    private readonly verdict: (session: CallSession, verdict: DetectionVerdict) => void,
  ) {}

  /** The call was answered: what the phone sends from here is read while the message starts (talk while it rang is not). */
  start(session: CallSession): void {
    const talk: TalkListening = { phrases: [], phase: 'listening', audio: { gaps: [] }, look: 0 };
    detectionOf(session).talk = talk;
    watchAudio(this.deps, session, talk, (reading) => {
      const before = talk.audio.gaps;
      talk.audio = audioGaps(talk.audio, reading);
      const after = talk.audio.gaps;
      // A gap began or ended.
      if (after.length !== before.length || after.at(-1)?.toMs !== before.at(-1)?.toMs) this.look(session);
    });
    this.look(session);
  }

  talkingStarted(session: CallSession): void {
    const talk = session.detection.talk;
    const last = talk?.phrases.at(-1);
    if (!talk || talk.phase === 'done' || (last && last.durationMs === undefined)) return;
    talk.phrases.push({ startMs: this.sinceAnswer(session) });
    this.look(session);
  }

  talkingFinished(session: CallSession, durationMs: number): void {
    const open = session.detection.talk?.phrases.at(-1);
    if (!open || open.durationMs !== undefined || session.detection.talk?.phase === 'done') return;
    open.durationMs = durationMs;
    this.look(session);
  }

  /** A digit: only a person presses one. */
  digit(session: CallSession): void {
    if (session.detection.talk?.phase === 'listening') this.decide(session, { status: 'HUMAN', cause: 'DIGIT' });
  }

  private look(session: CallSession): void {
    const talk = session.detection.talk;
    if (!talk || talk.phase === 'done' || !this.deps.isActive(session)) return;
    const now = this.sinceAnswer(session);
    if (talk.phase === 'greeting') {
      const ended = greetingEnded(talk.phrases, talk.machineAtMs ?? now, now, talk.audio.gaps);
      if (ended === true) {
        talk.phase = 'done';
        this.deps.ledger.note(session.call.callId, 'greeting over', describeTalk(talk.phrases, talk.audio.gaps, now));
        // The machine's greeting and beep have ended: the whole message is left on it.
        this.verdict(session, 'greeting over');
      } else this.lookAgainAt(session, ended.recheckAtMs - now);
      return;
    }
    const reading = readTalk(talk.phrases, now, talk.audio.gaps);
    if ('verdict' in reading) this.decide(session, reading.verdict);
    else this.lookAgainAt(session, reading.recheckAtMs - now);
  }

  private decide(session: CallSession, verdict: TalkVerdict): void {
    const talk = session.detection.talk;
    if (talk?.phase !== 'listening') return;
    this.deps.ledger.detection(alertsOf(session), verdict.status, verdict.cause);
    // What was heard, on the call's timeline: how the verdict can be checked (and tuned) afterwards.
    const now = this.sinceAnswer(session);
    this.deps.ledger.note(session.call.callId, 'talk', describeTalk(talk.phrases, talk.audio.gaps, now));
    detectionOf(session).machine = verdict.status === 'MACHINE';
    if (!session.detection.machine) {
      talk.phase = 'done';
      talk.look++;
      return;
    }
    talk.phase = 'greeting';
    talk.machineAtMs = now;
    // The message is stopped while the greeting goes on.
    this.verdict(session, 'machine');
    this.look(session);
  }

  private lookAgainAt(session: CallSession, inMs: number): void {
    const talk = session.detection.talk!;
    const look = ++talk.look;
    arm(session, Math.max(0, inMs), () => {
      if (talk.look === look) this.look(session);
    });
  }

  private sinceAnswer(session: CallSession): number {
    const now = this.deps.settings.now();
    return now - (session.line.answeredAt ?? now);
  }
}

/** The call's detection record, as its one writer sees it. */
const detectionOf = (session: CallSession) => session.detection as DetectionRecord;

/**
 * "talk 0.21 s for 0.70 s; no audio 0.91 s going on (at 2.41 s)": the phrases as heard (TALK_DETECT's,
 * cut by the gaps in the phone's audio) and those gaps, times since the answer.
 */
export function describeTalk(phrases: readonly TalkPhrase[], gaps: readonly AudioGap[], nowMs: number): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const talk = heardPhrases(phrases, gaps, nowMs).map((p) => ({
    at: p.startMs,
    text: `talk ${s(p.startMs)} ${p.durationMs === undefined ? 'going on' : `for ${s(p.durationMs)}`}`,
  }));
  const quiet = gaps
    .filter((g) => (g.toMs ?? nowMs) - g.fromMs >= TALK.silenceMs)
    .map((g) => ({
      at: g.fromMs,
      text: `no audio ${s(g.fromMs)} ${g.toMs === undefined ? 'going on' : `for ${s(g.toMs - g.fromMs)}`}`,
    }));
  const each = [...talk, ...quiet].sort((a, b) => a.at - b.at).map((e) => e.text);
  return `${each.length ? each.join('; ') : 'no talk'} (at ${s(nowMs)})`;
}
