// Ring again (#54) at the call desk: whether a missed call's alerts are called again (decided in
// core/calls/ring-again), and the timers that put them back in the queue when due. The store keeps them
// queued with their due time meanwhile: a restart or another node finds them there (call-recovery).
import type { FinalState } from '../core/calls/call-state.js';
import { expiresAt } from '../core/calls/alert-expiry.js';
import { decideEscalation } from '../core/calls/backup-person.js';
import { decideRingAgain } from '../core/calls/ring-again.js';
import type { CallSession } from './call-session.js';

/**
 * The next attempt of a missed call's alerts: rung again at the same number (core/calls/ring-again), or,
 * none left, once at the account's verified backup number (core/calls/backup-person); undefined: the
 * call's end is the alerts' end. `calls` and `waiting`: as phoneTaken's (a newer alert for the same
 * phone carries the news).
 */
export function ringAgainAfter(
  session: CallSession,
  state: FinalState,
  now: number,
  calls: readonly CallSession[],
  waiting: Iterable<{ phone: string; retry?: unknown }>,
): { attempt: number; at: number; dialTo?: string } | undefined {
  const account = session.ringAgain;
  if (!account) return undefined;
  const attempt = session.call.attempt ?? 1;
  const newerAlertForPhone = phoneTaken(session.phone, calls, waiting);
  const expiry = expiresAt(session.call);
  if (account.ringAgain > 0) {
    const decision = decideRingAgain({
      state,
      attempt,
      dialedAt: session.dialedAt,
      now,
      account,
      newerAlertForPhone,
      expiresAt: expiry,
    });
    if (decision.again) return { attempt: decision.attempt, at: decision.at };
  }
  const toBackup = Boolean(session.call.dialTo);
  if (!decideEscalation({ state, account, toBackup, newerAlertForPhone, expiresAt: expiry, now })) return undefined;
  return { attempt: attempt + 1, at: now, dialTo: account.backupPhone! };
}

/**
 * A newer alert rings this phone or waits for its line: a call in progress for a fresh alert (a
 * first call), or an alert in the queue (those rung again themselves, e.g. a missed call's alerts
 * that are due together, do not count).
 */
export function phoneTaken(
  phone: string,
  calls: readonly CallSession[],
  waiting: Iterable<{ phone: string; retry?: unknown }>,
): boolean {
  for (const call of calls) if (call.phone === phone && (call.call.attempt ?? 1) === 1) return true;
  for (const alert of waiting) if (alert.phone === phone && alert.retry === undefined) return true;
  return false;
}

/** Alerts waiting to be rung again: each handed to `due` once, when its time comes. */
export class DueLater {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly now: () => number,
    private readonly due: (callId: string) => void,
  ) {}

  has(callId: string): boolean {
    return this.timers.has(callId);
  }

  /** Takes an alert read from the store that is not due yet (false: due, or not rung again). */
  takes(callId: string, retryAt: number | undefined): boolean {
    if (retryAt === undefined || retryAt <= this.now()) return false;
    this.add(callId, retryAt);
    return true;
  }

  add(callId: string, at: number): void {
    if (this.stopped || this.timers.has(callId)) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(callId);
        this.due(callId);
      },
      Math.max(0, at - this.now()),
    );
    this.timers.set(callId, timer);
  }

  /** At stop (none is added after it): they stay queued in the store, for the next start (or another node) to place when due. */
  clear(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
