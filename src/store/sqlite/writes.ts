// Writes of the calling side (the dialer's call steps, the SMS backup's records) that must not hold
// the event loop while another process has the database's write lock. better-sqlite3 waits for a
// lock synchronously, and the webhook shares the loop: a dialer write waiting 5 s would hold every
// webhook answer for 5 s. Here the writes asked for in one turn of the event loop are tried together
// with a short wait, in one transaction (one durable commit for all: in a burst, calls take
// hundreds of steps a second), each in its own savepoint so that one that fails does not undo the
// others; while the lock stays taken, they wait in a queue without blocking and are tried again, in
// order, until they land. A write nothing waits for (a step recorded after the fact) may wait up
// to `spacingMs` after the last commit, to share the next one (in a burst, call steps otherwise came
// about two to a commit, and each commit's flush holds the loop: bench/NOTES.md, 8). A write its
// caller waits for before acting (a call's claim, an SMS's) is committed in the next turn, with them.
import { isBusyError } from '../unavailable.js';
import { withBusyTimeout, type Db } from './connect.js';
import type { Logger } from '../../lib/log.js';
import type { CallWrites } from '../contract/index.js';

export interface SqliteCallWritesOptions {
  /** How long one try may block waiting for the lock, ms. */
  tryMs?: number;
  /** The pause between two tries while the lock is held, ms. */
  retryMs?: number;
  /** How long after the last commit a write nothing waits for may wait for company, ms. */
  spacingMs?: number;
  /** How long a group may take writes before the rest wait for the next turn, ms. */
  turnBudgetMs?: number;
}

/** Writes landed together at most. */
const MAX_GROUP = 200;
/**
 * A group stops taking writes after this long, so that a turn of the event loop stays short (the rest:
 * the next turn). Its commit costs as much again or more in the log's write and sync, which hold the
 * loop too: 10 ms of a quiet-hours batch's steps made 37–43 ms turns, 20–30 ms of them the commit (#51).
 */
const TURN_BUDGET_MS = 5;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Job {
  label: string;
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  queuedAt: number;
}

export class SqliteCallWrites implements CallWrites {
  private readonly queue: Job[] = [];
  private readonly tryMs: number;
  private readonly retryMs: number;
  private readonly spacingMs: number;
  private readonly turnBudgetMs: number;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Cancels the flush scheduled (in the next turn, or after the spacing). */
  private cancelFlush: (() => void) | undefined;
  private flushInNextTurn = false;
  private lastCommitAt = Number.NEGATIVE_INFINITY;
  private waitingSince: number | undefined;
  /** After a group failed as a whole: how many of the next writes go alone, so that one that cannot land fails alone. */
  private alone = 0;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    options: SqliteCallWritesOptions = {},
  ) {
    this.tryMs = options.tryMs ?? 20;
    this.retryMs = options.retryMs ?? 100;
    this.spacingMs = options.spacingMs ?? 25;
    this.turnBudgetMs = options.turnBudgetMs ?? TURN_BUDGET_MS;
  }

  /** Writes not committed yet: this turn's group, or those waiting for the lock. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Runs `work` (synchronous, as SQLite's writes are: it runs inside a transaction, and one that
   * returns a promise fails) in the loop's next timers phase (a timer of 0), after the writes queued
   * before it and together with the others asked for meanwhile; `lazy` (nothing waits for it):
   * once `spacingMs` have passed since the last commit, or sooner with a write that is not.
   * Resolves with what `work` returned once the transaction is committed.
   */
  write<T>(label: string, work: () => T | Promise<T>, { lazy = false }: { lazy?: boolean } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ label, work, resolve: resolve as (value: unknown) => void, reject, queuedAt: Date.now() });
      if (this.retryTimer !== undefined || this.flushInNextTurn) return;
      const wait = lazy ? this.lastCommitAt + this.spacingMs - performance.now() : 0;
      if (wait > 0) {
        if (this.cancelFlush === undefined) {
          const timer = setTimeout(() => this.flush(), wait);
          this.cancelFlush = () => clearTimeout(timer);
        }
        return;
      }
      this.cancelFlush?.();
      // A timer, not an immediate: a write asked for from an I/O callback (an Asterisk event) would
      // otherwise land in the same stretch of the loop as that callback, before any timer runs: a
      // call's end of 10,000 alerts and its first commit were one 60 ms gap (#51).
      const timer = setTimeout(() => this.flush(), 0);
      this.cancelFlush = () => clearTimeout(timer);
      this.flushInNextTurn = true;
    });
  }

  /** Waits until every queued write has landed, up to `timeoutMs`; true when none is left. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, Math.min(this.retryMs, 50)));
    return this.queue.length === 0;
  }

  /** At shutdown, after drain: the writes still waiting are given up (reported to their callers). */
  abandon(): number {
    clearTimeout(this.retryTimer);
    this.cancelFlush?.();
    this.retryTimer = undefined;
    this.cancelFlush = undefined;
    this.flushInNextTurn = false;
    const left = this.queue.splice(0);
    for (const job of left)
      job.reject(new Error(`not written: the database was still locked at shutdown (${job.label})`));
    return left.length;
  }

  private flush(): void {
    this.retryTimer = undefined;
    this.cancelFlush = undefined;
    this.flushInNextTurn = false;
    // One group a turn: a call of 10,000 alerts (a quiet-hours batch) queues 10,000 steps at once,
    // and landing them all in one turn held the event loop for a second (#51).
    let groups = 0;
    while (this.queue.length > 0) {
      if (groups++ > 0 && this.alone === 0) {
        const immediate = setImmediate(() => this.flush());
        this.cancelFlush = () => clearImmediate(immediate);
        this.flushInNextTurn = true;
        return;
      }
      const group = this.queue.slice(0, this.alone > 0 ? 1 : MAX_GROUP);
      let outcomes: Outcome[];
      try {
        outcomes = withBusyTimeout(this.db, this.tryMs, () => this.together(group));
      } catch (error) {
        if (isBusyError(error)) {
          this.waitForLock(group[0]!);
          return;
        }
        // Nothing of the group landed (disk full, I/O error): its writes are tried again one by one.
        if (group.length > 1) {
          this.alone = group.length;
          continue;
        }
        this.queue.shift();
        this.alone = Math.max(0, this.alone - 1);
        group[0]!.reject(error);
        continue;
      }
      const landed = group.slice(0, outcomes.length);
      this.queue.splice(0, landed.length);
      this.lastCommitAt = performance.now();
      this.alone = Math.max(0, this.alone - landed.length);
      if (this.waitingSince !== undefined) {
        this.logger.info('database lock released: queued call records written', {
          waited_ms: Date.now() - this.waitingSince,
          label: group[0]!.label,
        });
        this.waitingSince = undefined;
      }
      landed.forEach((job, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.error);
      });
    }
  }

  /**
   * One transaction for the group, or for as much of it as fits the turn's time (the first always):
   * the outcomes of those written; each write in a savepoint of its own.
   */
  private together(group: readonly Job[]): Outcome[] {
    const until = performance.now() + this.turnBudgetMs;
    return this.db
      .transaction(() => {
        const outcomes: Outcome[] = [];
        for (const job of group) {
          if (outcomes.length > 0 && performance.now() > until) break;
          try {
            outcomes.push({ ok: true, value: this.db.transaction(job.work)() });
          } catch (error) {
            // A lock held elsewhere waits for it; a failure that rolled back the whole group (disk
            // full, I/O error) fails the group, which must not go on writing each job alone.
            if (isBusyError(error) || !this.db.inTransaction) throw error;
            outcomes.push({ ok: false, error });
          }
        }
        return outcomes;
      })
      .immediate();
  }

  private waitForLock(job: Job): void {
    if (this.waitingSince === undefined) {
      this.waitingSince = job.queuedAt;
      this.logger.warn('database locked by another process: call records wait in memory until it is released', {
        label: job.label,
      });
    }
    this.retryTimer ??= setTimeout(() => this.flush(), this.retryMs);
  }
}
