// The call history as the dashboard reads it: one account's calls and rejections, newest first,
// paged by a cursor (the row id), optionally filtered by status; with what the dialer and the SMS
// backup recorded on each call.
import type { Db } from './database.js';

export interface HistoryEntry {
  /** The cursor of this row: pages continue below it. */
  id: number;
  callId: string;
  userId: string;
  kind: 'alert' | 'test';
  accepted: boolean;
  status: string;
  message: string;
  messageTruncated: boolean;
  ticker: string | null;
  price: number | null;
  action: string | null;
  strategy: string | null;
  alertTimestamp: string | null;
  extra: Record<string, unknown>;
  error: string | null;
  receivedAt: number;
  updatedAt: number;
  ringMs: number | null;
  talkMs: number | null;
  hangupCauseText: string | null;
  smsStatus: string | null;
  smsError: string | null;
  smsParts: number | null;
  smsAt: number | null;
}

interface Row {
  id: number;
  call_id: string;
  user_id: string;
  kind: 'alert' | 'test';
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
  received_at: number;
  updated_at: number;
  ring_ms: number | null;
  talk_ms: number | null;
  hangup_cause_text: string | null;
  sms_status: string | null;
  sms_error: string | null;
  sms_parts: number | null;
  sms_at: number | null;
}

const COLUMNS = `id, call_id, user_id, kind, accepted, status, message, message_truncated, ticker, price, action, strategy,
                 alert_timestamp, extra, error, received_at, updated_at, ring_ms, talk_ms, hangup_cause_text,
                 sms_status, sms_error, sms_parts, sms_at`;

const SQL = {
  page: `SELECT ${COLUMNS} FROM calls WHERE user_id = @user_id AND id < @before ORDER BY id DESC LIMIT @limit`,
  pageByStatus: `SELECT ${COLUMNS} FROM calls WHERE user_id = @user_id AND id < @before
                   AND status IN (SELECT value FROM json_each(@statuses))
                 ORDER BY id DESC LIMIT @limit`,
  one: `SELECT ${COLUMNS} FROM calls WHERE call_id = @call_id AND user_id = @user_id`,
} as const;

function parseExtra(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    // Rejections keep at most 4000 characters of the extra fields: the JSON may be cut.
    return { extra: text };
  }
}

function toEntry(row: Row): HistoryEntry {
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
    receivedAt: row.received_at,
    updatedAt: row.updated_at,
    ringMs: row.ring_ms,
    talkMs: row.talk_ms,
    hangupCauseText: row.hangup_cause_text,
    smsStatus: row.sms_status,
    smsError: row.sms_error,
    smsParts: row.sms_parts,
    smsAt: row.sms_at,
  };
}

export interface HistoryPage {
  entries: HistoryEntry[];
  /** The cursor of the next (older) page, or null on the last page. */
  next: number | null;
}

export class CallHistory {
  private readonly stmt;

  constructor(db: Db) {
    this.stmt = {
      page: db.prepare<{ user_id: string; before: number; limit: number }, Row>(SQL.page),
      pageByStatus: db.prepare<{ user_id: string; before: number; limit: number; statuses: string }, Row>(SQL.pageByStatus),
      one: db.prepare<{ call_id: string; user_id: string }, Row>(SQL.one),
    };
  }

  /** Newest first; `before` is the cursor from the previous page; `statuses` empty = every status. */
  page(userId: string, options: { before?: number | undefined; limit: number; statuses?: readonly string[] }): HistoryPage {
    const params = { user_id: userId, before: options.before ?? Number.MAX_SAFE_INTEGER, limit: options.limit + 1 };
    const rows = options.statuses && options.statuses.length > 0
      ? this.stmt.pageByStatus.all({ ...params, statuses: JSON.stringify(options.statuses) })
      : this.stmt.page.all(params);
    const entries = rows.slice(0, options.limit).map(toEntry);
    return { entries, next: rows.length > options.limit ? entries[entries.length - 1]!.id : null };
  }

  /** One entry of the account, or undefined: another account's call is never returned. */
  get(userId: string, callId: string): HistoryEntry | undefined {
    const row = this.stmt.one.get({ call_id: callId, user_id: userId });
    return row ? toEntry(row) : undefined;
  }
}
