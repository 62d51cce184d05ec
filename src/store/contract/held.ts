// Alerts held for quiet hours (#41): kept in the store, so they outlive a restart or a node.
import type { CallForDialing } from '../../core/records.js';
import type { Awaitable } from './awaitable.js';

/** The alerts held until one end. */
export interface HeldEnd {
  until: number;
  count: number;
}

/** An account's held alerts: how many, the soonest end (when the next of them are called), and each end with its count. */
export interface HeldAlerts {
  count: number;
  until: number | null;
  /** Soonest first: alerts held under quiet hours since changed keep the end they were held until. */
  ends: HeldEnd[];
}

/** The summary of an account's held alerts, from their counts per end (soonest first). */
export function heldAlerts(ends: readonly HeldEnd[]): HeldAlerts {
  const list = ends.map(({ until, count }) => ({ until: Number(until), count: Number(count) }));
  return { count: list.reduce((sum, e) => sum + e.count, 0), until: list[0]?.until ?? null, ends: list };
}

/**
 * A released alert as its queueing needs it (its account is read once per account): of a night's
 * 10,000 rows nothing more is read, so that the release makes little for a collection to copy (#51).
 */
export type ReleasedAlert = Pick<CallForDialing, 'callId' | 'userId' | 'kind' | 'message'>;

export interface HeldCallRepo {
  /** Queued alerts held until `until` (a call that is no longer queued is left as it is); the ids held. */
  hold(callIds: readonly string[], until: number, detail: string): Awaitable<string[]>;
  /**
   * Held alerts whose own end came by `now` (each at the end it was held until, whatever the
   * account's quiet hours say since), queued again for this node: each released by exactly one
   * node. At most `limit` in one go (the caller asks again for the rest: SQLite releases in the
   * event loop's thread); PostgreSQL releases every due alert in one statement whatever the limit,
   * so that of two nodes one takes them all (one call).
   */
  releaseDue(now: number, limit: number): Awaitable<ReleasedAlert[]>;
  /** The account's held alerts: how many, and until when. */
  heldFor(userId: string): Awaitable<HeldAlerts>;
}
