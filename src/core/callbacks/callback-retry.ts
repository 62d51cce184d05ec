// When a status callback is tried again, and what a receiver's answer means (Standard Webhooks:
// exponential backoff with jitter, given up after a day; 2xx delivered, 410 turns the callback
// off). Pure: the random draw and the clock are passed in.
import { backoffDelay } from '../backoff.js';

export const CALLBACK_RETRY = {
  /** The wait after the first failure; doubled after each one. */
  initialMs: 5_000,
  /** No wait longer than this between two tries. */
  maxMs: 60 * 60_000,
  /** From the event's making: after this it is given up (status `failed`). */
  giveUpAfterMs: 24 * 60 * 60_000,
} as const;

/** How long one try may take, the DNS lookup to the answer's last byte. */
export const CALLBACK_TIMEOUT_MS = 10_000;

/** How long the DNS lookup of a callback's host name may take, within the try's time. */
export const CALLBACK_DNS_TIMEOUT_MS = 5_000;

/**
 * How many deliveries are sent at once: a node's whole budget, and at most `perAccount` of one
 * account's (across the nodes), so that one account's backlog or stuck receiver never holds another's.
 */
export const CALLBACK_SENDING = { perNode: 32, perAccount: 2 } as const;

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

/**
 * Until when the account's other waiting deliveries are held after a try that got no HTTP answer
 * (timed out, refused a connection, DNS failed, the URL refused): the receiver is out of reach for
 * them too, so it backs off as one instead of being tried by each delivery in turn. An answer, even
 * an error, holds nothing (one event a receiver refuses must not stop the account's others), and
 * neither does a delivery given up (`next` null).
 */
export function receiverHoldUntil(answered: boolean, next: number | null): number | null {
  return answered ? null : next;
}
