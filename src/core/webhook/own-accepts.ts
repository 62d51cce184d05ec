// The accepts one connection committed itself, and whether they are all the database holds within
// the burst window (#58): once no other connection has committed for a whole window, an account's
// accepted alerts in the window are exactly the ones noted here, and the limit's read can be left
// out. Another connection's commit (the CLI, another process; SQLite counts them: data_version)
// starts the window over. Pure: the store says what it saw and when.
import { BURST_WINDOW_MS } from './limits.js';

export class OwnAccepts {
  private readonly times = new Map<string, number[]>();
  private seen: number | undefined;
  /** Since when no other connection committed: +Infinity until the first look. */
  private aloneSince = Number.POSITIVE_INFINITY;
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly windowMs = BURST_WINDOW_MS) {}

  /** Whether a first look (seed, or observe) was taken: from then on, observe() is all a group's look needs. */
  get seeded(): boolean {
    return this.seen !== undefined;
  }

  /**
   * The first look: every accept of the window ending at `now`, whoever made it, read under the write
   * lock at `now` with the count of other connections' commits. They are then all there are, at
   * once, instead of after a window alone (a restarted server's first minute read each limit).
   */
  seed(accepts: Iterable<readonly [userId: string, at: number]>, othersCommits: number, now: number): void {
    this.times.clear();
    for (const [userId, at] of accepts) if (at > now - this.windowMs) this.note(userId, at);
    this.seen = othersCommits;
    this.aloneSince = now - this.windowMs;
  }

  /**
   * The count of other connections' commits, read under the write lock at `now`: a change means
   * someone else wrote, whose accepts are not known here, stamped at `now` at the latest.
   */
  observe(othersCommits: number, now: number): void {
    if (othersCommits === this.seen) return;
    this.seen = othersCommits;
    this.aloneSince = now;
  }

  /** An alert of `userId` accepted at `at` by this connection, committed. */
  note(userId: string, at: number): void {
    this.sweep(at);
    const kept = this.times.get(userId);
    if (kept) kept.push(at);
    else this.times.set(userId, [at]);
  }

  /**
   * The accept times of `userId` within the window ending at `now` when this connection's are all
   * there are (alone for a whole window: any other's were stamped before the window began), else
   * null: the database must be read.
   */
  inWindow(userId: string, now: number): number[] | null {
    if (!(now - this.aloneSince >= this.windowMs)) return null;
    this.sweep(now);
    const kept = this.times.get(userId);
    if (!kept) return [];
    const recent = kept.filter((t) => t > now - this.windowMs);
    if (recent.length === 0) this.times.delete(userId);
    else if (recent.length !== kept.length) this.times.set(userId, recent);
    return recent;
  }

  /** Accounts with times kept (bounded: an account quiet for a window is forgotten). */
  get size(): number {
    return this.times.size;
  }

  /** Forgets the times out of the window (an account with none left altogether), once a window at most. */
  private sweep(now: number): void {
    if (now - this.sweptAt < this.windowMs) return;
    this.sweptAt = now;
    for (const [userId, kept] of this.times) {
      const recent = kept.filter((t) => t > now - this.windowMs);
      if (recent.length === 0) this.times.delete(userId);
      else if (recent.length !== kept.length) this.times.set(userId, recent);
    }
  }
}
