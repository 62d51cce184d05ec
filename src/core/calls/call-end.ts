// How a call that was placed ended, from what happened during it and how it stopped. Pure: the
// dialer gathers the facts, this decides the final state and what the history records.
import { expiredFate, hasExpired } from './alert-expiry.js';
import type { FinalState } from './call-state.js';
import { classifyUnanswered, type UnansweredFacts } from './outcome.js';
import { type CallReason, callReason, endReason, type ReasonAsk, type ReasonCode } from '../reasons.js';

/** What the dialer saw of one call. */
export interface CallFacts {
  dialedAt: number;
  rang: boolean;
  answeredAt?: number | undefined;
  acknowledged: boolean;
  /** Answering-machine detection's verdict: a machine (voicemail) took the call. */
  machine?: boolean | undefined;
  /** The account counts a call as heard only when 1 was pressed. */
  requireConfirm?: boolean | undefined;
  /** The message began to play (a call hung up before it, e.g. during the machine check, was not heard). */
  messageStarted?: boolean | undefined;
  /** Why playing the speech failed, if it did. */
  speechFailed?: string | undefined;
  /** The far end's own final answer before the channel ended (a ChannelHangupRequest). */
  farEnd?: { cause?: number | undefined; sipCode?: number | undefined } | undefined;
  /** Set when Asterisk or ringhook stopping cut the call: why. */
  cutBecause?: 'asterisk_stopped' | 'ringhook_stopped' | undefined;
  /** The call rings the local softphone of this user name (no trunk). */
  softphone?: string | undefined;
  /** The number dialed. */
  phone?: string | undefined;
}

/** How the call stopped. */
export type CallStop =
  /** Asterisk reported the channel's end (ChannelDestroyed). */
  | { kind: 'destroyed'; cause: number; causeText: string; techCause?: number | undefined }
  /** ringhook hung up and Asterisk never reported the end. */
  | { kind: 'hangup-unconfirmed' }
  /** The channel was gone when the events connection came back. */
  | { kind: 'lost' }
  /** No final event at all within the ring timeout, and never answered (`reason`: no_final_event unless said). */
  | { kind: 'given-up'; why: string; reason?: ReasonCode }
  /** ringhook stopped and the call did not end within the grace period. */
  | { kind: 'stopped' }
  /** Asterisk refused the originate (an HTTP answer: the endpoint cannot be reached), or it failed otherwise. */
  | { kind: 'originate-failed'; refusedByAsterisk: boolean; message: string; endpointOffline?: boolean | undefined }
  /** A decision key was pressed (#56): the call ends acknowledged now, its decision recorded with the end; "Sent." follows. */
  | { kind: 'decided'; decision: { key: string; label: string } };

export interface CallEnd {
  state: FinalState;
  /** The record: end time, cause, SIP code, ring or talk time, the reason in words (`error`) and its technical detail. */
  fields: {
    endedAt: number;
    hangupCause?: number;
    hangupCauseText?: string;
    sipCode?: number;
    ringMs?: number;
    talkMs?: number;
    error?: string;
    reasonDetail?: string;
    /** The call never left this server (its set-up): the alert's monthly allowance is given back. */
    returnsAllowance?: boolean;
  };
  /** A note for the call's timeline, when the state needs one. */
  detail?: string;
}

/**
 * An answered call: heard when 1 was pressed, or when a person answered, the message began and no
 * confirmation is required; a call hung up before its message began was not heard either.
 */
export function answeredState(
  f: Pick<CallFacts, 'acknowledged' | 'speechFailed' | 'machine' | 'requireConfirm' | 'messageStarted'>,
): FinalState {
  if (f.acknowledged) return 'acknowledged';
  if (f.speechFailed) return 'failed';
  if (f.machine) return 'voicemail';
  return f.requireConfirm || !f.messageStarted ? 'unconfirmed' : 'completed';
}

/**
 * How the call ended, before its reason is put in words: the state (for a call never answered, the
 * facts outcome.ts classifies), the record's times and cause, and what to ask reasons.ts, when the
 * person was not reached and the record has no reason yet. `note`: the timeline's, in words of its
 * own, or (`reason`) the reason's technical detail.
 */
interface Ending {
  state: FinalState | { unanswered: UnansweredFacts };
  fields: CallEnd['fields'];
  ask?: ReasonAsk | undefined;
  note?: string | { reason: true };
}

/** A state in which the call reached its person (or their voicemail): it has no reason to give. */
function reached(state: FinalState): boolean {
  return state === 'completed' || state === 'acknowledged' || state === 'voicemail' || state === 'unconfirmed';
}

/** An answered call (or one hung up by ringhook as if answered): its state, talk time, and a failed speech's reason. */
function answered(f: CallFacts, fields: CallEnd['fields'], note?: string): Ending {
  const talk = f.answeredAt !== undefined ? { talkMs: fields.endedAt - f.answeredAt } : {};
  return {
    state: answeredState(f),
    fields: { ...fields, ...talk },
    ask: f.speechFailed ? { why: 'speech_failed', detail: `speech failed: ${f.speechFailed}` } : undefined,
    ...(note !== undefined && { note }),
  };
}

/** A call that stopped other than by answering: its state, with its reason unless it reached its person. */
function notReached(state: FinalState, fields: CallEnd['fields'], why: ReasonAsk['why'], detail: string): Ending {
  return { state, fields, ...(!reached(state) && { ask: { why, detail } }), note: detail };
}

function ending(f: CallFacts, stop: CallStop, now: number): Ending {
  const endedAt = { endedAt: now };
  switch (stop.kind) {
    case 'destroyed': {
      const sipCode = stop.techCause ?? f.farEnd?.sipCode;
      const hangup = { cause: stop.cause, causeText: stop.causeText, sipCode };
      const fields = {
        endedAt: now,
        hangupCause: stop.cause,
        hangupCauseText: stop.causeText,
        ...(sipCode !== undefined && { sipCode }),
      };
      const duration = f.answeredAt !== undefined ? { talkMs: now - f.answeredAt } : { ringMs: now - f.dialedAt };
      // Cut by a stop: the phone heard part of the message, or nothing; the SMS backup applies.
      if (f.cutBecause && !f.acknowledged) {
        const cut =
          f.cutBecause === 'asterisk_stopped'
            ? 'Asterisk stopped during the call (restart or shutdown)'
            : 'ringhook stopped during the call';
        return {
          state: 'interrupted',
          fields: { ...fields, ...duration },
          ask: { why: f.cutBecause, detail: cut, hangup },
          note: { reason: true },
        };
      }
      if (f.answeredAt !== undefined) return answered(f, fields);
      const unanswered = { cause: stop.cause, sipCode, farEndAnswered: f.farEnd !== undefined, rang: f.rang };
      return { state: { unanswered }, fields: { ...fields, ...duration }, ask: { why: { unanswered }, hangup } };
    }
    case 'hangup-unconfirmed':
      // Answered or not, the call was hung up by ringhook: it ends as answered, with no reason of its own.
      return answered(f, endedAt, 'Asterisk did not report the end of the call after ringhook hung up');
    case 'lost':
      return notReached(
        f.acknowledged ? 'acknowledged' : 'interrupted',
        endedAt,
        'events_lost',
        'the call ended while the connection to Asterisk was down',
      );
    case 'given-up':
      return notReached('failed', endedAt, stop.reason ?? 'no_final_event', stop.why);
    case 'decided':
      return answered({ ...f, acknowledged: true }, endedAt);
    case 'stopped':
      return notReached('interrupted', endedAt, 'ringhook_stopped', 'ringhook stopped during the call');
    case 'originate-failed': {
      // One attempt only: a refused originate is the outcome, never retried.
      const { refusedByAsterisk, endpointOffline } = stop;
      return notReached(
        refusedByAsterisk ? 'unreachable' : 'failed',
        endedAt,
        { refused: { softphone: f.softphone, refusedByAsterisk, endpointOffline } },
        `originate failed: ${stop.message}`,
      );
    }
  }
}

/**
 * How the call ended, in one pass: the ending from the facts and the stop; a call never answered
 * classified by its cause (outcome.ts); the reason put in words once, with everything it names
 * (reasons.ts).
 */
export function decideCallEnd(f: CallFacts, stop: CallStop, now: number): CallEnd {
  const { state, fields, ask, note } = ending(f, stop, now);
  const final = typeof state === 'string' ? state : classifyUnanswered(state.unanswered);
  const reason = ask && endReason(ask, f);
  const detail = typeof note === 'object' ? reason?.reasonDetail : note;
  return {
    state: final,
    fields: reason ? { ...fields, ...reason } : fields,
    ...(detail !== undefined && { detail }),
  };
}

/** How the call stopped, in a few words for its timeline. */
export function describeStop(stop: CallStop): string {
  if (stop.kind === 'destroyed')
    return stop.techCause !== undefined ? `SIP ${stop.techCause}` : `${stop.causeText || 'cause'} (${stop.cause})`;
  if (stop.kind === 'originate-failed') return stop.message;
  return stop.kind;
}

/** What becomes of a call still queued: dialed while fresh; too old, it ends without a call. */
export type QueuedFate =
  | { dial: true }
  | ({ dial: false; state: 'expired' | 'failed'; returnsAllowance: boolean } & CallReason);

/** A queued call past its alert's own expiry (core/calls/alert-expiry) ends `expired`; else as queuedFate decides from its freshness. */
export function fateOfQueued(
  call: Parameters<typeof freshSince>[0] & { expiresIn?: number | null },
  now: number,
  freshnessMs: number,
  when: 'at start' | 'waiting',
): QueuedFate {
  if (hasExpired(call, now)) return { dial: false, ...expiredFate(call.expiresIn ?? 0) };
  return queuedFate(freshSince(call), now, freshnessMs, when);
}

/** From when a queued call's freshness counts: held for quiet hours, their end; rung again, its attempt's due time. */
export function freshSince(call: { receivedAt: number; heldUntil?: number | null; retryAt?: number | null }): number {
  return Math.max(call.receivedAt, call.heldUntil ?? 0, call.retryAt ?? 0);
}

/**
 * `at start`: found queued by a new process (it was accepted before a restart); `waiting`: kept
 * in the queue by this process while Asterisk could not take calls.
 */
export function queuedFate(
  receivedAt: number,
  now: number,
  freshnessMs: number,
  when: 'at start' | 'waiting',
): QueuedFate {
  if (receivedAt >= now - freshnessMs) return { dial: true };
  return when === 'at start'
    ? {
        dial: false,
        state: 'expired',
        returnsAllowance: true,
        ...callReason('expired', { freshnessMs }, 'too old to be placed after a restart'),
      }
    : {
        dial: false,
        state: 'failed',
        returnsAllowance: true,
        ...callReason(
          'telephony_unavailable',
          { freshnessMs },
          'telephony was unavailable until the call was too old to place',
        ),
      };
}
