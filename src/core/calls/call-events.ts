// In-process notifications of call changes: the dashboard's live history listens here.
import { EventBus } from '../../lib/event-bus.js';
import type { CallState } from './call-state.js';

export interface CallChange {
  callId: string;
  userId: string;
  /** The call's new state, `sms` when only its SMS backup changed, `refused` for an alert refused and kept in the history. */
  status: CallState | 'held' | 'sms' | 'refused';
  at: number;
  /** Made on another node sharing the store (relayed by the database): not relayed back. */
  remote?: boolean;
  /** Already told to the other nodes by the write that made it (PostgreSQL's webhook function notifies at its commit). */
  announced?: boolean;
  /** Its status-callback events were written to the outbox with it (#55): the sender looks at once. */
  outboxed?: boolean;
}

export class CallEvents extends EventBus<CallChange> {}
