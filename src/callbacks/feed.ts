// Wakes the outbox's sender when this node's changes added deliveries, and keeps the one event that
// a store may not write with its step: call.queued of an alert received by PostgreSQL's webhook
// function, added once the alert's acceptance is recorded (#55: every other event, and an accept's
// call.queued on SQLite (#58), is written by the store in the same transaction as the step it reports).
// Changes relayed from other nodes are theirs; an event added twice is kept once (the outbox's event key).
import type { CallChange, CallEvents } from '../core/calls/call-events.js';
import type { Store } from '../store/index.js';
import type { Logger } from '../lib/log.js';

export interface FeedDeps {
  store: Pick<Store, 'progress'>;
  events: CallEvents;
  logger: Logger;
  /** Told after a delivery was added (the sender looks at once). */
  onAdded: () => void;
}

export function startCallbackFeed(deps: FeedDeps): { stop(): Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  const unsubscribe = deps.events.subscribe((change) => {
    if (change.remote) return;
    if (change.outboxed) {
      deps.onAdded();
      return;
    }
    // An account without a callback URL costs its alerts nothing here: no read, no outbox row.
    if (change.status !== 'queued' || change.noCallback) return;
    chain = chain.then(() =>
      addQueued(deps, change).catch((error: Error) =>
        deps.logger.error('could not keep a status callback', { call_id: change.callId, error }),
      ),
    );
  });
  return {
    async stop() {
      unsubscribe();
      await chain;
    },
  };
}

async function addQueued(deps: FeedDeps, change: CallChange): Promise<void> {
  if ((await deps.store.progress.outboxAfter(change.callId, 'queued')) > 0) deps.onAdded();
}
