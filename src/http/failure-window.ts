// Failures counted per key (a client address, an account) in a sliding window, for the throttles
// of the webhook and of the dashboard's sign-in. In memory and bounded: at most `maxKeys` keys (a
// flood of new keys evicts the key tracked the longest) and `keep` failure times per key.

export interface FailureWindowLimits {
  windowMs: number;
  /** Failure times kept per key: the largest limit that `waitMs` is asked about. */
  keep: number;
  maxKeys: number;
}

export class FailureWindow {
  /** Per key, the times of its most recent failures, oldest first. */
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly limits: FailureWindowLimits,
  ) {}

  /** Milliseconds until the key has fewer than `limit` failures in the window; 0 when it already has. */
  waitMs(key: string, limit: number): number {
    const list = this.recent(key);
    if (list.length < limit) return 0;
    return Math.max(0, list[list.length - limit]! + this.limits.windowMs - this.now());
  }

  fail(key: string): void {
    const list = this.recent(key);
    if (list.length === 0 && this.failures.size >= this.limits.maxKeys) {
      // Maps iterate in insertion order: the first key is the one tracked the longest.
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    list.push(this.now());
    if (list.length > this.limits.keep) list.splice(0, list.length - this.limits.keep);
    this.failures.set(key, list);
  }

  /** Takes back one failure recorded at `at` (an attempt counted in advance that did not fail). */
  withdraw(key: string, at: number): void {
    const list = this.failures.get(key);
    const index = list?.lastIndexOf(at) ?? -1;
    if (index < 0) return;
    list!.splice(index, 1);
    if (list!.length === 0) this.failures.delete(key);
  }

  clear(key: string): void {
    this.failures.delete(key);
  }

  /** The key's failures still in the window (older ones are dropped, an empty key forgotten). */
  private recent(key: string): number[] {
    const list = this.failures.get(key);
    if (!list) return [];
    const cutoff = this.now() - this.limits.windowMs;
    let drop = 0;
    while (drop < list.length && list[drop]! <= cutoff) drop++;
    if (drop > 0) list.splice(0, drop);
    if (list.length === 0) this.failures.delete(key);
    return list;
  }
}
