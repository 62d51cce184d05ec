// Wakes the outbox's sender when this node's changes added deliveries. Every status-callback event
// is written by the store in the same transaction as the step it reports (#55: a call step, an SMS
// result, an accept's call.queued on either store, PostgreSQL's webhook function included), so
// nothing is written here. Changes relayed from other nodes are theirs: their node's sender looks.
import type { CallEvents } from '../core/calls/call-events.js';

export interface FeedDeps {
  events: CallEvents;
  /** Told after a delivery was added (the sender looks at once). */
  onAdded: () => void;
}

export function startCallbackFeed(deps: FeedDeps): { stop(): Promise<void> } {
  const unsubscribe = deps.events.subscribe((change) => {
    if (!change.remote && change.outboxed) deps.onAdded();
  });
  return {
    async stop() {
      unsubscribe();
    },
  };
}
