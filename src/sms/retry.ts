// Bounded retry of a step that failed before the gateway took the message.
import { backoffDelay } from '../core/backoff.js';
import type { Sleep } from '../sleep.js';

export type Attempt<T> = { done: true; value: T } | { done: false; value: T; retry: boolean };

/**
 * Runs `attempt` up to `attempts` times while it answers retry: true, pausing `delayMs`, then
 * twice that, and so on. Returns the last value.
 */
export async function withRetry<T>(attempts: number, delayMs: number, sleep: Sleep, attempt: (n: number) => Promise<Attempt<T>>): Promise<T> {
  let last: Attempt<T> | undefined;
  for (let n = 1; n <= Math.max(1, attempts); n++) {
    if (n > 1) await sleep(backoffDelay(n - 1, { initialMs: delayMs, maxMs: Number.MAX_SAFE_INTEGER }));
    last = await attempt(n);
    if (last.done || !last.retry) return last.value;
  }
  return last!.value;
}
