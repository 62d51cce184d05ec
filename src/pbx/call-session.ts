// One call being placed: what the dialer has seen of it (the facts its end is decided from), the
// state of its script, and its timers.
import type { CallFacts } from '../core/call-end.js';
import type { CallForDialing } from '../db/call-progress.js';
import type { AriEventOf } from './ari.js';

/**
 * ChannelHangupRequest's `cause` when `soft` is Asterisk's soft-hangup reason (a set of flags, not
 * a Q.850 cause): this one is AST_SOFTHANGUP_SHUTDOWN, a channel hung up because Asterisk stops.
 */
const SOFT_HANGUP_SHUTDOWN = 4;

export interface CallSession extends CallFacts {
  call: CallForDialing;
  channelId: string;
  /** The number dialed: the SMS backup goes to the same one. */
  phone: string;
  repeats: number;
  playbackId?: string | undefined;
  playbackSeq: number;
  timers: Set<NodeJS.Timeout>;
  /** The message's speech, made while the phone rings. */
  messageMedia?: Promise<string>;
}

export function newSession(call: CallForDialing, phone: string, dialedAt: number): CallSession {
  return { call, channelId: `rh-${call.callId}`, phone, dialedAt, rang: false, acknowledged: false, repeats: 0, playbackSeq: 0, timers: new Set() };
}

/** A hangup is asked for: by Asterisk stopping (the call is cut), or by the far end before answering. */
export function noteHangupRequest(session: CallSession, event: AriEventOf<'ChannelHangupRequest'>): void {
  if (event.soft && event.cause !== undefined && (event.cause & SOFT_HANGUP_SHUTDOWN) !== 0) session.cutBecause = 'Asterisk stopped during the call (restart or shutdown)';
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

/** The calls in progress, by call id and by channel id (Asterisk's events name the channel). */
export class CallSessions {
  private readonly byCall = new Map<string, CallSession>();
  private readonly byChannelId = new Map<string, CallSession>();
  private readonly onEmpty: Array<() => void> = [];

  get size(): number {
    return this.byCall.size;
  }

  add(session: CallSession): void {
    this.byCall.set(session.call.callId, session);
    this.byChannelId.set(session.channelId, session);
  }

  /** Forgets the call and disarms its timers. */
  remove(session: CallSession): void {
    disarmAll(session);
    this.byCall.delete(session.call.callId);
    this.byChannelId.delete(session.channelId);
    if (this.byCall.size === 0) for (const done of this.onEmpty.splice(0)) done();
  }

  /** Resolves once no call is in progress, or after `ms`. */
  whenEmpty(ms: number): Promise<void> {
    if (this.byCall.size === 0) return Promise.resolve();
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

  channels(): string[] {
    return [...this.byChannelId.keys()];
  }

  all(): CallSession[] {
    return [...this.byCall.values()];
  }
}
