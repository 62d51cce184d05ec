// Webhook authentication throttling: failed authentications are counted per client address in a
// sliding window. Once an address has failed `limit` times in the window, its further *failed*
// attempts are answered 429 until the oldest failure ages out. Valid credentials are never refused
// here: TradingView sends every customer's webhooks from the same four addresses, so one customer's
// broken URL must not block the others. In memory and bounded: a flood of addresses evicts the
// oldest entries instead of growing without limit; a restart forgets.

export interface AuthThrottleLimits {
  /** Failures allowed per address in the window before further failures are answered 429. */
  failures: number;
  windowMs: number;
  /** Addresses tracked at most. */
  maxAddresses: number;
}

export const WEBHOOK_AUTH_LIMITS: AuthThrottleLimits = { failures: 30, windowMs: 60_000, maxAddresses: 10_000 };

export class AuthFailureThrottle {
  /** Per address, the times of its most recent failures (at most `failures` of them), oldest first. */
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly now: () => number, readonly limits: AuthThrottleLimits = WEBHOOK_AUTH_LIMITS) {}

  /** Seconds to wait when the address has used up its failures, else 0. */
  retryAfterSeconds(address: string): number {
    const list = this.recent(address);
    if (list.length < this.limits.failures) return 0;
    const wait = list[list.length - this.limits.failures]! + this.limits.windowMs - this.now();
    return wait > 0 ? Math.max(1, Math.ceil(wait / 1000)) : 0;
  }

  /** Records one failed authentication from the address. */
  fail(address: string): void {
    const list = this.recent(address);
    if (list.length === 0 && this.failures.size >= this.limits.maxAddresses) {
      // Maps iterate in insertion order: the first key is the address tracked the longest.
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    list.push(this.now());
    if (list.length > this.limits.failures) list.splice(0, list.length - this.limits.failures);
    this.failures.set(address, list);
  }

  get trackedAddresses(): number {
    return this.failures.size;
  }

  private recent(address: string): number[] {
    const list = this.failures.get(address);
    if (!list) return [];
    const cutoff = this.now() - this.limits.windowMs;
    let drop = 0;
    while (drop < list.length && list[drop]! <= cutoff) drop++;
    if (drop > 0) list.splice(0, drop);
    if (list.length === 0) this.failures.delete(address);
    return list;
  }
}
