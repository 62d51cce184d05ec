// When a status callback is tried again, and what a receiver's answer means (Standard Webhooks:
// exponential backoff with jitter, given up after a day; 2xx delivered, 410 turns the callback
// off). Pure: the random draw and the clock are passed in.
import { backoffDelay } from './backoff.js';

export const CALLBACK_RETRY = {
  /** The wait after the first failure; doubled after each one. */
  initialMs: 5_000,
  /** No wait longer than this between two tries. */
  maxMs: 60 * 60_000,
  /** From the event's making: after this it is given up (status `failed`). */
  giveUpAfterMs: 24 * 60 * 60_000,
} as const;

/** How long one try may take, connect to last byte. */
export const CALLBACK_TIMEOUT_MS = 10_000;

export type CallbackVerdict = 'delivered' | 'gone' | 'retry';

/** `status` null: no HTTP answer (refused, timed out, TLS failed). */
export function callbackVerdict(status: number | null): CallbackVerdict {
  if (status === null) return 'retry';
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'gone';
  return 'retry';
}

/**
 * When to try again after `failures` failed tries (1 after the first), or null when that would
 * fall after the day's end. The wait is the doubling backoff scaled by a random factor in
 * [0.5, 1) ("equal jitter"): receivers that came back are not hit by every sender at once.
 * `random` is a draw in [0, 1).
 */
export function nextCallbackAttempt(input: {
  failures: number;
  createdAt: number;
  now: number;
  random: number;
}): number | null {
  const { failures, createdAt, now, random } = input;
  const full = backoffDelay(failures, CALLBACK_RETRY);
  const wait = Math.round(full * (0.5 + Math.min(Math.max(random, 0), 1) / 2));
  const at = now + wait;
  return at > createdAt + CALLBACK_RETRY.giveUpAfterMs ? null : at;
}
