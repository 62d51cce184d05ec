// Whether a call that reached its final state is followed by the SMS backup. Pure.
import { receivesCalls, type Account } from '../account.js';
import { SMS_BACKUP_STATES, type FinalState } from '../calls/call-state.js';
import { SMS_NOT_SENT } from '../reasons.js';

/** send; not_needed: the call reached the owner; disabled: the account has no SMS backup (or is suspended, or no gateway is set). */
export type SmsDecision = 'send' | 'not_needed' | 'disabled';

export function decideSms(
  state: FinalState,
  account: Pick<Account, 'smsBackup' | 'status'> | undefined,
  gatewayConfigured: boolean,
): SmsDecision {
  if (!SMS_BACKUP_STATES.has(state)) return 'not_needed';
  if (!account?.smsBackup || !receivesCalls(account) || !gatewayConfigured) return 'disabled';
  return 'send';
}

/** Why a `disabled` SMS backup sent nothing, as the call keeps it (its `sms_error`, read by smsReasonText). */
export function smsOffReason(
  account: Pick<Account, 'smsBackup' | 'status'> | undefined,
  gatewayConfigured: boolean,
): string {
  if (!account) return SMS_NOT_SENT.accountGone;
  if (!account.smsBackup) return SMS_NOT_SENT.backupOff;
  if (!receivesCalls(account)) return SMS_NOT_SENT.suspended;
  if (!gatewayConfigured) return SMS_NOT_SENT.noGateway;
  return SMS_NOT_SENT.backupOff;
}

/** A call's end as the SMS backup reads it: its state, its alerts (its own first) and where an SMS would go. */
export interface SmsFacts {
  callId: string;
  state: FinalState;
  message: string;
  /** The number that was called; an alert never dialed has none. */
  phone?: string | null | undefined;
  carried: ReadonlyArray<{ callId: string; message: string; expiresAt?: number | undefined }>;
  /** The alert's own expiry (core/calls/alert-expiry): no SMS of it is sent from then on. */
  expiresAt?: number | undefined;
}

/**
 * The call's alerts whose own expiry has passed at `now` when an SMS would follow their call (it is
 * not sent), and the call without them (undefined: none is left; else the first of the others leads).
 */
export function withoutExpired(call: SmsFacts, now: number): { expired: string[]; live: SmsFacts | undefined } {
  if (!SMS_BACKUP_STATES.has(call.state)) return { expired: [], live: call };
  const gone = (a: { expiresAt?: number | undefined }) => a.expiresAt !== undefined && now >= a.expiresAt;
  // None gone (a quiet-hours batch's 10,000 alerts, usually): nothing is copied.
  if (!gone(call) && !call.carried.some(gone)) return { expired: [], live: call };
  const all = [{ callId: call.callId, message: call.message, expiresAt: call.expiresAt }, ...call.carried];
  const expired = all.filter(gone).map((a) => a.callId);
  const [first, ...rest] = all.filter((a) => !gone(a));
  if (!first) return { expired, live: undefined };
  return {
    expired,
    live: { ...call, callId: first.callId, message: first.message, expiresAt: first.expiresAt, carried: rest },
  };
}

/** The soonest expiry among the alerts of an SMS: it is not tried after it. */
export function soonestExpiry(call: SmsFacts): number | undefined {
  const all = [call.expiresAt, ...call.carried.map((c) => c.expiresAt)].filter((t): t is number => t !== undefined);
  return all.length > 0 ? Math.min(...all) : undefined;
}

/**
 * What the SMS backup does after a call's end, decided once: for every alert the call carried (it is
 * missed, or heard, for all of them: one decision, one SMS), nothing (not needed; or disabled, and
 * why, as the call keeps it), or one SMS with their messages to the number that was called (an alert
 * never dialed: the account's).
 */
export type SmsPlan = { callIds: string[] } & (
  | { send: false; status: 'not_needed' | 'disabled'; why?: string | undefined }
  | { send: true; to: string; messages: string[] }
);

export function planSms(
  call: SmsFacts,
  account: (Pick<Account, 'smsBackup' | 'status'> & { phone: string }) | undefined,
  gatewayConfigured: boolean,
): SmsPlan {
  const callIds = [call.callId, ...call.carried.map((c) => c.callId)];
  const decision = decideSms(call.state, account, gatewayConfigured);
  if (decision === 'not_needed') return { callIds, send: false, status: 'not_needed', why: undefined };
  if (decision !== 'send' || !account)
    return { callIds, send: false, status: 'disabled', why: smsOffReason(account, gatewayConfigured) };
  const messages = [call.message, ...call.carried.map((c) => c.message)];
  return { callIds, send: true, to: call.phone ?? account.phone, messages };
}

/**
 * Alerts a stopped process left, as the calls that carried them: a merged call's alerts together,
 * its carrier's first (they share one SMS, as they would have), each other alert alone.
 */
export function groupByCarrier<T extends { callId: string; carriedBy: string | null }>(rows: readonly T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const carrier = row.carriedBy ?? row.callId;
    const group = groups.get(carrier) ?? [];
    if (row.callId === carrier) group.unshift(row);
    else group.push(row);
    groups.set(carrier, group);
  }
  return [...groups.values()];
}
