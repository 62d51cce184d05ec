// What the parts of the service are built from: the store (SQLite or PostgreSQL, behind one
// interface), the call events, the logger and the clock. Passed in, never imported as globals.
import type { Store } from '../store/contract.js';
import type { CallEvents } from './events.js';
import type { Logger } from './log.js';

export type Stores = Store;

export interface ServiceDeps extends Stores {
  events: CallEvents;
  logger: Logger;
  now: () => number;
}
