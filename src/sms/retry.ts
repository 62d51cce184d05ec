// Bounded retry of a step that failed before the gateway took the message.
import { backoffDelay } from '../core/backoff.js';
import type { Sleep } from '../lib/sleep.js';
import type { SmsResult } from './types.js';

export type Attempt = { done: true; value: SmsResult } | { done: false; value: SmsResult; retry: boolean };

/**
 * Runs `attempt` up to `attempts` times while it answers retry: true, pausing `delayMs`, then
 * twice that, and so on. Returns the last value; a failure whose last attempt could have been
 * retried (the gateway certainly took nothing) is marked `notSent`, for the SMS backup to try later.
 */
export async function withRetry(
  attempts: number,
  delayMs: number,
  sleep: Sleep,
  attempt: (n: number) => Promise<Attempt>,
): Promise<SmsResult> {
  let last: Attempt | undefined;
  for (let n = 1; n <= Math.max(1, attempts); n++) {
    if (n > 1) await sleep(backoffDelay(n - 1, { initialMs: delayMs, maxMs: Number.MAX_SAFE_INTEGER }));
    last = await attempt(n);
    if (last.done || !last.retry) return last.value;
  }
  return last!.value.status === 'failed' ? { ...last!.value, notSent: true } : last!.value;
}
