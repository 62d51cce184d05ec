// Records a call's steps: the transition (only when legal from the state the dialer holds), its
// timeline, and the live event, written through the patient writer so that a database locked by
// another process never blocks the event loop; and tells of every call that reached its end.
import { canTransition, type CallState, type FinalState } from '../core/call-state.js';
import type { CallForDialing, CallProgressStore, TransitionFields } from '../db/call-progress.js';
import type { PatientWriter } from '../db/patient-writes.js';
import type { CallEvents } from '../events.js';
import type { Logger } from '../log.js';

/** A call at its end, as handed to what follows (the SMS backup, metrics). */
export interface FinalCall {
  callId: string;
  userId: string;
  message: string;
  /** The number that was called; null when no call was placed (it never left the queue). */
  phone: string | null;
  state: FinalState;
}

export interface CallLedgerDeps {
  progress: CallProgressStore;
  writes: PatientWriter;
  events: CallEvents;
  logger: Logger;
  now: () => number;
  onFinal: (call: FinalCall) => void;
}

export class CallLedger {
  constructor(private readonly deps: CallLedgerDeps) {}

  /** Moves the call on if the step is legal from its state here, and records it. */
  transition(call: CallForDialing, to: CallState, fields: TransitionFields = {}, detail?: string): boolean {
    if (!canTransition(call.status, to)) return false;
    call.status = to;
    const { callId, userId } = call;
    const { writes, progress, events, logger, now } = this.deps;
    void writes.write(`call ${callId} → ${to}`, () => progress.transition(callId, to, fields, detail)).then(
      (moved) => {
        if (moved) events.emit({ callId, userId, status: to, at: now() });
        else logger.warn('the database refused a call step', { call_id: callId, to });
      },
      (error: Error) => logger.error('could not record a call step', { call_id: callId, to, error }),
    );
    return true;
  }

  /** Ends the call (a legal final step only) and hands it on. */
  end(call: CallForDialing, state: FinalState, fields: TransitionFields, detail: string | undefined, phone: string | null): boolean {
    if (!this.transition(call, state, fields, detail)) return false;
    this.deps.onFinal({ callId: call.callId, userId: call.userId, message: call.message, phone, state });
    return true;
  }

  note(callId: string, event: string, detail: string): void {
    const { writes, progress, logger } = this.deps;
    void writes.write(`call ${callId} ${event}`, () => progress.note(callId, event, detail)).catch((error: Error) => {
      logger.error('could not record a call event', { call_id: callId, event, error });
    });
  }
}
