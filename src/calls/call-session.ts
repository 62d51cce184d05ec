// One call being placed: what it is for, the records its parts keep of it (each written by one
// part), and its timers.
import type { Account } from '../core/account.js';
import type { CallFacts } from '../core/calls/call-end.js';
import { type CallSpeech, DEFAULT_SPEECH } from '../core/speech/languages.js';
import type { CallForDialing } from '../core/records.js';
import type { AudioFlow, TalkPhrase } from '../core/calls/talk-verdict.js';
import type { DecisionState } from '../core/calls/decision-keys.js';
import { AlertIndex } from './alert-index.js';

/** What machine detection knows of one call (machine-detection.ts). */
export interface TalkListening {
  phrases: TalkPhrase[];
  /** listening: no verdict yet; greeting: a machine, waiting for its beep to end; done. */
  phase: 'listening' | 'greeting' | 'done';
  machineAtMs?: number;
  /** The gaps in the phone's audio (silence suppression), from the channel's receive counters (audio-watch.ts). */
  audio: AudioFlow;
  /** Each look again supersedes the one before. */
  look: number;
}

/**
 * One call being placed. What it is for is fixed at its claim; what happens to it is kept in small
 * records, each written by one part only: `placement` by call-placement.ts, `line` (what Asterisk
 * told of the channel) by call-flow.ts, `script` by call-script.ts, `detection` by
 * machine-detection.ts, `messageMedia` by the desk (call-desk.ts) (test/unit/layout.test.ts holds
 * each to its writer). What its end is decided from is read off them (factsOf).
 */
export interface CallSession {
  /** The alert the call was placed for. */
  readonly call: CallForDialing;
  /** Alerts that waited for this phone's line and ride along, spoken after it in order of arrival. */
  readonly carried: readonly CallForDialing[];
  readonly channelId: string;
  /** The number dialed: the SMS backup goes to the same one. */
  readonly phone: string;
  /** The account's language, intro and voice. */
  readonly speech: CallSpeech;
  readonly requireConfirm: boolean;
  readonly dialedAt: number;
  /** The call went out again through the backup trunk (it is never sent a third time). */
  readonly onBackupTrunk: boolean;
  /** The account's ring-again setting (core/calls/ring-again), as the claim read it; none for a test call. */
  ringAgain?: RingAgainAccount | undefined;
  readonly timers: Set<NodeJS.Timeout>;
  /** The message's speech, made while the phone rings (the desk's). */
  messageMedia?: Promise<string>;
  /** Read-only to all but its writer, which alone takes a writable view of it, in its own file. */
  readonly placement: Readonly<PlacementRecord>;
  readonly line: Readonly<LineRecord>;
  readonly script: Readonly<ScriptRecord>;
  readonly detection: Readonly<DetectionRecord>;
}

/** How the call went out (call-placement.ts). */
export interface PlacementRecord {
  /** The trunk the call went out through (trunk, trunk2); none for the local softphone. */
  trunk?: string | undefined;
  /** The call rings the local softphone of this user name (no trunk). */
  softphone?: string | undefined;
  /** Asterisk took the originate: from here the call has a channel (until it is destroyed). */
  originated: boolean;
}

/** What Asterisk told of the channel (call-flow.ts). */
export interface LineRecord {
  rang: boolean;
  answeredAt?: number | undefined;
  farEnd?: CallFacts['farEnd'];
  cutBecause?: CallFacts['cutBecause'];
}

/** Where the answered call's script is (call-script.ts). */
export interface ScriptRecord {
  acknowledged: boolean;
  repeats: number;
  playbackId?: string | undefined;
  playbackSeq: number;
  /** What the last playback leads to when it ends: a hang-up, no digit wait. */
  closing?: string | undefined;
  /** Counts the script's restarts (a machine found): a playback asked for before one is not started. */
  run: number;
  /** When the first playback was started (ms since the epoch). */
  firstSpeechAt?: number | undefined;
  messageStarted: boolean;
  speechFailed?: string | undefined;
  /** Where the call is in deciding (#56, core/calls/decision-keys): a key chosen, its PIN being typed. */
  decision: DecisionState;
  /** A PIN typed is being checked against its hash: digits meanwhile are not taken. */
  checkingPin: boolean;
}

/** Answering-machine detection's state and verdict (machine-detection.ts). */
export interface DetectionRecord {
  machine?: boolean | undefined;
  /** The phrases the phone sent, and how far the check is. */
  talk?: TalkListening | undefined;
}

/** What the call's end is decided from (core/calls/call-end, core/calls/backup-trunk), read off its records. */
export function factsOf(session: CallSession): CallFacts & { onBackupTrunk: boolean } {
  const { dialedAt, requireConfirm, phone, onBackupTrunk, line, script, detection, placement } = session;
  return {
    dialedAt,
    requireConfirm,
    phone,
    onBackupTrunk,
    rang: line.rang,
    answeredAt: line.answeredAt,
    farEnd: line.farEnd,
    cutBecause: line.cutBecause,
    acknowledged: script.acknowledged,
    messageStarted: script.messageStarted,
    speechFailed: script.speechFailed,
    machine: detection.machine,
    softphone: placement.softphone,
  };
}

export type RingAgainAccount = Pick<
  Account,
  'ringAgain' | 'ringAgainAfter' | 'requireConfirm' | 'status' | 'backupPhone' | 'backupPhoneStatus'
>;

/** The channel of the call placed for an alert; `attempt` tells a call placed again (Asterisk's channel ids are unique). */
export function channelIdFor(callId: string, attempt = ''): string {
  return `rh-${callId}${attempt}`;
}

/** What a new call is placed with. */
export interface NewSession {
  /** Its alerts, its own first. */
  calls: readonly CallForDialing[];
  phone: string;
  requireConfirm: boolean;
  dialedAt: number;
  /** A suffix for the channel of a call placed again (Asterisk's channel ids are unique). */
  attempt?: string;
  speech?: CallSpeech;
  ringAgain?: RingAgainAccount | undefined;
  onBackupTrunk?: boolean;
  messageMedia?: Promise<string> | undefined;
}

export function newSession({
  calls,
  phone,
  requireConfirm,
  dialedAt,
  attempt = '',
  speech = DEFAULT_SPEECH,
  ringAgain,
  onBackupTrunk = false,
  messageMedia,
}: NewSession): CallSession {
  const [call, ...carried] = calls;
  if (!call) throw new Error('a call carries at least one alert');
  return {
    call,
    carried,
    channelId: channelIdFor(call.callId, attempt),
    phone,
    speech,
    requireConfirm,
    dialedAt,
    onBackupTrunk,
    ...(ringAgain && { ringAgain }),
    ...(messageMedia && { messageMedia }),
    timers: new Set(),
    placement: { originated: false },
    line: { rang: false },
    script: {
      acknowledged: false,
      repeats: 0,
      playbackSeq: 0,
      run: 0,
      messageStarted: false,
      decision: { phase: 'choosing' },
      checkingPin: false,
    },
    detection: {},
  };
}

/**
 * The same alerts placed again through the backup trunk: a new call (its own channel, its own
 * facts), whose message's speech is the one already being made.
 */
export function backupTrunkSession(previous: CallSession, dialedAt: number): CallSession {
  return newSession({
    calls: alertsOf(previous),
    phone: previous.phone,
    requireConfirm: previous.requireConfirm,
    dialedAt,
    attempt: '-b',
    speech: previous.speech,
    ringAgain: previous.ringAgain,
    onBackupTrunk: true,
    messageMedia: previous.messageMedia,
  });
}

/** Every alert the call carries, its own first. */
export function alertsOf(session: CallSession): CallForDialing[] {
  return [session.call, ...session.carried];
}

/** Runs `fn` after `ms` unless the session's timers are disarmed first. */
export function arm(session: CallSession, ms: number, fn: () => void): void {
  const timer = setTimeout(() => {
    session.timers.delete(timer);
    fn();
  }, ms);
  session.timers.add(timer);
}

export function disarmAll(session: CallSession): void {
  for (const timer of session.timers) clearTimeout(timer);
  session.timers.clear();
}

/** The calls in progress, by the id of every alert they carry and by channel id (Asterisk's events name the channel). */
export class CallSessions {
  private readonly byCall = new AlertIndex<CallSession>();
  private readonly byChannelId = new Map<string, CallSession>();
  private readonly onEmpty: Array<() => void> = [];

  /** Calls in progress (a call may carry several alerts). */
  get size(): number {
    return this.byChannelId.size;
  }

  add(session: CallSession): void {
    this.byCall.add(session, session.call.callId, session.carried);
    this.byChannelId.set(session.channelId, session);
  }

  /** Forgets the call and disarms its timers. */
  remove(session: CallSession): void {
    disarmAll(session);
    this.byChannelId.delete(session.channelId);
    this.byCall.delete(session, session.call.callId, session.carried);
    if (this.byChannelId.size === 0) for (const done of this.onEmpty.splice(0)) done();
  }

  /** The phones being called now: their line is busy. */
  phones(): Set<string> {
    return new Set([...this.byChannelId.values()].map((s) => s.phone));
  }

  /** Resolves once no call is in progress, or after `ms`. */
  whenEmpty(ms: number): Promise<void> {
    if (this.byChannelId.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.onEmpty.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Whether the alert is in a call in progress (its own, or carried). */
  has(callId: string): boolean {
    return this.byCall.has(callId);
  }

  byChannel(channelId: string): CallSession | undefined {
    return this.byChannelId.get(channelId);
  }

  all(): CallSession[] {
    return [...this.byChannelId.values()];
  }
}
