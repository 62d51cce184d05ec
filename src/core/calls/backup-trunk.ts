// What follows a call that stopped: its end, or, when the first trunk did not take it, a new call
// through the backup trunk. Pure. Only a call that never rang goes out again: the provider refused
// or never answered the INVITE, so no phone has heard anything; a call that rang is never sent
// again (the phone would ring twice).
import { type CallEnd, type CallFacts, type CallStop, decideCallEnd, describeStop } from './call-end.js';

/** SIP answers by which the provider, not the phone, says it did not take the call. */
const PROVIDER_FAILURES = new Set([408, 500, 502, 503, 504]);

/**
 * The Q.850 causes Asterisk gives those answers when no SIP code came with them: congestion (503),
 * network out of order and temporary failure (500, 502), switching equipment congestion, and
 * recovery on timer expiry (408 or no answer at all to the INVITE).
 */
const PROVIDER_FAILURE_CAUSES = new Set([34, 38, 41, 42, 102]);

export function goesToBackupTrunk(f: Pick<CallFacts, 'rang' | 'answeredAt' | 'farEnd'>, stop: CallStop): boolean {
  if (f.rang || f.answeredAt !== undefined) return false;
  // Asterisk refused to place it through the first trunk (e.g. the trunk's endpoint is unavailable).
  if (stop.kind === 'originate-failed') return stop.refusedByAsterisk;
  if (stop.kind !== 'destroyed') return false;
  const sipCode = stop.techCause ?? f.farEnd?.sipCode;
  if (sipCode !== undefined) return PROVIDER_FAILURES.has(sipCode);
  return PROVIDER_FAILURE_CAUSES.has(stop.cause);
}

/**
 * What follows a call that stopped: its end (decided by core/calls/call-end), or a new placement of its
 * alerts through the backup trunk, dialed `at`.
 */
export type AfterStop =
  | { next: 'end'; end: CallEnd }
  | { next: 'backup trunk'; trunk: string; why: string; at: number };

export interface StopSituation {
  /** The backup trunk's name; undefined when there is none. */
  backupTrunk: string | undefined;
  /** ringhook is stopping: nothing goes out again. */
  stopping: boolean;
  now: number;
}

/**
 * A call goes out once more only through the backup trunk, only once (a call placed on it ends
 * there), and only while ringhook runs; it is then a new placement of the same alerts. Any other
 * call ends.
 */
export function afterStop(
  call: CallFacts & { onBackupTrunk?: boolean | undefined },
  stop: CallStop,
  { backupTrunk, stopping, now }: StopSituation,
): AfterStop {
  if (call.onBackupTrunk || stopping || backupTrunk === undefined || !goesToBackupTrunk(call, stop))
    return { next: 'end', end: decideCallEnd(call, stop, now) };
  return {
    next: 'backup trunk',
    trunk: backupTrunk,
    why: `the first trunk did not take the call (${describeStop(stop)}): placed through ${backupTrunk}`,
    at: now,
  };
}
