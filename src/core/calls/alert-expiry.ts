// An alert's own expiry (#54): the sender may say how long the alert is worth a call, as JSON
// `expires_in` or the `Expires-In` header, in seconds from its receipt. No call of it starts after
// that (it ends `expired`, as an alert too old for the freshness window does), and its SMS backup is
// not sent once it has expired. Beyond the webhook's contract: an alert without it is as before. Pure.
import { callReason, type CallReason } from '../reasons.js';

export const EXPIRES_IN_MIN = 10;
export const EXPIRES_IN_MAX = 86_400;

export type ExpiresInParse = { ok: true; value: number | undefined } | { ok: false; error: string };

/**
 * `expires_in` (a JSON number, or a string of digits) or the `Expires-In` header (digits): a whole
 * number of seconds from 10 to 86400. Absent (undefined, null, an empty header): no expiry.
 */
export function parseExpiresIn(value: unknown, name: 'expires_in' | 'Expires-In'): ExpiresInParse {
  if (value === undefined || value === null) return { ok: true, value: undefined };
  const text = typeof value === 'string' ? value.trim() : undefined;
  if (name === 'Expires-In' && text === '') return { ok: true, value: undefined };
  const n =
    typeof value === 'number' ? value : text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < EXPIRES_IN_MIN || n > EXPIRES_IN_MAX) {
    const shown = (typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value))).slice(0, 40);
    return {
      ok: false,
      error: `"${name}" must be a whole number of seconds from ${EXPIRES_IN_MIN} to ${EXPIRES_IN_MAX} (got ${shown})`,
    };
  }
  return { ok: true, value: n };
}

/** Both given: the sooner counts (the sender asked for both). */
export function soonerExpiry(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

/** The instant (ms) after which no call of the alert starts; undefined: it has no expiry of its own. */
export function expiresAt(call: { receivedAt: number; expiresIn?: number | null | undefined }): number | undefined {
  return call.expiresIn === undefined || call.expiresIn === null ? undefined : call.receivedAt + call.expiresIn * 1000;
}

/** True when the alert's own expiry has passed at `now`. */
export function hasExpired(call: { receivedAt: number; expiresIn?: number | null | undefined }, now: number): boolean {
  const at = expiresAt(call);
  return at !== undefined && now >= at;
}

/** How an alert past its own expiry ends, never called again: `expired`, and why. It counts against the plan (it was accepted). */
export function expiredFate(expiresIn: number): { state: 'expired'; returnsAllowance: false } & CallReason {
  return {
    state: 'expired',
    returnsAllowance: false,
    ...callReason('alert_expired', { expiresInS: expiresIn }, `its expires_in (${expiresIn} s) passed`),
  };
}
