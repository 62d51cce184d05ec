// Alerts held for quiet hours (#41): kept in the store, so they outlive a restart or a node.
import type { CallForDialing } from '../../core/records.js';
import type { Awaitable } from './awaitable.js';

export interface HeldCallRepo {
  /** Queued alerts held until `until` (a call that is no longer queued is left as it is); the ids held. */
  hold(callIds: readonly string[], until: number, detail: string): Awaitable<string[]>;
  /**
   * Held alerts whose quiet hours ended by `now`, queued again for this node: each held alert is
   * released by exactly one node, an account's batch together (one call).
   */
  releaseDue(now: number): Awaitable<CallForDialing[]>;
  /** How many alerts the account has held, and until when (the soonest). */
  heldFor(userId: string): Awaitable<{ count: number; until: number | null }>;
}
