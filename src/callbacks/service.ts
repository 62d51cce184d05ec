// Status callbacks (#41) in the service: the feed that keeps this node's call events in the outbox,
// and the sender that delivers the outbox. Started and stopped with the service, through the entry.
import type { AddressMatcher } from '../core/connections/address-match.js';
import type { CallEvents } from '../core/calls/call-events.js';
import type { Store } from '../store/index.js';
import type { Logger } from '../lib/log.js';
import { startCallbackFeed } from './feed.js';
import { dnsResolver } from './resolve-name.js';
import { CallbackSender } from './sender.js';

export interface CallbacksDeps {
  store: Store;
  events: CallEvents;
  logger: Logger;
  now: () => number;
  allow: AddressMatcher;
  nodeId: string;
  /** Certificate authorities trusted for receivers instead of the system's (tests). */
  ca?: string | undefined;
  /** Name servers for receivers' names instead of the system's (tests' DNS server). */
  dnsServers?: readonly string[] | undefined;
}

export function startCallbacks(deps: CallbacksDeps): { stop(): Promise<void> } {
  const sender = new CallbackSender({
    store: deps.store.callbacks,
    logger: deps.logger,
    now: deps.now,
    allow: deps.allow,
    nodeId: deps.nodeId,
    ca: deps.ca,
    ...(deps.dnsServers && { resolve: dnsResolver({ servers: deps.dnsServers }) }),
  });
  const feed = startCallbackFeed({ ...deps, onAdded: () => sender.wake() });
  sender.start();
  sender.wake();
  return {
    async stop() {
      await feed.stop();
      await sender.stop();
    },
  };
}
