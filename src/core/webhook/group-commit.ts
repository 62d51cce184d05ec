// The group commit's decisions, for a store whose commit is synchronous (SQLite): which waiting
// writes go in the next transaction, and which alerts can be refused at once from the accepts this
// process already committed. Pure: the store keeps the queue and the times.
import {
  BURST_WINDOW_MS,
  decideBurst,
  hasMonthlyAllowance,
  PLAN_LIMITS,
  type LimitDecision,
  type Plan,
} from './limits.js';

/**
 * The most writes one transaction takes. A group gathers what arrived during the turn of the event
 * loop (and so during the previous commit's fsync); more than this wait for the next commit, in the
 * next turn, so that one transaction never holds its callers for long.
 */
export const MAX_GROUP = 64;

/** How many of `waiting` writes go in the next commit, and whether another commit must follow in the next turn. */
export function nextGroup(waiting: number, max = MAX_GROUP): { take: number; more: boolean } {
  const take = Math.min(Math.max(waiting, 0), Math.max(1, max));
  return { take, more: waiting > take };
}

/**
 * How long a write of the group commit waits for another connection's write lock (the CLI, a
 * backup), counted from when it was asked for, before it fails busy (the webhook's 503: nothing
 * recorded). Well inside the sender's budget: TradingView gives up after 3 s.
 */
export const LOCK_WAIT_MS = 1000;

/** The writes whose wait for the lock is over at `now` (they fail), and those that wait on, in order. */
export function byLockWait<T extends { askedAt: number }>(
  writes: readonly T[],
  now: number,
  waitMs = LOCK_WAIT_MS,
): { over: T[]; waiting: T[] } {
  const over: T[] = [];
  const waiting: T[] = [];
  for (const write of writes) (now - write.askedAt >= waitMs ? over : waiting).push(write);
  return { over, waiting };
}

/**
 * The accept times of each account that this process committed within the burst window: enough to
 * refuse an alert over the per-minute limit without the write lock, a read or a commit. A refusal
 * decided from them is exact: accepted alerts only leave the window as time passes (another process
 * can only add more), so if the times known here already reach the limit, the full check would too.
 * What is not known here (another process's accepts, times before a restart) only means the alert
 * goes the full way, which decides exactly.
 */
export class KnownAccepts {
  private readonly times = new Map<string, number[]>();
  private sweptAt = 0;

  constructor(private readonly windowMs = BURST_WINDOW_MS) {}

  /** An alert of `userId` accepted at `at`, committed. */
  note(userId: string, at: number): void {
    const kept = this.times.get(userId);
    if (kept) kept.push(at);
    else this.times.set(userId, [at]);
  }

  /**
   * The newest accept times read from the database inside a transaction, once it committed: they
   * replace what was known (the read saw every committed accept, and this process's own before it).
   * Replaced, not merged: an alert known twice would count twice; one left out only sends the next
   * alert the full way. Equal times are distinct alerts (a group's accepts share a millisecond).
   */
  learn(userId: string, times: readonly number[]): void {
    this.times.set(userId, [...times]);
  }

  /**
   * The burst refusal for one more alert of `userId` now, when the known accepts alone decide it;
   * null when the full check must decide. Plans with a monthly allowance always take the full check
   * (their monthly refusal is said before the minute's).
   */
  refusal(userId: string, plan: Plan, now: number): Exclude<LimitDecision, { allowed: true }> | null {
    this.sweep(now);
    if (hasMonthlyAllowance(plan)) return null;
    const kept = this.times.get(userId);
    if (!kept) return null;
    const perMinute = PLAN_LIMITS[plan].perMinute;
    const inWindow = kept.filter((t) => t > now - this.windowMs);
    if (inWindow.length !== kept.length) {
      if (inWindow.length === 0) this.times.delete(userId);
      else this.times.set(userId, inWindow);
    }
    if (inWindow.length > perMinute) inWindow.sort((a, b) => b - a).length = perMinute;
    const decision = decideBurst(perMinute, now, inWindow, this.windowMs);
    return decision.allowed ? null : decision;
  }

  /** Accounts known to this process (bounded: an account quiet for a window is forgotten). */
  get size(): number {
    return this.times.size;
  }

  /** Forgets the accounts with nothing left in the window, once a window at most. */
  private sweep(now: number): void {
    if (now - this.sweptAt < this.windowMs) return;
    this.sweptAt = now;
    for (const [userId, kept] of this.times) if (!kept.some((t) => t > now - this.windowMs)) this.times.delete(userId);
  }
}
