// The call history in PostgreSQL. An accept is one transaction that first locks the account's row:
// the accepts of one account wait for each other, on every node, so the limits stay exact; other
// accounts' accepts run beside them on the pool's other connections.
import { CALL_SQL } from '../sql/calls.js';
import { CHECKS_UNDER_LOCK, firstRefusalAwaiting, PASSED_BEFORE_LOCK } from '../../core/webhook/accept-rules.js';
import type { SmsAttempt } from '../../core/delivery/sms-truth.js';
import type { DedupeCheck, SmsStatus } from '../../core/records.js';
import { newCallId } from '../../core/ids.js';
import {
  BURST_WINDOW_MS,
  HOUR_MS,
  decideLimits,
  hasMonthlyAllowance,
  monthWindow,
  TEST_CALL_LIMITS,
  type Plan,
} from '../../core/webhook/limits.js';
import type { Alert } from '../../core/webhook/payload.js';
import type {
  AcceptResult,
  AlertToReceive,
  CallKind,
  CallRecord,
  HistoryPage,
  ReceivedAlert,
  RejectedAlert,
} from '../../core/records.js';
import type { PgAlertReceiver } from './receive.js';
import { limitRejection, MAX_REJECTIONS_KEPT, toRecord } from '../rows.js';
import type { CallRepo } from '../contract/index.js';
import { decideTestCall, testCallAlert } from '../test-calls.js';
import { SteppedAside } from '../unavailable.js';
import { query, type Queryable, type Sql } from './connect.js';
import { outboxInTransaction } from './progress.js';
import { acceptedColumns, alertDecisionColumns, duplicateRow, type NewCall, rejectionColumns } from '../rows.js';

type CallRow = Parameters<typeof toRecord>[0];

/** Rejected messages are stored shortened: they are kept to explain, not to be spoken (as in SQLite). */

const SQL = {
  ...CALL_SQL,
  lockAccount: 'SELECT user_id FROM accounts WHERE user_id = $1 FOR UPDATE',
  insert: `INSERT INTO calls (call_id, user_id, kind, accepted, status, message, message_truncated, ticker, price, action,
                              strategy, alert_timestamp, extra, error, received_at, updated_at, accepted_by, expires_in, dial_to,
                              decision_keys, idempotency_key)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15, $16, $17, $18, $19, $20)`,
  listForAccountByStatus: `SELECT * FROM calls WHERE user_id = $1 AND id < $2 AND status IN (SELECT jsonb_array_elements_text($4::text::jsonb))
                           ORDER BY id DESC LIMIT $3`,
} as const;

export class PgCallStore implements CallRepo {
  constructor(
    private readonly sql: Sql,
    /** The node that accepts (its dialer places the call); null for the CLI: any node may. */
    private readonly nodeId: string | null,
    private readonly now: () => number = Date.now,
    /** Why this node takes no alerts now (a schema newer than its code can work on), or null. */
    private readonly steppedAside: () => string | null = () => null,
    /** The webhook's one round trip (migration 012's function); the step-by-step methods without it. */
    private readonly receiver?: PgAlertReceiver,
  ) {}

  async receiveAlert(request: AlertToReceive): Promise<ReceivedAlert> {
    this.refuseIfSteppedAside();
    if (!this.receiver) throw new Error('this PostgreSQL call store receives no webhook alerts');
    return this.receiver.receive(request);
  }

  private refuseIfSteppedAside(): void {
    const why = this.steppedAside();
    if (why !== null) throw new SteppedAside(why);
  }

  /** One transaction per alert, committed before it resolves (no batching: the pool gives the concurrency). */
  async accept(
    userId: string,
    plan: Plan,
    alert: Alert,
    dedupe?: DedupeCheck,
    callbacks?: boolean,
  ): Promise<AcceptResult> {
    this.refuseIfSteppedAside();
    return this.sql.begin(async (tx): Promise<AcceptResult> => {
      await query(tx, SQL.lockAccount, [userId]);
      // Read after the lock: the times of one account's accepts follow the order they commit in.
      const now = this.now();
      const month = monthWindow(now);
      let recent: number[] = [];
      // Under the account's lock, on every node, the checks in core's order (core/webhook/accept-rules):
      // of two identical alerts, exactly one becomes a call.
      const refusal = await firstRefusalAwaiting(
        {
          ...PASSED_BEFORE_LOCK,
          duplicateOf: async () =>
            dedupe &&
            (await query<{ call_id: string }>(tx, SQL.firstWithKey, [userId, dedupe.key, dedupe.since]))[0]?.call_id,
          limits: async () => {
            // Sent together (pipelined on the transaction's connection): one round trip, not two. An
            // unlimited plan's usage decides nothing, so it is not read (as in SQLite).
            const [used, times] = await Promise.all([
              hasMonthlyAllowance(plan) ? this.usedInMonth(tx, userId, month.key) : 0,
              this.recentAcceptedTimes(tx, userId, 'alert', now - BURST_WINDOW_MS, 10),
            ]);
            recent = times;
            return decideLimits(plan, now, used, recent);
          },
        },
        CHECKS_UNDER_LOCK,
      );
      if (refusal?.outcome === 'duplicate') {
        const rowId = newCallId();
        await this.insertRejection(tx, now, duplicateRow(userId, alert, refusal.firstCallId, rowId));
        return { accepted: true, duplicate: true, callId: refusal.firstCallId, rowId, receivedAt: now };
      }
      if (refusal?.outcome === 'refused') {
        const rejectionId = newCallId();
        await this.insertRejection(tx, now, limitRejection(userId, alert, refusal.decision, rejectionId));
        return { accepted: false, decision: refusal.decision, callId: rejectionId };
      }
      const callId = newCallId();
      await Promise.all([
        this.insertCall(tx, now, { callId, userId, kind: 'alert', alert }),
        query(tx, SQL.countUsage, [userId, month.key]),
      ]);
      if (dedupe) await query(tx, SQL.setDedupeKey, [dedupe.key, callId]);
      // Its call.queued status callback in the same transaction (#58), unless the account has no callback URL.
      const outboxed = callbacks !== false && (await outboxInTransaction(tx, callId, 'queued', now)) > 0;
      return { accepted: true, callId, receivedAt: now, ...(outboxed && { outboxed }) };
    });
  }

  async recordRejection(rejected: RejectedAlert): Promise<void> {
    await this.sql.begin(async (tx) => {
      // The trim counts the account's rejections: one at a time per account.
      await query(tx, SQL.lockAccount, [rejected.userId]);
      await this.insertRejection(tx, this.now(), rejected);
    });
  }

  /** A test call: no monthly allowance, small limits of its own (per minute and per hour). */
  async acceptTestCall(
    userId: string,
    message: string,
    perMinute: number = TEST_CALL_LIMITS.perMinute,
    perHour: number = TEST_CALL_LIMITS.perHour,
    dialTo?: string,
  ): Promise<AcceptResult> {
    this.refuseIfSteppedAside();
    return this.sql.begin(async (tx): Promise<AcceptResult> => {
      await query(tx, SQL.lockAccount, [userId]);
      const now = this.now();
      // Sent together (pipelined on the transaction's connection): one round trip, not two.
      const [lastMinute, lastHour] = await Promise.all([
        this.recentAcceptedTimes(tx, userId, 'test', now - BURST_WINDOW_MS, perMinute),
        this.recentAcceptedTimes(tx, userId, 'test', now - HOUR_MS, perHour),
      ]);
      const decision = decideTestCall(now, { perMinute, perHour }, lastMinute, lastHour);
      if (!decision.allowed) return { accepted: false, decision };
      const callId = newCallId();
      const alert = testCallAlert(message);
      await this.insertCall(tx, now, { callId, userId, kind: 'test', alert, dialTo });
      // Its call.queued status callback with it (#55), as an alert's.
      const outboxed = (await outboxInTransaction(tx, callId, 'queued', now)) > 0;
      return { accepted: true, callId, receivedAt: now, ...(outboxed && { outboxed }) };
    });
  }

  private async usedInMonth(db: Queryable, userId: string, monthKey: string): Promise<number> {
    const [row] = await query<{ calls: number }>(db, SQL.usedThisMonth, [userId, monthKey]);
    return row?.calls ?? 0;
  }

  private async recentAcceptedTimes(
    db: Queryable,
    userId: string,
    kind: CallKind,
    after: number,
    atMost: number,
  ): Promise<number[]> {
    return (await query<{ received_at: number }>(db, SQL.recentAccepted, [userId, kind, after, atMost])).map(
      (r) => r.received_at,
    );
  }

  private async insertCall(db: Queryable, now: number, call: NewCall): Promise<void> {
    await query(db, SQL.insert, [
      call.callId,
      ...Object.values(acceptedColumns(call)),
      now,
      this.nodeId,
      call.alert.expiresIn ?? null,
      call.dialTo ?? null,
      ...Object.values(alertDecisionColumns(call.alert)),
    ]);
  }

  private async insertRejection(db: Queryable, now: number, rejected: RejectedAlert): Promise<void> {
    await query(db, SQL.insert, [
      rejected.callId ?? newCallId(),
      ...Object.values(rejectionColumns(rejected)),
      now,
      this.nodeId,
      null,
      null,
      null,
      null,
    ]);
    await query(db, SQL.trimRejections, [rejected.userId, MAX_REJECTIONS_KEPT]);
  }

  async usage(userId: string, now = this.now()): Promise<{ month: string; used: number; resetsAt: number }> {
    const month = monthWindow(now);
    return { month: month.key, used: await this.usedInMonth(this.sql, userId, month.key), resetsAt: month.resetsAt };
  }

  async get(callId: string): Promise<CallRecord | undefined> {
    const [row] = await query<CallRow>(this.sql, SQL.get, [callId]);
    return row ? toRecord(row) : undefined;
  }

  /** One page of an account's history, newest first; `before` is the cursor of the previous page. */
  async page(
    userId: string,
    options: { before?: number | undefined; limit: number; statuses?: readonly string[] },
  ): Promise<HistoryPage> {
    const params = [userId, options.before ?? Number.MAX_SAFE_INTEGER, options.limit + 1];
    const rows =
      options.statuses && options.statuses.length > 0
        ? await query<CallRow>(this.sql, SQL.listForAccountByStatus, [...params, JSON.stringify(options.statuses)])
        : await query<CallRow>(this.sql, SQL.listForAccount, params);
    const entries = rows.slice(0, options.limit).map(toRecord);
    return { entries, next: rows.length > options.limit ? entries[entries.length - 1]!.id : null };
  }

  /** One call of the account, or undefined: another account's call is never returned. */
  async getForAccount(userId: string, callId: string): Promise<CallRecord | undefined> {
    const [row] = await query<CallRow>(this.sql, SQL.getForAccount, [callId, userId]);
    return row ? toRecord(row) : undefined;
  }

  /** Newest first, at most 1000. */
  async list(options: { userId?: string; limit?: number } = {}): Promise<CallRecord[]> {
    const limit = Math.max(1, Math.min(options.limit ?? 50, 1000));
    const before = Number.MAX_SAFE_INTEGER;
    const rows = options.userId
      ? await query<CallRow>(this.sql, SQL.listForAccount, [options.userId, before, limit])
      : await query<CallRow>(this.sql, SQL.listAll, [before, limit]);
    return rows.map(toRecord);
  }

  /** The server's last SMS attempts, newest first (what the SMS backup switch may promise: core/delivery/sms-truth). */
  async recentSmsAttempts(limit: number): Promise<SmsAttempt[]> {
    const rows = await query<{ status: SmsStatus; error: string | null; at: number | string }>(
      this.sql,
      SQL.recentSms,
      [limit],
    );
    return rows.map((row) => ({ status: row.status, error: row.error, at: Number(row.at) }));
  }
}
