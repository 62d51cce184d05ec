// Sign-in throttling: failed attempts are counted per account and per client address in a sliding
// window; when either count reaches its limit, sign-in is refused until the oldest failure ages out.
// In memory: a restart forgets, which is acceptable for the single process that serves sign-ins.

import { FailureWindow } from '../failure-window.js';

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
  private readonly window: FailureWindow;

  constructor(now: () => number, private readonly limits: ThrottleLimits = SIGN_IN_LIMITS) {
    this.window = new FailureWindow(now, { windowMs: limits.windowMs, keep: Math.max(limits.perAccount, limits.perAddress), maxKeys: MAX_KEYS });
  }

  check(account: string | undefined, address: string): ThrottleDecision {
    const waits = [this.window.waitMs(`a:${address}`, this.limits.perAddress)];
    if (account) waits.push(this.window.waitMs(`u:${account}`, this.limits.perAccount));
    const longest = Math.max(...waits);
    return longest > 0 ? { allowed: false, retryAfterSeconds: Math.ceil(longest / 1000) } : { allowed: true };
  }

  fail(account: string | undefined, address: string): void {
    this.window.fail(`a:${address}`);
    if (account) this.window.fail(`u:${account}`);
  }

  /** A successful sign-in clears the account's failures (not the address's). */
  succeed(account: string): void {
    this.window.clear(`u:${account}`);
  }
}
