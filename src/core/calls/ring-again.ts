// Ring again (#54): a missed call is tried again, from the same caller ID, so that a phone on Do
// Not Disturb lets the second call through (iOS "Repeated Calls": a second call from the same number
// within three minutes of the first; Android's "repeat callers": 15 minutes). Opt-in per account,
// the service's one attempt kept as the default. Pure: whether to ring again, when, and the words.
import type { Account } from '../account.js';
import type { FinalState } from './call-state.js';

/** At most this many more attempts after the first. */
export const RING_AGAIN_MAX = 2;
/** Seconds from one attempt's start to the next's: iOS counts its three minutes from the first call's start, its ring time included. */
export const RING_AGAIN_AFTER_MIN = 20;
export const RING_AGAIN_AFTER_MAX = 170;
export const RING_AGAIN_AFTER_DEFAULT = 60;

export type RingAgainSettings = Pick<Account, 'ringAgain' | 'ringAgainAfter'>;

export const RING_AGAIN_OFF: RingAgainSettings = { ringAgain: 0, ringAgainAfter: RING_AGAIN_AFTER_DEFAULT };

/** The outcomes in which no person was reached: the alert is called again, when the account asks for it. */
const MISSED: ReadonlySet<FinalState> = new Set(['no_answer', 'busy', 'unreachable', 'voicemail', 'rejected']);

/** A call's end, missed or not: unconfirmed counts as missed only where the account requires a 1. */
export function missedPerson(state: FinalState, requireConfirm: boolean): boolean {
  return MISSED.has(state) || (state === 'unconfirmed' && requireConfirm);
}

export interface RingAgainFacts {
  /** How the attempt that just ended ended. */
  state: FinalState;
  /** Which attempt that was (1: the first call). */
  attempt: number;
  /** When that attempt was dialed (ms): the next starts ringAgainAfter seconds after it. */
  dialedAt: number;
  now: number;
  account: RingAgainSettings & Pick<Account, 'requireConfirm' | 'status'>;
  /** A newer alert rings that phone, or waits for its line: it carries the news, this one is not called again. */
  newerAlertForPhone: boolean;
  /** The alert's own expiry (core/calls/alert-expiry): no attempt starts after it. */
  expiresAt?: number | undefined;
}

export type RingAgainDecision = { again: false } | { again: true; attempt: number; at: number };

/** Whether the alert is called again after this attempt, and when (never before its end). */
export function decideRingAgain(f: RingAgainFacts): RingAgainDecision {
  const { account } = f;
  if (account.status !== 'active' || f.newerAlertForPhone) return { again: false };
  if (!missedPerson(f.state, account.requireConfirm)) return { again: false };
  if (f.attempt > Math.min(account.ringAgain, RING_AGAIN_MAX)) return { again: false };
  const at = Math.max(f.now, f.dialedAt + account.ringAgainAfter * 1000);
  if (f.expiresAt !== undefined && at >= f.expiresAt) return { again: false };
  return { again: true, attempt: f.attempt + 1, at };
}

const TIMES = ['', 'once', 'twice'] as const;

/** What `account show` and the dashboard say will happen to a missed call, in one sentence. */
export function describeRingAgain(account: RingAgainSettings): string {
  if (account.ringAgain <= 0)
    return 'A missed call is not tried again: one call per alert (then the SMS backup, if on).';
  const times = TIMES[Math.min(account.ringAgain, RING_AGAIN_MAX)];
  return (
    `A missed call is tried again ${times}, ${account.ringAgainAfter} s after the start of the one before, from the same number ` +
    '(the SMS backup, if on, goes out once, after the first miss; the alert counts once against the plan).'
  );
}

/** `--ring-again N`: 0 to 2 more calls after a missed one. */
export function parseRingAgain(text: string): { ok: true; value: number } | { ok: false; error: string } {
  const t = text.trim();
  if (!/^\d+$/.test(t) || Number(t) > RING_AGAIN_MAX)
    return { ok: false, error: `--ring-again: '${text}' is not a number of calls from 0 to ${RING_AGAIN_MAX}` };
  return { ok: true, value: Number(t) };
}

/** `--ring-again-after SECONDS`: 20 to 170. */
export function parseRingAgainAfter(text: string): { ok: true; value: number } | { ok: false; error: string } {
  const t = text.trim();
  const n = /^\d+$/.test(t) ? Number(t) : Number.NaN;
  if (!(n >= RING_AGAIN_AFTER_MIN && n <= RING_AGAIN_AFTER_MAX))
    return {
      ok: false,
      error: `--ring-again-after: '${text}' is not a number of seconds from ${RING_AGAIN_AFTER_MIN} to ${RING_AGAIN_AFTER_MAX} (the next call must start within iOS's three minutes of the first)`,
    };
  return { ok: true, value: n };
}

/** An earlier attempt of an alert, as its history shows it. */
export interface EarlierAttempt {
  /** When it was dialed (ms). */
  at: number;
  outcome: FinalState;
}

/** The earlier attempts kept on the call's row (a JSON list); none when absent or unreadable. */
export function readAttempts(text: string | null | undefined): EarlierAttempt[] {
  if (!text) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value)
      ? value.filter(
          (a): a is EarlierAttempt =>
            typeof a === 'object' && a !== null && typeof a.at === 'number' && typeof a.outcome === 'string',
        )
      : [];
  } catch {
    // Written only by ringhook: an unreadable list shows no earlier attempt rather than failing the history.
    return [];
  }
}
