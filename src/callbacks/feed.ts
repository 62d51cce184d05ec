// Turns this node's call changes into outbox deliveries for accounts with a callback URL. Changes
// relayed from other nodes are theirs to add; a change announced twice adds its event once (the
// outbox's event key). Writes are made one after another, so a call's events keep their order.
import type { CallChange, CallEvents } from '../core/calls/call-events.js';
import { callbackBody, callbackEventsFor, newCallbackMessageId } from '../core/callbacks/callback-events.js';
import type { Store } from '../store/contract/index.js';
import type { Logger } from '../lib/log.js';

export interface FeedDeps {
  store: Pick<Store, 'calls' | 'callbacks'>;
  events: CallEvents;
  logger: Logger;
  now: () => number;
  /** Told after a delivery was added (the sender looks at once). */
  onAdded: () => void;
}

export function startCallbackFeed(deps: FeedDeps): { stop(): Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  const unsubscribe = deps.events.subscribe((change) => {
    // An account without a callback URL costs its alerts nothing here: no read, no outbox row.
    if (change.remote || change.noCallback || change.status === 'dialing' || change.status === 'refused') return;
    chain = chain.then(() =>
      addEvents(deps, change).catch((error: Error) =>
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

async function addEvents(deps: FeedDeps, change: CallChange): Promise<void> {
  // Held for quiet hours: no event of its own (call.queued came with it; the rest follow its call).
  if (change.status === 'held') return;
  const settings = await deps.store.callbacks.settings(change.userId);
  if (!settings?.url) return;
  const call = await deps.store.calls.get(change.callId);
  if (!call) return;
  let added = false;
  for (const event of callbackEventsFor(change.status, call)) {
    const createdAt = deps.now();
    added =
      (await deps.store.callbacks.enqueue({
        messageId: newCallbackMessageId(),
        eventKey: event.key,
        userId: change.userId,
        callId: event.callId,
        type: event.type,
        body: callbackBody(event.type, createdAt, event.data),
        createdAt,
      })) || added;
  }
  if (added) deps.onAdded();
}
