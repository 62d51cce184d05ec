// How a call that was placed ended, from what happened during it and how it stopped. Pure: the
// dialer gathers the facts, this decides the final state and what the history records.
import type { FinalState } from './call-state.js';
import { classifyUnanswered } from './outcome.js';
import {
  type CallReason,
  callReason,
  hangupDetail,
  type ReasonCode,
  refusalReason,
  returnsAllowance,
  unansweredReason,
} from './reasons.js';

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
  | { kind: 'originate-failed'; refusedByAsterisk: boolean; message: string; endpointOffline?: boolean | undefined };

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

function answered(f: CallFacts, now: number): Pick<CallEnd, 'state' | 'fields'> {
  const state = answeredState(f);
  const talk = f.answeredAt !== undefined ? { talkMs: now - f.answeredAt } : {};
  return {
    state,
    fields: {
      endedAt: now,
      ...talk,
      ...(f.speechFailed && callReason('speech_failed', f, `speech failed: ${f.speechFailed}`)),
    },
  };
}

/**
 * The end with a note for its timeline (the technical `detail`); a call that did not reach its
 * person also gets the reason in words, unless it has one already.
 */
function withDetail(end: Pick<CallEnd, 'state' | 'fields'>, reason: ReasonCode, f: CallFacts, detail: string): CallEnd {
  const reached =
    end.state === 'completed' ||
    end.state === 'acknowledged' ||
    end.state === 'voicemail' ||
    end.state === 'unconfirmed';
  const fields =
    reached || end.fields.error !== undefined
      ? end.fields
      : {
          ...end.fields,
          ...callReason(reason, f, detail),
          ...(returnsAllowance(reason) && { returnsAllowance: true }),
        };
  return { ...end, fields, detail };
}

export function decideCallEnd(f: CallFacts, stop: CallStop, now: number): CallEnd {
  const duration = f.answeredAt !== undefined ? { talkMs: now - f.answeredAt } : { ringMs: now - f.dialedAt };
  switch (stop.kind) {
    case 'destroyed': {
      const sipCode = stop.techCause ?? f.farEnd?.sipCode;
      const hangup = {
        endedAt: now,
        hangupCause: stop.cause,
        hangupCauseText: stop.causeText,
        ...(sipCode !== undefined && { sipCode }),
      };
      const technical = hangupDetail(stop.cause, stop.causeText, sipCode);
      // Cut by a stop: the phone heard part of the message, or nothing; the SMS backup applies.
      if (f.cutBecause && !f.acknowledged) {
        const cut =
          f.cutBecause === 'asterisk_stopped'
            ? 'Asterisk stopped during the call (restart or shutdown)'
            : 'ringhook stopped during the call';
        return withDetail(
          { state: 'interrupted', fields: { ...hangup, ...duration } },
          f.cutBecause,
          f,
          `${cut}: ${technical}`,
        );
      }
      if (f.answeredAt !== undefined) {
        const end = answered(f, now);
        return { state: end.state, fields: { ...hangup, ...end.fields } };
      }
      const facts = { cause: stop.cause, sipCode, farEndAnswered: f.farEnd !== undefined, rang: f.rang };
      const state = classifyUnanswered(facts);
      return { state, fields: { ...hangup, ...duration, ...callReason(unansweredReason(facts), f, technical) } };
    }
    case 'hangup-unconfirmed':
      return withDetail(
        answered(f, now),
        'hangup_unconfirmed',
        f,
        'Asterisk did not report the end of the call after ringhook hung up',
      );
    case 'lost':
      return withDetail(
        { state: f.acknowledged ? 'acknowledged' : 'interrupted', fields: { endedAt: now } },
        'events_lost',
        f,
        'the call ended while the connection to Asterisk was down',
      );
    case 'given-up':
      return withDetail({ state: 'failed', fields: { endedAt: now } }, stop.reason ?? 'no_final_event', f, stop.why);
    case 'stopped':
      return withDetail(
        { state: 'interrupted', fields: { endedAt: now } },
        'ringhook_stopped',
        f,
        'ringhook stopped during the call',
      );
    case 'originate-failed':
      // One attempt only: a refused originate is the outcome, never retried.
      return withDetail(
        { state: stop.refusedByAsterisk ? 'unreachable' : 'failed', fields: { endedAt: now } },
        refusalReason({
          softphone: f.softphone,
          refusedByAsterisk: stop.refusedByAsterisk,
          endpointOffline: stop.endpointOffline,
        }),
        f,
        `originate failed: ${stop.message}`,
      );
  }
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
  | ({ dial: false; state: 'expired' | 'failed'; returnsAllowance: true } & CallReason);

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
