// What the parts of the service are built from: the stores on one database, the call events, the
// logger and the clock. Passed in, never imported as globals.
import type { AccountStore } from './db/accounts.js';
import type { CallStore } from './db/calls.js';
import type { Db } from './db/database.js';
import type { CallEvents } from './events.js';
import type { Logger } from './log.js';

export interface Stores {
  db: Db;
  accounts: AccountStore;
  calls: CallStore;
}

export interface ServiceDeps extends Stores {
  events: CallEvents;
  logger: Logger;
  now: () => number;
}
