// A call at its end as it is handed on (the SMS backup, metrics) and as its one log line says it.
import { expiresAt } from '../core/calls/alert-expiry.js';
import type { FinalState } from '../core/calls/call-state.js';
import type { CallAccountFlags, CallForDialing, TransitionFields } from '../core/records.js';
import { withCutMark } from '../core/webhook/payload.js';
import type { Logger } from '../lib/log.js';

/** A call at its end, as handed to what follows (the SMS backup, metrics); a message the webhook cut ends with "...". */
export interface FinalCall {
  callId: string;
  userId: string;
  message: string;
  /** The number that was called; null when no call was placed (it never left the queue). */
  phone: string | null;
  state: FinalState;
  /** Alerts that waited for the line and rode along in the same call: they share its end and its SMS. */
  carried: Array<{ callId: string; message: string; expiresAt?: number }>;
  /** The alert's own expiry (core/calls/alert-expiry): its SMS is not sent after it. */
  expiresAt?: number;
  /** The backup person's verification call (core/calls/backup-person): their 1 makes the number `verified`; it has no SMS backup. */
  verification?: true;
  /** When the end was recorded, for a call whose SMS is decided later (after a restart); now when absent. */
  endedAt?: number;
  /** Its account's flags as read with the call (#55): the SMS backup reads nothing again. Absent: read then. */
  account?: CallAccountFlags | null | undefined;
}

/** How a call went out: when it was dialed, through which trunk (or to the local softphone). */
export interface CallPlaced {
  dialedAt: number;
  trunk?: string | undefined;
  softphone?: string | undefined;
}

/** One line per call at its end, at info: its outcome, why, how long, through which trunk; never its text nor the number. */
export function logEnd(
  { logger, now }: { logger: Logger; now: () => number },
  call: CallForDialing,
  carried: readonly CallForDialing[],
  state: FinalState,
  fields: TransitionFields,
  placed: CallPlaced | undefined,
): void {
  const endedAt = fields.endedAt ?? now();
  logger.info('call ended', {
    call_id: call.callId,
    user_id: call.userId,
    outcome: state,
    reason: fields.error ?? null,
    reason_detail: fields.reasonDetail ?? null,
    duration_ms: placed ? Math.max(0, endedAt - placed.dialedAt) : null,
    ...(fields.talkMs !== undefined && { talk_ms: fields.talkMs }),
    trunk: placed?.trunk ?? null,
    ...(placed?.softphone !== undefined && { softphone: placed.softphone }),
    // A quiet-hours batch carries thousands: the first ten named, and how many.
    ...(carried.length > 0 && { carried: carried.slice(0, 10).map((c) => c.callId) }),
    ...(carried.length > 10 && { carried_count: carried.length }),
  });
}

/** The message as its SMS shows it: one the webhook cut at its limit ends with "...". */
export const asReceived = (call: CallForDialing): string => withCutMark(call.message, call.messageTruncated);

/** An alert's own expiry, as the SMS backup reads it (absent: none). */
export function expiryOf(call: CallForDialing): { expiresAt?: number } {
  const at = expiresAt(call);
  return at === undefined ? {} : { expiresAt: at };
}
