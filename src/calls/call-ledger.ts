// Records a call's steps: the transition (only when legal from the state the call desk holds), its
// timeline, and the live event, written through the patient writer so that a database locked by
// another process never blocks the event loop; and tells of every call that reached its end.
import type { QueuedFate } from '../core/calls/call-end.js';
import { canTransition, isFinal, type CallState, type FinalState } from '../core/calls/call-state.js';
import { callbacksFlag, type CallAccountFlags, type CallForDialing, type TransitionFields } from '../core/records.js';
import { withCutMark } from '../core/webhook/payload.js';
import { readAttempts } from '../core/calls/ring-again.js';
import { expiresAt } from '../core/calls/alert-expiry.js';
import type { ServiceDeps, Store } from '../store/index.js';

/** A call at its end, as handed to what follows (the SMS backup, metrics); a message the webhook cut ends with "...". */
export interface FinalCall {
  callId: string;
  userId: string;
  message: string;
  /** The number that was called; null when no call was placed (it never left the queue). */
  phone: string | null;
  state: FinalState;
  /** Alerts that waited for the line and rode along in the same call: they share its end and its SMS. */
  carried: Array<{ callId: string; message: string; expiresAt?: number }>;
  /** The alert's own expiry (core/calls/alert-expiry): its SMS is not sent after it. */
  expiresAt?: number;
  /** The backup person's verification call (core/calls/backup-person): their 1 makes the number `verified`; it has no SMS backup. */
  verification?: true;
  /** When the end was recorded, for a call whose SMS is decided later (after a restart); now when absent. */
  endedAt?: number;
  /** Its account's flags as read with the call (#55): the SMS backup reads nothing again. Absent: read then. */
  account?: CallAccountFlags | null | undefined;
}

/** How a call went out: when it was dialed, through which trunk (or to the local softphone). */
export interface CallPlaced {
  dialedAt: number;
  trunk?: string | undefined;
  softphone?: string | undefined;
}

export interface CallLedgerDeps extends Omit<ServiceDeps, 'store'> {
  store: Pick<Store, 'progress' | 'writes'>;
  onFinal: (call: FinalCall) => void;
  /**
   * A fault for the crash tests only (RINGHOOK_TEST_FAULT_PAUSE_AFTER_STEP_MS): waits after a step was
   * recorded, before anyone is told of it, so that a kill -9 can land between the two.
   */
  faultPauseAfterStep?: (() => Promise<void>) | undefined;
}

/** A step of a call: its fields, and the detail on its timeline. */
export interface CallStep {
  fields?: TransitionFields;
  detail?: string | undefined;
}

/** How a call ends: its final state, what is recorded with it, and the number called (null: none was). */
export interface CallEnding {
  state: FinalState;
  fields: TransitionFields;
  detail?: string | undefined;
  phone: string | null;
  /** How the call went out, for the log line; none when it never left the queue. */
  placed?: CallPlaced | undefined;
}

interface FinalStep {
  state: FinalState;
  fields: TransitionFields;
  detail: string | undefined;
  /** When it was decided: one whose row another node ended meanwhile is never swept here, and is forgotten after a while. */
  at: number;
  /** When settle() last wrote it: a store that keeps failing (a full disk) is not asked at every look. */
  triedAt?: number;
}

const SETTLE_RETRY_MS = 5_000;
/** The alerts riding along in a call claimed together at most. */
const CLAIM_SLICE = 200;
/** Carried alerts moved a step in one turn at most. */
const CARRIED_SLICE = 200;
const UNRECORDED_KEPT_MS = 15 * 60_000;

export class CallLedger {
  /** Steps of carried alerts waiting for their turn (transitionAll), in order. */
  private readonly carriedSteps: Array<{ alert: CallForDialing; to: CallState; step: CallStep }> = [];
  private carriedTurn: NodeJS.Immediate | undefined;
  /** Ends handed on whose final step has not landed yet (a failed write, a refused one): settle() records them later. */
  private readonly unrecorded = new Map<string, FinalStep>();

  constructor(private readonly deps: CallLedgerDeps) {}

  /** Moves the call on if the step is legal from its state here, and records it. */
  transition(call: CallForDialing, to: CallState, { fields = {}, detail }: CallStep = {}): boolean {
    if (!canTransition(call.status, to)) return false;
    call.status = to;
    const { callId } = call;
    if (isFinal(to)) this.keepUntilRecorded(callId, { state: to, fields, detail, at: this.deps.now() });
    this.write(call, to, { fields, detail }, { lazy: true });
    return true;
  }

  private keepUntilRecorded(callId: string, step: FinalStep): void {
    for (const [id, kept] of this.unrecorded) {
      if (step.at - kept.at < UNRECORDED_KEPT_MS) break;
      this.unrecorded.delete(id);
    }
    this.unrecorded.set(callId, step);
  }

  /** The step and its status-callback events, in one store call (#55). */
  private write(
    call: Pick<CallForDialing, 'callId' | 'userId' | 'account'>,
    to: CallState,
    { fields = {}, detail }: CallStep,
    options: { lazy: boolean },
  ): Promise<boolean> {
    const { callId, userId } = call;
    const { store, events, logger, now } = this.deps;
    const { writes, progress } = store;
    const callbacks = callbacksFlag(call.account);
    return writes
      .write(`call ${callId} → ${to}`, () => progress.step({ callId, to, fields, detail, callbacks }), options)
      .then(
        async ({ moved, outboxed }) => {
          if (moved) {
            await this.deps.faultPauseAfterStep?.();
            events.emit({ callId, userId, status: to, at: now(), ...(outboxed > 0 && { outboxed: true }) });
            if (isFinal(to)) this.unrecorded.delete(callId);
          } else logger.warn('the database refused a call step', { call_id: callId, to });
          return moved;
        },
        (error: Error) => {
          logger.error('could not record a call step', { call_id: callId, to, error });
          return false;
        },
      );
  }

  /**
   * A call the store still shows in progress whose end was decided here and handed on, but not
   * recorded: that end is written again (through `answered` when the step to it was lost too), and
   * not handed on a second time. False when no end of it was decided here.
   */
  settle(call: CallForDialing): boolean {
    const end = this.unrecorded.get(call.callId);
    if (!end) return false;
    const direct = canTransition(call.status, end.state);
    if (!direct && !(canTransition(call.status, 'answered') && canTransition('answered', end.state))) {
      this.unrecorded.delete(call.callId);
      return false;
    }
    const now = this.deps.now();
    if (end.triedAt !== undefined && now - end.triedAt < SETTLE_RETRY_MS) return true;
    end.triedAt = now;
    const via: CallState[] = direct ? [] : ['answered'];
    void (async () => {
      for (const step of via) if (!(await this.write(call, step, { detail: end.detail }, { lazy: false }))) return;
      await this.write(call, end.state, end, { lazy: false });
    })();
    return true;
  }

  /**
   * Moves the alerts of one call to dialing and waits until the store took each step: with several
   * nodes sharing the store only one may dial an alert, and a phone's line is taken by one call.
   * Returns the alerts taken, the call's own first; none when its own was not taken.
   */
  async claim(calls: readonly CallForDialing[], fields: TransitionFields, detail?: string): Promise<CallForDialing[]> {
    const [own, ...riders] = calls;
    if (!own || !(await this.claimOne(own, fields, detail))) return [];
    const taken: CallForDialing[] = [own];
    const carried = { ...fields, carriedBy: own.callId };
    // The alerts riding along, CLAIM_SLICE at a time: asked for in one turn, they land in one
    // transaction (a quiet-hours batch of 10,000 took 10,000 turns one by one).
    for (let i = 0; i < riders.length; i += CLAIM_SLICE) {
      const slice = riders.slice(i, i + CLAIM_SLICE);
      const moved = await Promise.all(slice.map((call) => this.claimOne(call, carried, detail)));
      slice.forEach((call, j) => {
        if (moved[j]) taken.push(call);
      });
    }
    return taken;
  }

  private async claimOne(call: CallForDialing, fields: TransitionFields, detail: string | undefined): Promise<boolean> {
    const { store, events, logger, now } = this.deps;
    const { writes, progress } = store;
    const moved =
      canTransition(call.status, 'dialing') &&
      (await writes
        .write(`call ${call.callId} → dialing`, () => progress.transition(call.callId, 'dialing', fields, detail))
        .catch((error: Error) => {
          logger.error('could not record a call step', { call_id: call.callId, to: 'dialing', error });
          return false;
        }));
    if (!moved) return false;
    call.status = 'dialing';
    events.emit({ callId: call.callId, userId: call.userId, status: 'dialing', at: now() });
    return true;
  }

  /**
   * Moves every alert of one call on: its own alert with `fields`, the others marked as carried by
   * it. Beyond CARRIED_SLICE the others are moved a slice a turn, in the order their steps came
   * (a quiet-hours batch carries thousands: all at once held the event loop).
   */
  transitionAll(calls: readonly CallForDialing[], to: CallState, { fields = {}, detail }: CallStep = {}): boolean {
    const [call, ...carried] = calls;
    if (!call || !this.transition(call, to, { fields, detail })) return false;
    const step = { fields: { ...fields, carriedBy: call.callId }, detail };
    for (const alert of carried) this.carriedSteps.push({ alert, to, step });
    this.moveCarried();
    return true;
  }

  private moveCarried(): void {
    if (this.carriedTurn !== undefined) return;
    for (const { alert, to, step } of this.carriedSteps.splice(0, CARRIED_SLICE)) this.transition(alert, to, step);
    if (this.carriedSteps.length > 0)
      this.carriedTurn = setImmediate(() => {
        this.carriedTurn = undefined;
        this.moveCarried();
      });
  }

  /** Ends the call and the alerts it carried (a legal final step only) and hands them on together. */
  /** Ends a queued alert too old to place, as its fate says (core/calls/call-end's queuedFate); the SMS backup applies. */
  endUnplaced(call: CallForDialing, fate: Exclude<QueuedFate, { dial: true }>): void {
    const { state, error, reasonDetail, returnsAllowance } = fate;
    const endedAt = this.deps.now();
    this.end(call, {
      state,
      fields: { endedAt, error, returnsAllowance, ...(reasonDetail && { reasonDetail }) },
      phone: null,
    });
  }

  end(
    calls: CallForDialing | readonly CallForDialing[],
    { state, fields, detail, phone, placed }: CallEnding,
  ): boolean {
    const all = Array.isArray(calls) ? calls : [calls as CallForDialing];
    if (!this.transitionAll(all, state, { fields, detail })) return false;
    const [call, ...carried] = all as [CallForDialing, ...CallForDialing[]];
    this.logEnd(call, carried, state, fields, placed);
    this.deps.onFinal({
      callId: call.callId,
      userId: call.userId,
      message: asReceived(call),
      phone,
      state,
      // An alert whose message and expiry the SMS reads as they are is handed on as it is: a
      // quiet-hours batch's 10,000 new objects in the end's turn were 10 ms and a collection (#51).
      carried: carried.map((c) =>
        c.messageTruncated || expiresAt(c) !== undefined
          ? { callId: c.callId, message: asReceived(c), ...expiryOf(c) }
          : c,
      ),
      ...expiryOf(call),
      ...(call.account !== undefined && { account: call.account }),
      ...(call.kind === 'test' && call.dialTo && { verification: true }),
    });
    return true;
  }

  /** One line per call at its end, at info: its outcome, why, how long, through which trunk; never its text nor the number. */
  private logEnd(
    call: CallForDialing,
    carried: readonly CallForDialing[],
    state: FinalState,
    fields: TransitionFields,
    placed: CallPlaced | undefined,
  ): void {
    const endedAt = fields.endedAt ?? this.deps.now();
    this.deps.logger.info('call ended', {
      call_id: call.callId,
      user_id: call.userId,
      outcome: state,
      reason: fields.error ?? null,
      reason_detail: fields.reasonDetail ?? null,
      duration_ms: placed ? Math.max(0, endedAt - placed.dialedAt) : null,
      ...(fields.talkMs !== undefined && { talk_ms: fields.talkMs }),
      trunk: placed?.trunk ?? null,
      ...(placed?.softphone !== undefined && { softphone: placed.softphone }),
      // A quiet-hours batch carries thousands: the first ten named, and how many.
      ...(carried.length > 0 && { carried: carried.slice(0, 10).map((c) => c.callId) }),
      ...(carried.length > 10 && { carried_count: carried.length }),
    });
  }

  /**
   * The call missed its person and its alerts are rung again later (core/calls/ring-again): each waits
   * queued until `at`, its attempt and the one just missed recorded, so that whichever node or
   * restart finds it due places it, once. The first miss is handed on to the SMS backup.
   */
  ringAgain(
    calls: readonly CallForDialing[],
    { state, fields, detail, phone }: CallEnding,
    next: { attempt: number; at: number; dialedAt: number; dialTo?: string },
    onFirstMiss: ((call: FinalCall) => void) | undefined,
  ): boolean {
    const [call, ...carried] = calls;
    if (!call) return false;
    const missed = `attempt ${next.attempt - 1} ended ${state}${fields.error ? ` (${fields.error})` : ''}${detail ? `: ${detail}` : ''}`;
    this.deps.logger.info('call missed: rung again', {
      call_id: call.callId,
      user_id: call.userId,
      outcome: state,
      attempt: next.attempt - 1,
      next_at: new Date(next.at).toISOString(),
      ...(carried.length > 0 && { carried: carried.map((c) => c.callId) }),
    });
    let moved = false;
    for (const alert of calls) {
      const attempts = JSON.stringify([...readAttempts(alert.attempts), { at: next.dialedAt, outcome: state }]);
      this.note(alert.callId, 'attempt', missed);
      const step = { attempt: next.attempt, retryAt: next.at, attempts, ...(next.dialTo && { dialTo: next.dialTo }) };
      const to = next.dialTo ? ' to the backup person' : '';
      if (
        this.transition(alert, 'queued', {
          fields: step,
          detail: `attempt ${next.attempt}${to} at ${new Date(next.at).toISOString()}`,
        })
      ) {
        Object.assign(alert, step);
        moved = true;
      }
    }
    if (moved && next.attempt === 2)
      onFirstMiss?.({
        callId: call.callId,
        userId: call.userId,
        message: call.message,
        phone,
        state,
        carried: carried.map((c) => ({ callId: c.callId, message: c.message, ...expiryOf(c) })),
        ...expiryOf(call),
        ...(call.account !== undefined && { account: call.account }),
      });
    return moved;
  }

  /** An alert waiting to be rung again that a newer alert for its phone overtook: it ends as its last call did (core/calls/ring-again). */
  endRetry(call: CallForDialing, lastOutcome: FinalState): boolean {
    const detail = 'not called again: a newer alert rings this phone';
    return this.end(call, { state: lastOutcome, fields: { endedAt: this.deps.now() }, detail, phone: call.phone });
  }

  /** Records answering-machine detection's verdict on every alert of the call. */
  detection(calls: readonly CallForDialing[], status: string, cause: string): void {
    for (const { callId } of calls)
      this.record(callId, 'amd', () => this.deps.store.progress.recordDetection(callId, status, cause));
  }

  /** Every alert of the call goes out again through another trunk. */
  placedAgain(
    calls: readonly CallForDialing[],
    placement: { trunk: string; channelId: string; dialedAt: number },
    detail: string,
  ): void {
    for (const { callId } of calls)
      this.record(callId, 'trunk', () => this.deps.store.progress.placedAgain(callId, placement, detail));
  }

  note(callId: string, event: string, detail: string): void {
    this.record(callId, event, () => this.deps.store.progress.note(callId, event, detail));
  }

  /** A write that is not a state change, through the patient writer; a failure is logged. */
  private record(callId: string, event: string, write: () => void): void {
    void this.deps.store.writes.write(`call ${callId} ${event}`, write, { lazy: true }).catch((error: Error) => {
      this.deps.logger.error('could not record a call event', { call_id: callId, event, error });
    });
  }
}

/** The message as its SMS shows it: one the webhook cut at its limit ends with "...". */
const asReceived = (call: CallForDialing): string => withCutMark(call.message, call.messageTruncated);

/** An alert's own expiry, as the SMS backup reads it (absent: none). */
function expiryOf(call: CallForDialing): { expiresAt?: number } {
  const at = expiresAt(call);
  return at === undefined ? {} : { expiresAt: at };
}
