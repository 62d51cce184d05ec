// The owner's dashboard (issue 5): mounted on the app by createApp.
import type { H3 } from 'h3';
import type { AccountStore } from '../../db/accounts.js';
import type { CallStore } from '../../db/calls.js';
import type { Db } from '../../db/database.js';
import type { CallEvents } from '../../events.js';
import type { Logger } from '../../log.js';

export type TestCallResult = { accepted: true; callId: string } | { accepted: false; retryAfterSeconds: number };

export interface DashboardDeps {
  db: Db;
  accounts: AccountStore;
  calls: CallStore;
  events: CallEvents;
  logger: Logger;
  now: () => number;
  /** Base of the webhook URLs shown to owners. */
  publicUrl: string;
  /** Places a test call to the account's phone (the dialer); absent when telephony is off. */
  placeTestCall?: (userId: string) => TestCallResult;
}

export function mountDashboard(_app: H3, _deps: DashboardDeps): void {
  // Filled in by the dashboard work.
}
