// Sign-in throttling: failed attempts are counted per account and per client address in a sliding
// window; when either count reaches its limit, sign-in is refused until the oldest failure ages out.
// In memory: a restart forgets, which is acceptable for the single process that serves sign-ins.

export interface ThrottleLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

export const SIGN_IN_LIMITS: ThrottleLimits = { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 };

/** How many keys are tracked at most: a flood of addresses cannot grow memory without bound. */
const MAX_KEYS = 10_000;

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly now: () => number, private readonly limits: ThrottleLimits = SIGN_IN_LIMITS) {}

  check(account: string | undefined, address: string): ThrottleDecision {
    const waits = [this.wait(`a:${address}`, this.limits.perAddress)];
    if (account) waits.push(this.wait(`u:${account}`, this.limits.perAccount));
    const longest = Math.max(...waits);
    return longest > 0 ? { allowed: false, retryAfterSeconds: Math.ceil(longest / 1000) } : { allowed: true };
  }

  fail(account: string | undefined, address: string): void {
    this.record(`a:${address}`);
    if (account) this.record(`u:${account}`);
  }

  /** A successful sign-in clears the account's failures (not the address's). */
  succeed(account: string): void {
    this.failures.delete(`u:${account}`);
  }

  private recent(key: string): number[] {
    const cutoff = this.now() - this.limits.windowMs;
    const list = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length === 0) this.failures.delete(key);
    else this.failures.set(key, list);
    return list;
  }

  private wait(key: string, limit: number): number {
    const list = this.recent(key);
    if (list.length < limit) return 0;
    return list[list.length - limit]! + this.limits.windowMs - this.now();
  }

  private record(key: string): void {
    const list = this.recent(key);
    if (!this.failures.has(key) && this.failures.size >= MAX_KEYS) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    list.push(this.now());
    this.failures.set(key, list.slice(-Math.max(this.limits.perAccount, this.limits.perAddress)));
  }
}
