// The call history: accepted alerts (which become calls) and rejected ones, and the monthly usage
// counters. Accepting an alert is one IMMEDIATE transaction: limits are checked and the call and its
// usage are written together, so limits stay exact under concurrency and across processes.
import type { Alert } from '../../core/payload.js';
import { newCallId } from '../../core/ids.js';
import {
  BURST_WINDOW_MS,
  TEST_CALL_LIMITS,
  decideBurst,
  decideLimits,
  hasMonthlyAllowance,
  monthWindow,
  type LimitDecision,
  type Plan,
} from '../../core/limits.js';
import { withBusyTimeout, type Db } from './database.js';

export type CallKind = 'alert' | 'test';

/** Statuses of rejected alerts, shown in the history beside the call statuses. */
export type RejectionStatus = 'rate_limited' | 'limit_exceeded' | 'invalid_payload' | 'suspended';

export interface CallRecord {
  /** The row id: the cursor for paging (pages continue below it). */
  id: number;
  callId: string;
  userId: string;
  kind: CallKind;
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
  /** Why the call did not reach its person, as a sentence (a rejected alert: what was wrong with it). */
  error: string | null;
  /** The technical detail behind `error` (the SIP code and cause, Asterisk's answer), for the admin. */
  reasonDetail: string | null;
  receivedAt: number;
  updatedAt: number;
  /** What the dialer and the SMS backup recorded (null until they did). */
  phone: string | null;
  dialedAt: number | null;
  answeredAt: number | null;
  endedAt: number | null;
  ringMs: number | null;
  talkMs: number | null;
  hangupCause: number | null;
  hangupCauseText: string | null;
  sipCode: number | null;
  smsStatus: string | null;
  smsMessageId: string | null;
  smsParts: number | null;
  smsAt: number | null;
  smsError: string | null;
  /** The alert waited for its phone's line and was spoken in the call of this alert. */
  carriedBy: string | null;
  /** Answering-machine detection's verdict and cause (HUMAN, MACHINE, NOTSURE). */
  amdStatus: string | null;
  amdCause: string | null;
  /** The trunk the call went out through (trunk, or trunk2 the backup). */
  trunk: string | null;
}

/** One page of an account's history, newest first. */
export interface HistoryPage {
  entries: CallRecord[];
  /** The cursor of the next (older) page, or null on the last page. */
  next: number | null;
}

interface CallRow {
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
}

/**
 * How long the webhook's writes wait for another connection's write lock (the CLI, a backup)
 * before giving up with SQLITE_BUSY. better-sqlite3 waits synchronously, blocking the event loop,
 * so this is kept well inside the sender's budget (TradingView gives up after 3 s): a request may
 * wait for the commit in progress and its own, about twice this. Other writers keep the
 * connection's default (5 s).
 */
export const WEBHOOK_BUSY_TIMEOUT_MS = 1000;

/** A refused alert's extra fields, kept only while small: never cut into invalid JSON. */
function rejectedExtra(extra: Record<string, unknown>): string {
  const text = JSON.stringify(extra);
  return text.length <= 4000 ? text : JSON.stringify({ note: `${Object.keys(extra).length} extra fields, too large to keep for a refused alert` });
}

/** How many rejected alerts an account keeps: a flood of bad requests cannot fill the disk. */
export const MAX_REJECTIONS_KEPT = 1000;
/** Rejected messages are stored shortened: they are kept to explain, not to be spoken. */
const REJECTED_MESSAGE_MAX = 200;

const SQL = {
  insert: `INSERT INTO calls (call_id, user_id, kind, accepted, status, message, message_truncated, ticker, price, action,
                              strategy, alert_timestamp, extra, error, received_at, updated_at)
           VALUES (@call_id, @user_id, @kind, @accepted, @status, @message, @message_truncated, @ticker, @price, @action,
                   @strategy, @alert_timestamp, @extra, @error, @now, @now)`,
  usedThisMonth: 'SELECT calls FROM usage WHERE user_id = ? AND month = ?',
  countUsage: `INSERT INTO usage (user_id, month, calls) VALUES (?, ?, 1)
               ON CONFLICT (user_id, month) DO UPDATE SET calls = calls + 1`,
  recentAccepted: `SELECT received_at FROM calls WHERE user_id = ? AND accepted = 1 AND kind = ? AND received_at > ?
                   ORDER BY received_at DESC LIMIT ?`,
  trimRejections: `DELETE FROM calls WHERE user_id = @user_id AND accepted = 0 AND id <= (
                     SELECT id FROM calls WHERE user_id = @user_id AND accepted = 0 ORDER BY id DESC LIMIT 1 OFFSET @keep)`,
  get: 'SELECT * FROM calls WHERE call_id = ?',
  listAll: 'SELECT * FROM calls WHERE id < @before ORDER BY id DESC LIMIT @limit',
  listForAccount: 'SELECT * FROM calls WHERE user_id = @user_id AND id < @before ORDER BY id DESC LIMIT @limit',
  listForAccountByStatus: `SELECT * FROM calls WHERE user_id = @user_id AND id < @before AND status IN (SELECT value FROM json_each(@statuses))
                           ORDER BY id DESC LIMIT @limit`,
  getForAccount: 'SELECT * FROM calls WHERE call_id = ? AND user_id = ?',
} as const;

function parseExtra(text: string | null): Record<string, unknown> {
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
  };
}

export type AcceptResult = { accepted: true; callId: string; receivedAt: number } | { accepted: false; decision: Exclude<LimitDecision, { allowed: true }> };

export interface RejectedAlert {
  userId: string;
  status: RejectionStatus;
  error: string;
  /** The alert when it could be parsed; otherwise a short excerpt of the body. */
  alert?: Alert;
  excerpt?: string;
}

/** The history entry of an alert refused by a plan limit. */
export function limitRejection(userId: string, alert: Alert, decision: Exclude<LimitDecision, { allowed: true }>): RejectedAlert {
  const monthly = decision.limit === 'monthly';
  return {
    userId,
    alert,
    status: monthly ? 'limit_exceeded' : 'rate_limited',
    error: monthly ? 'monthly call limit exceeded' : 'per-minute call limit exceeded',
  };
}

/** What a write of the group commit gives back: an accept's result, or null for a recorded rejection. */
type GroupResult = AcceptResult | null;

/** A write waiting for the next group commit; `write` runs inside it, in a savepoint of its own. */
interface PendingWrite {
  write: () => GroupResult;
  resolve: (result: GroupResult) => void;
  reject: (error: unknown) => void;
}

export class CallStore {
  private readonly stmt;
  readonly accept: (userId: string, plan: Plan, alert: Alert) => AcceptResult;
  private readonly acceptTx: (userId: string, plan: Plan, alert: Alert) => AcceptResult;
  private readonly rejectTx: (rejected: RejectedAlert) => null;
  private readonly writeMany: (jobs: PendingWrite[]) => Array<GroupResult | { error: unknown }>;
  private pending: PendingWrite[] = [];

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.stmt = {
      insert: db.prepare(SQL.insert),
      usedThisMonth: db.prepare<[string, string], { calls: number }>(SQL.usedThisMonth),
      countUsage: db.prepare(SQL.countUsage),
      recentAccepted: db.prepare<[string, CallKind, number, number], { received_at: number }>(SQL.recentAccepted),
      trimRejections: db.prepare(SQL.trimRejections),
      get: db.prepare<[string], CallRow>(SQL.get),
      listAll: db.prepare<{ before: number; limit: number }, CallRow>(SQL.listAll),
      listForAccount: db.prepare<{ user_id: string; before: number; limit: number }, CallRow>(SQL.listForAccount),
      listForAccountByStatus: db.prepare<{ user_id: string; before: number; limit: number; statuses: string }, CallRow>(SQL.listForAccountByStatus),
      getForAccount: db.prepare<[string, string], CallRow>(SQL.getForAccount),
    };
    const acceptTx = db.transaction((userId: string, plan: Plan, alert: Alert): AcceptResult => {
      const now = this.now();
      const month = monthWindow(now);
      // An unlimited plan's usage is only counted, never read: one statement less per alert.
      const used = hasMonthlyAllowance(plan) ? this.usedInMonth(userId, month.key) : 0;
      const recent = this.recentAcceptedTimes(userId, 'alert', now, 10);
      const decision = decideLimits(plan, now, used, recent);
      if (!decision.allowed) {
        this.insertRejection(now, limitRejection(userId, alert, decision));
        return { accepted: false, decision };
      }
      const callId = newCallId();
      this.insertCall(now, callId, userId, 'alert', alert);
      this.stmt.countUsage.run(userId, month.key);
      return { accepted: true, callId, receivedAt: now };
    });
    this.accept = (userId, plan, alert) => acceptTx.immediate(userId, plan, alert);
    this.acceptTx = acceptTx;
    this.rejectTx = db.transaction((rejected: RejectedAlert) => {
      this.insertRejection(this.now(), rejected);
      return null;
    });
    // Nested inside the outer transaction, each write becomes a savepoint: still exact, one commit.
    const manyTx = db.transaction((jobs: PendingWrite[]) =>
      jobs.map((j) => {
        try {
          return j.write();
        } catch (error) {
          return { error };
        }
      }),
    );
    this.writeMany = (jobs) => withBusyTimeout(this.db, WEBHOOK_BUSY_TIMEOUT_MS, () => manyTx.immediate(jobs));
  }

  /**
   * Group commit: the alerts that arrive while the disk is busy with one commit are written
   * together in the next, so a durable write (fsync) is shared instead of paid per alert. Each
   * caller gets its answer only after its alert is on disk; if the commit fails, none was written.
   */
  acceptGrouped(userId: string, plan: Plan, alert: Alert): Promise<AcceptResult> {
    return this.grouped(() => this.acceptTx(userId, plan, alert)) as Promise<AcceptResult>;
  }

  /** recordRejection in the next group commit: a flood of refused requests shares the fsync too. */
  async recordRejectionGrouped(rejected: RejectedAlert): Promise<void> {
    await this.grouped(() => this.rejectTx(rejected));
  }

  private grouped(write: () => GroupResult): Promise<GroupResult> {
    return new Promise((resolve, reject) => {
      this.pending.push({ write, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flushPending());
    });
  }

  private flushPending(): void {
    const jobs = this.pending;
    this.pending = [];
    let results: Array<GroupResult | { error: unknown }>;
    try {
      results = this.writeMany(jobs);
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, i) => {
      const result = results[i]!;
      if (result && 'error' in result) job.reject(result.error);
      else job.resolve(result);
    });
  }

  private usedInMonth(userId: string, monthKey: string): number {
    return this.stmt.usedThisMonth.get(userId, monthKey)?.calls ?? 0;
  }

  private recentAcceptedTimes(userId: string, kind: CallKind, now: number, atMost: number): number[] {
    return this.stmt.recentAccepted.all(userId, kind, now - BURST_WINDOW_MS, atMost).map((r) => r.received_at);
  }

  private insertCall(now: number, callId: string, userId: string, kind: CallKind, alert: Alert): void {
    this.stmt.insert.run({
      call_id: callId,
      user_id: userId,
      kind,
      accepted: 1,
      status: 'queued',
      message: alert.message,
      message_truncated: alert.truncated ? 1 : 0,
      ticker: alert.fields.ticker ?? null,
      price: alert.fields.price ?? null,
      action: alert.fields.action ?? null,
      strategy: alert.fields.strategy ?? null,
      alert_timestamp: alert.fields.timestamp ?? null,
      extra: Object.keys(alert.extra).length > 0 ? JSON.stringify(alert.extra) : null,
      error: null,
      now,
    });
  }

  private insertRejection(now: number, rejected: RejectedAlert): void {
    const alert = rejected.alert;
    const message = alert?.message ?? rejected.excerpt ?? '';
    this.stmt.insert.run({
      call_id: newCallId(),
      user_id: rejected.userId,
      kind: 'alert',
      accepted: 0,
      status: rejected.status,
      message: Array.from(message).slice(0, REJECTED_MESSAGE_MAX).join(''),
      message_truncated: alert?.truncated || Array.from(message).length > REJECTED_MESSAGE_MAX ? 1 : 0,
      ticker: alert?.fields.ticker ?? null,
      price: alert?.fields.price ?? null,
      action: alert?.fields.action ?? null,
      strategy: alert?.fields.strategy ?? null,
      alert_timestamp: alert?.fields.timestamp ?? null,
      extra: alert && Object.keys(alert.extra).length > 0 ? rejectedExtra(alert.extra) : null,
      error: rejected.error,
      now,
    });
    this.stmt.trimRejections.run({ user_id: rejected.userId, keep: MAX_REJECTIONS_KEPT });
  }

  /** Records an alert that was refused before the limits were looked at (bad payload, suspended account). */
  recordRejection(rejected: RejectedAlert): void {
    withBusyTimeout(this.db, WEBHOOK_BUSY_TIMEOUT_MS, () => this.db.transaction(() => this.insertRejection(this.now(), rejected)).immediate());
  }

  /** A test call: no monthly allowance, small limits of its own (per minute and per hour). */
  acceptTestCall(userId: string, message: string, perMinute: number = TEST_CALL_LIMITS.perMinute, perHour: number = TEST_CALL_LIMITS.perHour): AcceptResult {
    return this.db
      .transaction((): AcceptResult => {
        const now = this.now();
        const decision = decideBurst(perMinute, now, this.recentAcceptedTimes(userId, 'test', now, perMinute));
        if (!decision.allowed) return { accepted: false, decision };
        const lastHour = this.stmt.recentAccepted.all(userId, 'test', now - 3_600_000, perHour).map((r) => r.received_at);
        const hourly = decideBurst(perHour, now, lastHour, 3_600_000);
        if (!hourly.allowed) return { accepted: false, decision: hourly };
        const callId = newCallId();
        const alert: Alert = { form: 'text', message, truncated: false, originalLength: message.length, fields: {}, extra: {} };
        this.insertCall(now, callId, userId, 'test', alert);
        return { accepted: true, callId, receivedAt: now };
      })
      .immediate();
  }

  usage(userId: string, now = this.now()): { month: string; used: number; resetsAt: number } {
    const month = monthWindow(now);
    return { month: month.key, used: this.usedInMonth(userId, month.key), resetsAt: month.resetsAt };
  }

  get(callId: string): CallRecord | undefined {
    const row = this.stmt.get.get(callId);
    return row ? toRecord(row) : undefined;
  }

  /** One page of an account's history, newest first; `before` is the cursor of the previous page. */
  page(userId: string, options: { before?: number | undefined; limit: number; statuses?: readonly string[] }): HistoryPage {
    const params = { user_id: userId, before: options.before ?? Number.MAX_SAFE_INTEGER, limit: options.limit + 1 };
    const rows =
      options.statuses && options.statuses.length > 0
        ? this.stmt.listForAccountByStatus.all({ ...params, statuses: JSON.stringify(options.statuses) })
        : this.stmt.listForAccount.all(params);
    const entries = rows.slice(0, options.limit).map(toRecord);
    return { entries, next: rows.length > options.limit ? entries[entries.length - 1]!.id : null };
  }

  /** One call of the account, or undefined: another account's call is never returned. */
  getForAccount(userId: string, callId: string): CallRecord | undefined {
    const row = this.stmt.getForAccount.get(callId, userId);
    return row ? toRecord(row) : undefined;
  }

  /** Newest first, at most 1000. */
  list(options: { userId?: string; limit?: number } = {}): CallRecord[] {
    const limit = Math.max(1, Math.min(options.limit ?? 50, 1000));
    const before = Number.MAX_SAFE_INTEGER;
    const rows = options.userId ? this.stmt.listForAccount.all({ user_id: options.userId, before, limit }) : this.stmt.listAll.all({ before, limit });
    return rows.map(toRecord);
  }
}
