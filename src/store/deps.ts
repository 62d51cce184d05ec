// What the parts of the service are built from: the store (SQLite or PostgreSQL, behind one
// interface), the call events, the logger and the clock. Passed in, never imported as globals.
import type { CallEvents } from '../core/calls/call-events.js';
import type { Logger } from '../lib/log.js';
import type { Store } from './contract/index.js';

export interface ServiceDeps {
  store: Store;
  events: CallEvents;
  logger: Logger;
  now: () => number;
}
