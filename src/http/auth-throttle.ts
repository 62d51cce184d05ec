// Webhook authentication throttling: failed authentications are counted per client address in a
// sliding window. Once an address has failed `limit` times in the window, its further *failed*
// attempts are answered 429 until the oldest failure ages out. Valid credentials are never refused
// here: TradingView sends every customer's webhooks from the same four addresses, so one customer's
// broken URL must not block the others. In memory and bounded: a flood of addresses evicts the
// oldest entries instead of growing without limit; a restart forgets.

import { ApiError } from './errors.js';
import { FailureWindow } from './failure-window.js';

export interface AuthThrottleLimits {
  /** Failures allowed per address in the window before further failures are answered 429. */
  failures: number;
  windowMs: number;
  /** Addresses tracked at most. */
  maxAddresses: number;
}

export const WEBHOOK_AUTH_LIMITS: AuthThrottleLimits = { failures: 30, windowMs: 60_000, maxAddresses: 10_000 };

export class AuthFailureThrottle {
  private readonly window: FailureWindow;

  constructor(
    now: () => number,
    readonly limits: AuthThrottleLimits = WEBHOOK_AUTH_LIMITS,
  ) {
    this.window = new FailureWindow(now, {
      windowMs: limits.windowMs,
      keep: limits.failures,
      maxKeys: limits.maxAddresses,
    });
  }

  /** Seconds to wait when the address has used up its failures, else 0. */
  retryAfterSeconds(address: string): number {
    return Math.ceil(this.window.waitMs(address, this.limits.failures) / 1000);
  }

  /** Records one failed authentication from the address. */
  fail(address: string): void {
    this.window.fail(address);
  }

  /**
   * The webhook's answer to wrong credentials from the address: 429 while it has used up its
   * failures (not counted again), else 401, counted.
   */
  refuse(address: string): ApiError {
    const wait = this.retryAfterSeconds(address);
    if (wait > 0)
      return new ApiError(
        'too_many_failures',
        `Too many requests with invalid credentials from this address: retry after ${wait} s.`,
        { retry_after: wait },
        { 'retry-after': String(wait) },
      );
    this.fail(address);
    return new ApiError('unauthorized');
  }
}
