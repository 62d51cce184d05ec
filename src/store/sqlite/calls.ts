// The call history: accepted alerts (which become calls) and rejected ones, and the monthly usage
// counters. Accepting an alert is one IMMEDIATE transaction: limits are checked and the call and its
// usage are written together, so limits stay exact under concurrency and across processes.
import { CALL_SQL } from '../sql/calls.js';
import { positional } from './named.js';
import { CHECKS_UNDER_LOCK, firstRefusal, PASSED_BEFORE_LOCK } from '../../core/webhook/accept-rules.js';
import type { SmsAttempt } from '../../core/delivery/sms-truth.js';
import type { Alert } from '../../core/webhook/payload.js';
import { newCallId } from '../../core/ids.js';
import {
  BURST_WINDOW_MS,
  HOUR_MS,
  TEST_CALL_LIMITS,
  decideLimits,
  hasMonthlyAllowance,
  monthWindow,
  type Plan,
} from '../../core/webhook/limits.js';
import { withBusyTimeout, type Db } from './connect.js';
import { outboxInTransaction } from './progress.js';
import { KnownAccepts, LOCK_WAIT_MS } from '../../core/webhook/group-commit.js';
import { GroupQueue, type QueuedWrite } from './group-queue.js';
import type { OwnAccepts } from '../../core/webhook/own-accepts.js';
import { ownAcceptsOf } from './own-accepts.js';
import type {
  AcceptResult,
  CallKind,
  CallRecord,
  DedupeCheck,
  HistoryPage,
  RejectedAlert,
} from '../../core/records.js';
import { duplicateRow, limitRejection, toRecord, type CallRow } from '../rows.js';
import { SqliteRejectionTrims } from './kept-rejections.js';
import { acceptedCallValues, INSERT_CALL, LIST_BY_STATUS, rejectionValues } from './call-sql.js';
import type { CallRepo } from '../contract/index.js';
import type { Logger } from '../../lib/log.js';
import { decideTestCall, testCallAlert } from '../test-calls.js';

const SQL = { ...CALL_SQL, listForAccountByStatus: LIST_BY_STATUS } as const;

/** What a write of the group commit gives back: an accept's result, or null for a recorded rejection. */
type GroupResult = AcceptResult | null;

/** A write waiting for the next group commit; `write` runs inside it, in a savepoint of its own. */
interface PendingWrite extends QueuedWrite {
  write: () => GroupResult;
  /** An accept's account: its accepted time is noted once committed. */
  accepting?: string;
  resolve: (result: GroupResult) => void;
}

/** An accept in a transaction of its own (`callbacks`: whether the account has a callback URL, as read with it). */
type AcceptNow = (userId: string, plan: Plan, alert: Alert, dedupe?: DedupeCheck, callbacks?: boolean) => AcceptResult;

export class SqliteCallStore implements CallRepo {
  private readonly stmt;
  /** An accept in a transaction of its own, answered at once (tools and tests; serve groups them: accept). */
  readonly acceptNow: AcceptNow;
  private readonly acceptTx: AcceptNow;
  private readonly rejectTx: (rejected: RejectedAlert) => null;
  private readonly writeMany: (jobs: PendingWrite[], tryMs: number) => Array<GroupResult | { error: unknown }>;
  private readonly queue = new GroupQueue<PendingWrite>((jobs, tryMs) => this.commitGroup(jobs, tryMs));
  /** This process's committed accepts: a burst refusal is decided from them without a commit. */
  private readonly known = new KnownAccepts();
  /**
   * Accept times read inside the transaction in progress: they may include alerts of the same
   * transaction, so they are learnt only once it committed.
   */
  private readAccepts: Array<[string, number[]]> = [];
  private readonly trims: SqliteRejectionTrims;
  /** This connection's committed accepts: while they are all the database's, the limit is decided without a read. */
  private readonly own: OwnAccepts;
  /** The accepts of the group in progress, not yet committed (null outside a group). */
  private groupAccepts: Map<string, number[]> | null = null;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
    /** Told of a refusal's row that could not be written after its answer was given. */
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {
    this.stmt = {
      insert: db.prepare<unknown[]>(INSERT_CALL),
      usedThisMonth: positional<{ calls: number }>(db, SQL.usedThisMonth),
      countUsage: positional(db, SQL.countUsage),
      recentAccepted: positional<{ received_at: number }>(db, SQL.recentAccepted),
      get: positional<CallRow>(db, SQL.get),
      firstWithKey: positional<{ call_id: string }>(db, SQL.firstWithKey),
      setDedupeKey: positional(db, SQL.setDedupeKey),
      listAll: positional<CallRow>(db, SQL.listAll),
      recentSms: positional<SmsAttempt>(db, SQL.recentSms),
      listForAccount: positional<CallRow>(db, SQL.listForAccount),
      listForAccountByStatus: db.prepare<{ user_id: string; before: number; limit: number; statuses: string }, CallRow>(
        SQL.listForAccountByStatus,
      ),
      getForAccount: positional<CallRow>(db, SQL.getForAccount),
      othersCommits: db.prepare<[], number>('PRAGMA data_version').pluck(),
      // Every account's accepts since `since`, one look-up of calls_recent_accepted an account
      // (CROSS JOIN keeps that order: the planner would otherwise scan the whole history).
      windowAccepts: db
        .prepare<[number], [string, number]>(`SELECT c.user_id, c.received_at FROM accounts a
          CROSS JOIN calls c ON c.user_id = a.user_id AND c.accepted = 1 AND c.received_at > ? WHERE c.kind = 'alert'`)
        .raw(),
    };
    this.own = ownAcceptsOf(db);
    this.trims = new SqliteRejectionTrims(db);
    const acceptTx = db.transaction((...args: Parameters<AcceptNow>) => this.acceptUnderLock(...args));
    this.acceptTx = acceptTx;
    this.acceptNow = (...args) => {
      try {
        const result = this.trims.transaction(() => acceptTx.immediate(...args));
        this.learnReadAccepts();
        if (result.accepted && !('duplicate' in result)) this.own.note(args[0], result.receivedAt);
        return result;
      } finally {
        this.readAccepts = [];
      }
    };
    this.rejectTx = db.transaction((rejected: RejectedAlert) => {
      this.insertRejection(this.now(), rejected);
      return null;
    });
    this.writeMany = this.groupWriter(db);
  }

  /** An accept's checks under the write lock and its writes (in its own transaction, or a savepoint of a group's). */
  private acceptUnderLock(...[userId, plan, alert, dedupe, callbacks]: Parameters<AcceptNow>): AcceptResult {
    const now = this.now();
    const month = monthWindow(now);
    let recent: number[] = [];
    // In the accept's own write transaction, the checks under the lock in core's order
    // (core/webhook/accept-rules): of two identical alerts, exactly one becomes a call.
    const refusal = firstRefusal(
      {
        ...PASSED_BEFORE_LOCK,
        duplicateOf: () => (dedupe && this.stmt.firstWithKey.get(userId, dedupe.key, dedupe.since))?.call_id,
        limits: () => {
          // An unlimited plan's usage is only counted, never read: one statement less per alert.
          const monthly = hasMonthlyAllowance(plan);
          const used = monthly ? this.usedInMonth(userId, month.key) : 0;
          recent =
            (!monthly && this.acceptedInWindow(userId, now)) || this.recentAcceptedTimes(userId, 'alert', now, 10);
          return decideLimits(plan, now, used, recent);
        },
      },
      CHECKS_UNDER_LOCK,
    );
    if (refusal?.outcome === 'duplicate') {
      const rowId = newCallId();
      this.insertRejection(now, duplicateRow(userId, alert, refusal.firstCallId, rowId));
      return { accepted: true, duplicate: true, callId: refusal.firstCallId, rowId, receivedAt: now };
    }
    if (refusal?.outcome === 'refused') {
      const { decision } = refusal;
      if (decision.limit === 'burst') this.readAccepts.push([userId, recent]);
      const rejectionId = newCallId();
      this.insertRejection(now, limitRejection(userId, alert, decision, rejectionId));
      return { accepted: false, decision, callId: rejectionId };
    }
    const callId = newCallId();
    this.insertCall(now, callId, userId, 'alert', alert);
    if (dedupe) this.stmt.setDedupeKey.run(dedupe.key, callId);
    this.stmt.countUsage.run(userId, month.key);
    // Its call.queued status callback in the same transaction (#55, #58): on disk with the call or not at all.
    const outboxed = outboxInTransaction(this.db, callId, 'queued', callbacks, now) > 0;
    const inGroup = this.groupAccepts?.get(userId);
    if (inGroup) inGroup.push(now);
    else this.groupAccepts?.set(userId, [now]);
    return { accepted: true, callId, receivedAt: now, ...(outboxed && { outboxed }) };
  }

  /** One transaction for a group's writes, each in a savepoint of its own; the refusals' trims once, at its end. */
  private groupWriter(db: Db): (jobs: PendingWrite[], tryMs: number) => Array<GroupResult | { error: unknown }> {
    // Nested inside the outer transaction, each write becomes a savepoint: still exact, one commit.
    const manyTx = db.transaction((jobs: PendingWrite[]) => {
      // Under the write lock: whether another connection committed since the last group (the first
      // group reads the window's accepts instead, once).
      const now = this.now();
      const othersCommits = this.stmt.othersCommits.get()!;
      if (this.own.seeded) this.own.observe(othersCommits, now);
      else this.own.seed(this.stmt.windowAccepts.all(now - BURST_WINDOW_MS), othersCommits, now);
      this.groupAccepts = new Map();
      try {
        return this.trims.inGroup(() =>
          jobs.map((j) => {
            try {
              return j.write();
            } catch (error) {
              return { error };
            }
          }),
        );
      } finally {
        this.groupAccepts = null;
      }
    });
    return (jobs, tryMs) => this.trims.transaction(() => withBusyTimeout(this.db, tryMs, () => manyTx.immediate(jobs)));
  }

  /**
   * Group commit: the alerts that arrive while the disk is busy with one commit are written
   * together in the next, so a durable write (fsync) is shared instead of paid per alert. Each
   * caller gets its answer only after its alert is on disk; if the commit fails, none was written.
   */
  accept(userId: string, plan: Plan, alert: Alert, dedupe?: DedupeCheck, callbacks?: boolean): Promise<AcceptResult> {
    // Over the minute's limit by this process's own accepts: refused without waiting for a commit.
    // Its history row still goes in the next group commit; nobody waits for it (a refusal promises
    // nothing to keep). A duplicate is looked for first, so an alert with a dedupe key goes the full way.
    const now = this.now();
    const decision = dedupe ? null : this.known.refusal(userId, plan, now);
    if (decision) {
      const callId = newCallId();
      this.grouped(() => {
        this.insertRejection(now, limitRejection(userId, alert, decision, callId));
        return null;
      }).catch((error: unknown) =>
        this.logger?.warn('a refused alert could not be kept in the history', { user_id: userId, error }),
      );
      return Promise.resolve({ accepted: false, decision, callId });
    }
    return this.grouped(() => this.acceptTx(userId, plan, alert, dedupe, callbacks), userId) as Promise<AcceptResult>;
  }

  /** recordRejectionNow in the next group commit: a flood of refused requests shares the fsync too. */
  async recordRejection(rejected: RejectedAlert): Promise<void> {
    await this.grouped(() => this.rejectTx(rejected));
  }

  private grouped(write: () => GroupResult, accepting?: string): Promise<GroupResult> {
    return new Promise((resolve, reject) => {
      this.queue.add({
        write,
        resolve,
        reject,
        askedAt: performance.now(),
        ...(accepting !== undefined && { accepting }),
      });
    });
  }

  /** One group in one transaction (the lock waited for at most `tryMs`); throws when none of it was written. */
  private commitGroup(jobs: PendingWrite[], tryMs: number): void {
    let results: Array<GroupResult | { error: unknown }>;
    try {
      results = this.writeMany(jobs, tryMs);
      jobs.forEach((job, i) => {
        const result = results[i]!;
        if (
          job.accepting !== undefined &&
          result &&
          'accepted' in result &&
          result.accepted &&
          !('duplicate' in result)
        ) {
          this.known.note(job.accepting, result.receivedAt);
          this.own.note(job.accepting, result.receivedAt);
        }
      });
      // After the notes: what was read replaces them (it already holds the group's accepts read before it).
      this.learnReadAccepts();
    } finally {
      this.readAccepts = [];
    }
    jobs.forEach((job, i) => {
      const result = results[i]!;
      if (result && 'error' in result) job.reject(result.error);
      else job.resolve(result);
    });
  }

  private learnReadAccepts(): void {
    for (const [userId, times] of this.readAccepts) this.known.learn(userId, times);
  }

  /** In a group: the account's accepts in the window when this connection's (committed, the group's so far) are all. */
  private acceptedInWindow(userId: string, now: number): number[] | null {
    if (!this.groupAccepts) return null;
    const committed = this.own.inWindow(userId, now);
    if (!committed) return null;
    const inGroup = this.groupAccepts.get(userId);
    return inGroup ? [...committed, ...inGroup] : committed;
  }

  private usedInMonth(userId: string, monthKey: string): number {
    return this.stmt.usedThisMonth.get(userId, monthKey)?.calls ?? 0;
  }

  private recentAcceptedTimes(userId: string, kind: CallKind, now: number, atMost: number): number[] {
    return this.stmt.recentAccepted.all(userId, kind, now - BURST_WINDOW_MS, atMost).map((r) => r.received_at);
  }

  private insertCall(
    now: number,
    callId: string,
    userId: string,
    kind: CallKind,
    alert: Alert,
    dialTo: string | null = null,
  ): void {
    this.stmt.insert.run(acceptedCallValues(now, callId, userId, kind, alert, dialTo));
  }

  private insertRejection(now: number, rejected: RejectedAlert): void {
    this.stmt.insert.run(rejectionValues(now, rejected.callId ?? newCallId(), rejected));
    this.trims.written(rejected.userId);
  }

  /** Records an alert that was refused before the limits were looked at (bad payload, suspended account). */
  recordRejectionNow(rejected: RejectedAlert): void {
    this.trims.transaction(() =>
      // Outside the group commit (group-queue.ts waits in short tries): as long, synchronously.
      withBusyTimeout(this.db, LOCK_WAIT_MS, () =>
        this.db.transaction(() => this.insertRejection(this.now(), rejected)).immediate(),
      ),
    );
  }

  /** A test call: no monthly allowance, small limits of its own (per minute and per hour). */
  acceptTestCall(
    userId: string,
    message: string,
    perMinute: number = TEST_CALL_LIMITS.perMinute,
    perHour: number = TEST_CALL_LIMITS.perHour,
    dialTo?: string,
  ): AcceptResult {
    return this.db
      .transaction((): AcceptResult => {
        const now = this.now();
        const lastHour = this.stmt.recentAccepted.all(userId, 'test', now - HOUR_MS, perHour).map((r) => r.received_at);
        const decision = decideTestCall(
          now,
          { perMinute, perHour },
          this.recentAcceptedTimes(userId, 'test', now, perMinute),
          lastHour,
        );
        if (!decision.allowed) return { accepted: false, decision };
        const callId = newCallId();
        const alert = testCallAlert(message);
        this.insertCall(now, callId, userId, 'test', alert, dialTo ?? null);
        // Its call.queued status callback with it (#55), as an alert's.
        const outboxed = outboxInTransaction(this.db, callId, 'queued', undefined, now) > 0;
        return { accepted: true, callId, receivedAt: now, ...(outboxed && { outboxed }) };
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
  page(
    userId: string,
    options: { before?: number | undefined; limit: number; statuses?: readonly string[] },
  ): HistoryPage {
    const params = { user_id: userId, before: options.before ?? Number.MAX_SAFE_INTEGER, limit: options.limit + 1 };
    const rows =
      options.statuses && options.statuses.length > 0
        ? this.stmt.listForAccountByStatus.all({ ...params, statuses: JSON.stringify(options.statuses) })
        : this.stmt.listForAccount.all(params.user_id, params.before, params.limit);
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
    const rows = options.userId
      ? this.stmt.listForAccount.all(options.userId, before, limit)
      : this.stmt.listAll.all(before, limit);
    return rows.map(toRecord);
  }

  /** The server's last SMS attempts, newest first (what the SMS backup switch may promise: core/delivery/sms-truth). */
  recentSmsAttempts(limit: number): SmsAttempt[] {
    return this.stmt.recentSms.all(limit);
  }
}
