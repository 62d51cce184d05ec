// One call being placed: what the dialer has seen of it (the facts its end is decided from), the
// state of its script, and its timers.
import type { Account } from '../core/account.js';
import type { CallFacts } from '../core/calls/call-end.js';
import { type CallSpeech, DEFAULT_SPEECH } from '../core/speech/languages.js';
import type { CallForDialing } from '../core/records.js';
import type { AriEventOf } from '../pbx/index.js';
import type { AudioFlow, TalkPhrase } from '../core/calls/talk-verdict.js';

/**
 * ChannelHangupRequest's `cause` when `soft` is Asterisk's soft-hangup reason (a set of flags, not
 * a Q.850 cause): this one is AST_SOFTHANGUP_SHUTDOWN, a channel hung up because Asterisk stops.
 */
const SOFT_HANGUP_SHUTDOWN = 4;

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

export interface CallSession extends CallFacts {
  /** The alert the call was placed for. */
  call: CallForDialing;
  /** Alerts that waited for this phone's line and ride along, spoken after it in order of arrival. */
  carried: CallForDialing[];
  channelId: string;
  /** The number dialed: the SMS backup goes to the same one. */
  phone: string;
  repeats: number;
  playbackId?: string | undefined;
  playbackSeq: number;
  timers: Set<NodeJS.Timeout>;
  /** The account's language, intro and voice. */
  speech: CallSpeech;
  /** The message's speech, made while the phone rings. */
  messageMedia?: Promise<string>;
  /** Answering-machine detection: the phrases the phone sent, and how far the check is. */
  talk?: TalkListening;
  /** Counts the script's restarts (a machine found): a playback asked for before one is not started. */
  scriptRun?: number;
  /** When the first playback was started (ms since the epoch). */
  firstSpeechAt?: number;
  /** What the last playback leads to when it ends: a hang-up, no digit wait. */
  closing?: string | undefined;
  /** The call went out again through the backup trunk (it is never sent a third time). */
  onBackupTrunk?: boolean;
  /** The trunk the call went out through (trunk, trunk2); none for the local softphone. */
  trunk?: string | undefined;
  /** Asterisk took the originate: from here the call has a channel (until it is destroyed). */
  originated?: boolean;
  /** The account's ring-again setting (core/calls/ring-again), as the claim read it. */
  ringAgain?: RingAgainAccount | undefined;
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
}

export function newSession({
  calls,
  phone,
  requireConfirm,
  dialedAt,
  attempt = '',
  speech = DEFAULT_SPEECH,
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
    rang: false,
    acknowledged: false,
    repeats: 0,
    playbackSeq: 0,
    timers: new Set(),
  };
}

/**
 * The same alerts placed again through the backup trunk: a new call (its own channel, its own
 * facts), whose message's speech is the one already being made.
 */
export function backupTrunkSession(previous: CallSession, dialedAt: number): CallSession {
  const session = newSession({
    calls: alertsOf(previous),
    phone: previous.phone,
    requireConfirm: previous.requireConfirm ?? false,
    dialedAt,
    attempt: '-b',
    speech: previous.speech,
  });
  session.onBackupTrunk = true;
  session.ringAgain = previous.ringAgain;
  if (previous.messageMedia) session.messageMedia = previous.messageMedia;
  return session;
}

/** Every alert the call carries, its own first. */
export function alertsOf(session: CallSession): CallForDialing[] {
  return [session.call, ...session.carried];
}

/** A hangup is asked for: by Asterisk stopping (the call is cut), or by the far end before answering. */
export function noteHangupRequest(session: CallSession, event: AriEventOf<'ChannelHangupRequest'>): void {
  if (event.soft && event.cause !== undefined && (event.cause & SOFT_HANGUP_SHUTDOWN) !== 0)
    session.cutBecause = 'asterisk_stopped';
  else if (session.answeredAt === undefined) session.farEnd = { cause: event.cause, sipCode: event.tech_cause };
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
  private readonly byCall = new Map<string, CallSession>();
  private readonly byChannelId = new Map<string, CallSession>();
  private readonly onEmpty: Array<() => void> = [];

  /** Calls in progress (a call may carry several alerts). */
  get size(): number {
    return this.byChannelId.size;
  }

  add(session: CallSession): void {
    for (const alert of alertsOf(session)) this.byCall.set(alert.callId, session);
    this.byChannelId.set(session.channelId, session);
  }

  /** Forgets the call and disarms its timers. */
  remove(session: CallSession): void {
    disarmAll(session);
    for (const alert of alertsOf(session)) this.byCall.delete(alert.callId);
    this.byChannelId.delete(session.channelId);
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
