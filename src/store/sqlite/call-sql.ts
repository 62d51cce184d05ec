// The call history's statements SQLite has its own of: the insert of a row (an accepted alert or
// test call, or a refused alert), bound by position in its column order (no object of names per
// alert, #58), and the history filtered by status (SQLite's JSON).
import type { Alert } from '../../core/webhook/payload.js';
import type { CallKind, RejectedAlert } from '../../core/records.js';
import { alertColumns, alertDecisionColumns, rejectionColumns } from '../rows.js';

export const INSERT_CALL = `INSERT INTO calls (call_id, user_id, kind, accepted, status, message, message_truncated, ticker, price,
                              action, strategy, alert_timestamp, extra, error, received_at, updated_at, expires_in,
                              dial_to, decision_keys, idempotency_key)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

export const LIST_BY_STATUS = `SELECT * FROM calls WHERE user_id = @user_id AND id < @before
           AND status IN (SELECT value FROM json_each(@statuses)) ORDER BY id DESC LIMIT @limit`;

/** An accepted call's values (`dialTo`: a test call's number other than the account's). */
export function acceptedCallValues(
  now: number,
  callId: string,
  userId: string,
  kind: CallKind,
  alert: Alert,
  dialTo: string | null,
): unknown[] {
  const c = alertColumns(alert);
  const d = alertDecisionColumns(alert);
  const text = [c.message, c.message_truncated, c.ticker, c.price, c.action, c.strategy, c.alert_timestamp, c.extra];
  const call = [alert.expiresIn ?? null, dialTo, d.decision_keys, d.idempotency_key];
  return [callId, userId, kind, 1, 'queued', ...text, null, now, now, ...call];
}

/** A refused alert's values. */
export function rejectionValues(now: number, callId: string, rejected: RejectedAlert): unknown[] {
  const r = rejectionColumns(rejected);
  const text = [r.message, r.message_truncated, r.ticker, r.price, r.action, r.strategy, r.alert_timestamp, r.extra];
  return [callId, r.user_id, r.kind, r.accepted, r.status, ...text, r.error, now, now, null, null, null, null];
}
