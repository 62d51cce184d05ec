// Records a call's steps: the transition (only when legal from the state the call desk holds), its
// timeline, and the live event, written through the patient writer so that a database locked by
// another process never blocks the event loop; and tells of every call that reached its end.
import { fateOfQueued, type QueuedFate } from '../core/calls/call-end.js';
import { canTransition, isFinal, type CallState, type FinalState } from '../core/calls/call-state.js';
import { callbacksFlag, type CallDecision, type CallForDialing, type TransitionFields } from '../core/records.js';
import { readAttempts } from '../core/calls/ring-again.js';
import { expiresAt } from '../core/calls/alert-expiry.js';
import type { ServiceDeps, Store } from '../store/index.js';
import { nextTurn } from '../lib/sleep.js';
import { asReceived, type CallPlaced, expiryOf, type FinalCall, logEnd } from './final-call.js';

export interface CallLedgerDeps extends Omit<ServiceDeps, 'store'> {
  store: Pick<Store, 'progress' | 'writes'>;
  onFinal: (call: FinalCall) => void;
  /** A queued alert older than this is not placed any more (endIfStale). */
  freshnessMs: number;
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
  /** A decision key pressed (#56): written with this step (the call's end) and its call.decision event. */
  decision?: CallDecision | undefined;
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
  decision?: CallDecision | undefined;
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
  /** Each call's carried alerts still to move, in the order their steps came: one entry a call, not one an alert (#51). */
  private readonly carriedSteps: Array<{
    alerts: readonly CallForDialing[];
    next: number;
    to: CallState;
    step: CallStep;
  }> = [];
  private carriedTurn: NodeJS.Timeout | undefined;
  /** Ends handed on whose final step has not landed yet (a failed write, a refused one): settle() records them later. */
  private readonly unrecorded = new Map<string, FinalStep>();

  constructor(private readonly deps: CallLedgerDeps) {}

  /** Moves the call on if the step is legal from its state here, and records it. */
  transition(call: CallForDialing, to: CallState, step: CallStep = {}): boolean {
    return this.move(call, to, step) !== undefined;
  }

  /** transition(), and the write's answer: whether the store moved the step (undefined: not legal here). */
  private move(
    call: CallForDialing,
    to: CallState,
    { fields = {}, detail, decision }: CallStep,
  ): Promise<boolean> | undefined {
    if (!canTransition(call.status, to)) return undefined;
    call.status = to;
    const { callId } = call;
    if (isFinal(to)) this.keepUntilRecorded(callId, { state: to, fields, detail, decision, at: this.deps.now() });
    // A decision is waited for (its "Sent." follows the write): it shares no commit's wait.
    return this.write(call, to, { fields, detail, decision }, { lazy: decision === undefined });
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
    { fields = {}, detail, decision }: CallStep,
    options: { lazy: boolean },
  ): Promise<boolean> {
    const { callId, userId } = call;
    const { store, events, logger, now } = this.deps;
    const { writes, progress } = store;
    const callbacks = callbacksFlag(call.account);
    return writes
      .write(
        `call ${callId} → ${to}`,
        () => progress.step({ callId, to, fields, detail, callbacks, ...(decision && { decision }) }),
        options,
      )
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
  transitionAll(calls: readonly CallForDialing[], to: CallState, step: CallStep = {}): boolean {
    return this.moveAll(calls, to, step) !== undefined;
  }

  /** transitionAll(), and the write's answer for the call's own alert (a decision is its alone). */
  private moveAll(
    calls: readonly CallForDialing[],
    to: CallState,
    { fields = {}, detail, decision }: CallStep,
  ): Promise<boolean> | undefined {
    const call = calls[0];
    const carried = calls.slice(1);
    const moved = call && this.move(call, to, { fields, detail, decision });
    if (!call || !moved) return undefined;
    const step = { fields: { ...fields, carriedBy: call.callId }, detail };
    if (carried.length > 0) this.carriedSteps.push({ alerts: carried, next: 0, to, step });
    this.moveCarried();
    return moved;
  }

  private moveCarried(): void {
    if (this.carriedTurn !== undefined) return;
    let left = CARRIED_SLICE;
    while (left > 0 && this.carriedSteps.length > 0) {
      const batch = this.carriedSteps[0]!;
      const end = Math.min(batch.alerts.length, batch.next + left);
      for (let i = batch.next; i < end; i++) this.transition(batch.alerts[i]!, batch.to, batch.step);
      left -= end - batch.next;
      batch.next = end;
      if (end === batch.alerts.length) this.carriedSteps.shift();
    }
    if (this.carriedSteps.length > 0)
      // After the loop's timers (lib/sleep's nextTurn): the first slice is moved in the end's own stretch.
      this.carriedTurn = setTimeout(() => {
        this.carriedTurn = undefined;
        this.moveCarried();
      }, 0);
  }

  /** Ends a queued alert too old to place (expired at a start, failed while waiting: the SMS backup applies); false when it is fresh. */
  endIfStale(call: CallForDialing, when: 'at start' | 'waiting'): boolean {
    const fate = fateOfQueued(call, this.deps.now(), this.deps.freshnessMs, when);
    if (!fate.dial) this.endUnplaced(call, fate);
    return !fate.dial;
  }

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

  /** Ends the call and the alerts it carried (a legal final step only) and hands them on together. */
  end(calls: CallForDialing | readonly CallForDialing[], ending: CallEnding): boolean {
    return this.finish(Array.isArray(calls) ? calls : [calls as CallForDialing], ending) !== undefined;
  }

  /**
   * Ends the call with the decision pressed on it (#56): its own alert's final step, the decision and
   * its call.decision event are one write. Resolves to whether the store moved that step (another
   * node's end or decision first: false); only then is the decision said to be sent.
   */
  endDecided(calls: readonly CallForDialing[], ending: CallEnding, decision: CallDecision): Promise<boolean> {
    return this.finish(calls, ending, decision) ?? Promise.resolve(false);
  }

  /** A decision refused (#56: the PIN wrong every try): kept on the call and its timeline; nothing is sent. */
  refuseDecision(callId: string, reason: string): void {
    this.record(callId, 'decision', () => this.deps.store.progress.refuseDecision(callId, reason));
  }

  private finish(
    all: readonly CallForDialing[],
    { state, fields, detail, phone, placed }: CallEnding,
    decision?: CallDecision,
  ): Promise<boolean> | undefined {
    const recorded = this.moveAll(all, state, { fields, detail, decision });
    if (!recorded) return undefined;
    const call = all[0]!;
    const carried = all.slice(1);
    logEnd(this.deps, call, carried, state, fields, placed);
    const handOn = () =>
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
    // A quiet-hours batch is handed on in the next turn: its 10,000 alerts read for the SMS were 10 ms of
    // the end's turn (#51); its SMS is planned later still (sms/backup.ts).
    if (carried.length > CARRIED_SLICE) void nextTurn().then(handOn);
    else handOn();
    return recorded;
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
  private record(callId: string, event: string, write: () => unknown): void {
    void this.deps.store.writes.write(`call ${callId} ${event}`, write, { lazy: true }).catch((error: Error) => {
      this.deps.logger.error('could not record a call event', { call_id: callId, event, error });
    });
  }
}
