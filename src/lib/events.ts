// In-process notifications of call changes: the dashboard's live history listens here.
import { EventEmitter } from 'node:events';
import type { CallState } from '../core/call-state.js';

export interface CallChange {
  callId: string;
  userId: string;
  /** The call's new state, or `sms` when only its SMS backup changed. */
  status: CallState | 'sms';
  at: number;
  /** Made on another node sharing the store (relayed by the database): not relayed back. */
  remote?: boolean;
}

export class CallEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    // One listener per open dashboard page: no fixed ceiling.
    this.emitter.setMaxListeners(0);
  }

  emit(change: CallChange): void {
    this.emitter.emit('change', change);
  }

  /** Returns the function that stops listening. */
  subscribe(listener: (change: CallChange) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}
