// Rows as both stores keep them and how they become records, written once for SQLite and
// PostgreSQL (the account's: account-rows.ts): the call's
// row and its extra fields, a refused alert's row, the columns of a call's steps, the session's row, a sign-in link's.
import type { Account } from '../core/account.js';
import type { LimitDecision } from '../core/webhook/limits.js';
import type { Alert } from '../core/webhook/payload.js';
import {
  type CallKind,
  type CallRecord,
  LOGIN_LINK_TTL_MS,
  type RejectedAlert,
  type TransitionFields,
} from '../core/records.js';
import { hashToken, newToken } from './tokens.js';
import { reasonText } from '../core/reasons.js';
import { decideSms } from '../core/delivery/sms-decision.js';
import { readAttempts } from '../core/calls/ring-again.js';
import { formatDecisionKeys } from '../core/calls/decision-keys.js';

export function wrongSecretKeyMessage(dbName: string, source: string): string {
  return (
    `the webhook URLs in ${dbName} were sealed with another secret key than ${source}: ` +
    'put back the api-keys.secret file kept with this database in the data dir, or set RINGHOOK_SECRET_KEY to that key; ' +
    'if it is lost, `ringhook account regenerate --all --yes` gives every account a new webhook URL'
  );
}

export interface CallRow {
  id: number;
  call_id: string;
  user_id: string;
  kind: CallKind;
  accepted: number;
  status: string;
  message: string;
  message_truncated: number;
  ticker: string | null;
  price: number | null;
  action: string | null;
  strategy: string | null;
  alert_timestamp: string | null;
  extra: string | null;
  error: string | null;
  reason_detail: string | null;
  received_at: number;
  updated_at: number;
  phone: string | null;
  dialed_at: number | null;
  answered_at: number | null;
  ended_at: number | null;
  ring_ms: number | null;
  talk_ms: number | null;
  hangup_cause: number | null;
  hangup_cause_text: string | null;
  sip_code: number | null;
  sms_status: string | null;
  sms_message_id: string | null;
  sms_parts: number | null;
  sms_at: number | null;
  sms_error: string | null;
  carried_by: string | null;
  amd_status: string | null;
  amd_cause: string | null;
  trunk: string | null;
  held_until: number | null;
  /** Absent in a row of schema 16 or older (ring again, #54). */
  attempt?: number | null;
  retry_at?: number | null;
  attempts?: string | null;
  /** Absent in a row of schema 17 or older (the backup person, #54). */
  dial_to?: string | null;
  /** Absent in a row of schema 19 or older (decision keys, #56). */
  decision_keys?: string | null;
  idempotency_key?: string | null;
  decision_key?: string | null;
  decision_label?: string | null;
  decided_at?: number | string | null;
  decision_refused?: string | null;
}

export function parseExtra(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return { extra: text };
  }
}

/** A calls row as the history shows it (also for the PostgreSQL store, whose rows have the same columns). */
export function toRecord(row: CallRow): CallRecord {
  return {
    id: row.id,
    callId: row.call_id,
    userId: row.user_id,
    kind: row.kind,
    accepted: row.accepted === 1,
    status: row.status,
    message: row.message,
    messageTruncated: row.message_truncated === 1,
    ticker: row.ticker,
    price: row.price,
    action: row.action,
    strategy: row.strategy,
    alertTimestamp: row.alert_timestamp,
    extra: parseExtra(row.extra),
    error: row.error,
    reasonDetail: row.reason_detail ?? null,
    receivedAt: row.received_at,
    updatedAt: row.updated_at,
    phone: row.phone,
    dialedAt: row.dialed_at,
    answeredAt: row.answered_at,
    endedAt: row.ended_at,
    ringMs: row.ring_ms,
    talkMs: row.talk_ms,
    hangupCause: row.hangup_cause,
    hangupCauseText: row.hangup_cause_text,
    sipCode: row.sip_code,
    smsStatus: row.sms_status,
    smsMessageId: row.sms_message_id,
    smsParts: row.sms_parts,
    smsAt: row.sms_at,
    smsError: row.sms_error,
    carriedBy: row.carried_by,
    amdStatus: row.amd_status,
    amdCause: row.amd_cause,
    trunk: row.trunk,
    heldUntil: row.held_until ?? null,
    attempt: Number(row.attempt ?? 1),
    retryAt: row.retry_at === undefined || row.retry_at === null ? null : Number(row.retry_at),
    earlierAttempts: readAttempts(row.attempts),
    dialTo: row.dial_to ?? null,
    decisionKeys: row.decision_keys ?? null,
    idempotencyKey: row.idempotency_key ?? null,
    decisionKey: row.decision_key ?? null,
    decisionLabel: row.decision_label ?? null,
    decidedAt: row.decided_at === undefined || row.decided_at === null ? null : Number(row.decided_at),
    decisionRefused: row.decision_refused ?? null,
  };
}

export { MAX_REJECTIONS_KEPT } from '../core/webhook/kept-rejections.js';

/** Rejected messages are stored shortened: they are kept to explain, not to be spoken. */
export const REJECTED_MESSAGE_MAX = 200;

/** The history entry of an alert refused by a plan limit. */
export function limitRejection(
  userId: string,
  alert: Alert,
  decision: Exclude<LimitDecision, { allowed: true }>,
  callId?: string,
): RejectedAlert {
  const monthly = decision.limit === 'monthly';
  return {
    ...(callId !== undefined && { callId }),
    userId,
    alert,
    status: monthly ? 'limit_exceeded' : 'rate_limited',
    error: monthly ? 'monthly call limit exceeded' : 'per-minute call limit exceeded',
  };
}

/** The row of an alert answered as a duplicate of an earlier one (the same for both stores). */
export function duplicateRow(userId: string, alert: Alert, firstCallId: string, rowId: string): RejectedAlert {
  return { callId: rowId, userId, status: 'duplicate', error: `duplicate of ${firstCallId}`, alert };
}

/** The fields of a step to write, without those left undefined and without instructions. */
export function columnEntries(fields: TransitionFields): Array<[ColumnField, unknown]> {
  return Object.entries(fields).filter(([k, v]) => v !== undefined && k in COLUMN) as Array<[ColumnField, unknown]>;
}

/** The timeline's words when a call's monthly allowance is given back. */
export const ALLOWANCE_RETURNED = 'the monthly allowance was given back: the call never left this server';

/** The fields of a step that are kept in a column (returnsAllowance is an instruction, not a column). */
export type ColumnField = Exclude<keyof TransitionFields, 'returnsAllowance'>;

/** The column each field of a step is kept in (both stores). */
export const COLUMN: Record<ColumnField, string> = {
  phone: 'phone',
  channelId: 'channel_id',
  dialedAt: 'dialed_at',
  ringingAt: 'ringing_at',
  answeredAt: 'answered_at',
  endedAt: 'ended_at',
  ringMs: 'ring_ms',
  talkMs: 'talk_ms',
  hangupCause: 'hangup_cause',
  hangupCauseText: 'hangup_cause_text',
  sipCode: 'sip_code',
  error: 'error',
  reasonDetail: 'reason_detail',
  carriedBy: 'carried_by',
  trunk: 'trunk',
  attempt: 'attempt',
  retryAt: 'retry_at',
  attempts: 'attempts',
  dialTo: 'dial_to',
};

/** A session's row as both stores keep it. */
export interface SessionRow {
  user_id: string;
  csrf_token: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

/** How an owner signs in: the password's hash, if any, and the admin flag. */
export interface AuthRow {
  user_id: string;
  password_hash: string | null;
  is_admin: number;
}

/** A sign-in link is pruned (when the next one is made) a day after it expired. */
const EXPIRED_LINK_KEPT_MS = 24 * 60 * 60_000;

/**
 * A new one-time sign-in link made at `now`: its token (for the link), its row's values in the order both stores
 * insert them (token_hash, user_id, created_at, expires_at: only the token's hash is kept), and the expiry before
 * which older links are pruned.
 */
export function newLoginLink(userId: string, now: number) {
  const token = newToken();
  const expiresAt = now + LOGIN_LINK_TTL_MS;
  return {
    token,
    expiresAt,
    values: [hashToken(token), userId, now, expiresAt] as const,
    pruneBefore: now - EXPIRED_LINK_KEPT_MS,
  };
}

/** An accepted alert's own columns, in the order both stores insert them (after the status). */
export function alertColumns(alert: Alert) {
  return {
    message: alert.message,
    message_truncated: alert.truncated ? 1 : 0,
    ticker: alert.fields.ticker ?? null,
    price: alert.fields.price ?? null,
    action: alert.fields.action ?? null,
    strategy: alert.fields.strategy ?? null,
    alert_timestamp: alert.fields.timestamp ?? null,
    extra: Object.keys(alert.extra).length > 0 ? JSON.stringify(alert.extra) : null,
  };
}

/** A call to place: an accepted alert or a test call (dialTo: a number other than the account's). */
export interface NewCall {
  callId: string;
  userId: string;
  kind: CallKind;
  alert: Alert;
  dialTo?: string | null;
}

/** An accepted call's columns, in the order both stores insert them (after call_id, before the times). */
export function acceptedColumns(call: NewCall) {
  return {
    user_id: call.userId,
    kind: call.kind,
    accepted: 1,
    status: 'queued' as const,
    ...alertColumns(call.alert),
    error: null,
  };
}

/** An accepted alert's decision columns (#56): its own keys (null: the account's) and its Idempotency-Key. */
export function alertDecisionColumns(alert: Alert) {
  return {
    decision_keys: alert.keys === undefined ? null : formatDecisionKeys(alert.keys),
    idempotency_key: alert.idempotencyKey ?? null,
  };
}

/** A refused alert's columns, in the order both stores insert them (after call_id, before the times). */
export function rejectionColumns(rejected: RejectedAlert) {
  const alert = rejected.alert;
  const message = Array.from(alert?.message ?? rejected.excerpt ?? '');
  return {
    user_id: rejected.userId,
    kind: 'alert' as const,
    accepted: 0,
    status: rejected.status,
    message: message.slice(0, REJECTED_MESSAGE_MAX).join(''),
    message_truncated: alert?.truncated || message.length > REJECTED_MESSAGE_MAX ? 1 : 0,
    ticker: alert?.fields.ticker ?? null,
    price: alert?.fields.price ?? null,
    action: alert?.fields.action ?? null,
    strategy: alert?.fields.strategy ?? null,
    alert_timestamp: alert?.fields.timestamp ?? null,
    extra: alert && Object.keys(alert.extra).length > 0 ? JSON.stringify(alert.extra) : null,
    error: rejected.error,
  };
}

/**
 * How an account's queued calls end when it is suspended (written with the suspension, in the same
 * transaction, by both stores): failed, never dialed, with the reason and the SMS decision the call
 * desk and the SMS backup would have recorded had they found the account suspended at the claim.
 * The claim reads each call's row again, so no node places them after this.
 */
export function endedBySuspension(account: Pick<Account, 'smsBackup' | 'status'>): {
  error: string;
  smsStatus: 'not_needed' | 'disabled';
} {
  const decision = decideSms('failed', account, true);
  return { error: reasonText('account_suspended'), smsStatus: decision === 'not_needed' ? 'not_needed' : 'disabled' };
}
