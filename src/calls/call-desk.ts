// The one owner of call state: the queue, the pace, the calls in progress (their sessions), the
// ledger that records their steps, the alerts being claimed (their phone's line is taken), and
// whether ringhook is stopping. Its parts are each given only what they use, never the desk, and
// never call back into it: they return what happened (a placement, a flow action, recovery's
// findings, released alerts), and the desk alone applies it (apply, applyPlacement, end). One
// session per call, exactly one attempt each (a call the first trunk did not take is a new
// placement through the backup trunk: core/calls/backup-trunk), a cap on concurrent calls, one line
// per phone (alerts that wait for their phone's line ride along in its next call: core/calls/line),
// paced to the provider, the speech planned before the call is placed.
import { afterStop } from '../core/calls/backup-trunk.js';
import type { CallStop } from '../core/calls/call-end.js';
import { nextCalls } from '../core/calls/line.js';
import type { CallReason } from '../core/reasons.js';
import type { CallForDialing } from '../core/records.js';
import { nextTurn, settledOrAfter, turnByTurn } from '../lib/sleep.js';
import type { AriEvent, Endpoint } from '../pbx/index.js';
import { SpeechPlanner } from '../speech/index.js';
import { type ClaimDeps, type ClaimedCall, claimCall, makeMessage } from './call-claim.js';
import { CallFlow, type FlowAction } from './call-flow.js';
import { CallLedger } from './call-ledger.js';
import { type Placement, place, putBack } from './call-placement.js';
import { CallQueue } from './call-queue.js';
import {
  hangUpAtStop,
  interrupt,
  reconcileAfterReconnect,
  reconcilePages,
  type RecoveryDeps,
  recoverAtStart,
} from './call-recovery.js';
import { CallScript } from './call-script.js';
import { releaseHeld } from './quiet-hours.js';
import { alertsOf, arm, backupTrunkSession, type CallSession, CallSessions, factsOf } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';
import { hangUp } from './hang-up.js';
import { StartingCalls } from './alert-index.js';
import { LineSpeech } from './line-speech.js';
import { Pacer } from './pacer.js';
import { DueLater, phoneTaken, ringAgainAfter } from './ring-again.js';
import {
  type JustQueued,
  loadWaitingAlert,
  type QueuedAlert,
  waitingAlert,
  waitingAlertsInSlices,
} from './waiting-alerts.js';

/** After ringhook hangs a call up, how long Asterisk has to report the channel's end. */
const HANGUP_CONFIRM_MS = 15_000;

export class CallDesk {
  private readonly queue = new CallQueue();
  private readonly sessions = new CallSessions();
  private readonly pacer: Pacer;
  private readonly ledger: CallLedger;
  private readonly script: CallScript;
  private readonly speech: SpeechPlanner;
  private readonly flow: CallFlow;
  /** What each part is given (only what it uses). */
  private readonly claimDeps: ClaimDeps;
  private readonly recoveryDeps: RecoveryDeps;
  /** Speech made ahead for the alerts next in line. */
  private readonly ahead: LineSpeech;
  /** The queued alerts as the line rule sees them, loaded once when they join the queue. */
  private readonly waiting = new Map<string, QueuedAlert>();
  /** Calls placed again through the backup trunk, placed by the next pump: an end never places a call itself. */
  private readonly placingAgain: Array<{ session: CallSession; endpoint: Endpoint }> = [];
  private readonly starting = new StartingCalls();
  private readonly dueLater: DueLater; // missed calls rung again: each queued when due (ring-again.ts)
  private stopping = false;
  /** Batches being queued together: no line is looked at meanwhile (enqueueTogether). */
  private gathering = 0;
  /** Settles when stop() begins: calls held before they are placed stop waiting. */
  private readonly stopped: Promise<void>;
  private signalStop: () => void = () => {};

  constructor(private readonly settings: DialerSettings) {
    this.stopped = new Promise((resolve) => {
      this.signalStop = resolve;
    });
    const { now, tts, burstVoice, callsPerSecond } = settings;
    this.ledger = new CallLedger(settings);
    this.dueLater = new DueLater(now, (callId) => this.enqueue(callId));
    this.pacer = new Pacer(callsPerSecond, now, () => this.pump());
    this.speech = new SpeechPlanner({ tts, burstVoice, callsPerSecond, waiting: () => this.queue.length });
    const { ledger, sessions, queue, pacer, speech } = this;
    const isActive = (session: CallSession) => this.isActive(session);
    this.script = new CallScript({ settings, ledger, isActive, outcome: (session, o) => this.apply(session, o) });
    this.flow = new CallFlow({ settings, ledger, sessions, pacer, script: this.script, isActive });
    this.claimDeps = { settings, ledger, sessions, speech, isStopping: () => this.stopping };
    const isStarting = (callId: string) => this.starting.has(callId);
    this.recoveryDeps = { settings, ledger, sessions, queue, flow: this.flow, isStarting };
    this.ahead = new LineSpeech(settings);
  }

  /** Calls in progress (a call may carry several alerts). */
  get activeCalls(): number {
    return this.sessions.size;
  }

  /** Alerts waiting for a line. */
  get queuedCalls(): number {
    return this.queue.length;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** One of Asterisk's events, for the call it is about (call-flow.ts). */
  route(event: AriEvent): void {
    const routed = this.flow.route(event);
    if (routed) this.apply(routed.session, routed.action);
  }

  /** What a call's events or its script came to (call-flow.ts, call-script.ts), applied here alone; for a decision (#56): whether its end was recorded. */
  private apply(session: CallSession, action: FlowAction): Promise<boolean> | undefined {
    if (action.act === 'hang up') void this.hangup(session, action.why);
    else if (action.act === 'decision refused') this.ledger.refuseDecision(session.call.callId, action.why);
    else return this.end(session, action.act === 'end' ? action.stop : { kind: 'decided', decision: action });
    return undefined;
  }

  /** Held alerts whose quiet hours ended, queued together, an account's before the next is read (quiet-hours.ts); how many. */
  async releaseHeld(): Promise<number> {
    const release = releaseHeld({ settings: this.settings });
    for (let batch = await release.next(); ; batch = await release.next()) {
      if (batch.done) return batch.value;
      if ('alone' in batch.value) for (const callId of batch.value.alone) this.enqueue(callId);
      else await this.enqueueTogether(batch.value.together);
    }
  }

  /** At start: what a previous process left (call-recovery.ts). */
  async recoverAtStart(): Promise<void> {
    for (const callId of await recoverAtStart(this.recoveryDeps)) this.enqueue(callId);
  }

  /** Regularly: the store's view of the calls in flight against the desk's, applied a page at a time (call-recovery.ts). */
  async reconcile(): Promise<void> {
    const pages = reconcilePages(this.recoveryDeps);
    for (let page = await pages.next(); ; page = await pages.next()) {
      if (page.done) {
        if (!page.value) return; // cut short: steps wait for the database
        for (const callId of page.value) this.queue.remove(callId);
        break;
      }
      for (const callId of page.value.notQueued) this.queue.remove(callId);
      for (const call of page.value.queued) {
        this.enqueue(call.callId);
        if (this.queue.has(call.callId) && this.ledger.endIfStale(call, 'waiting')) this.queue.remove(call.callId);
      }
    }
    this.pump();
  }

  /** After the events connection came back: events may have been lost meanwhile (call-recovery.ts). */
  async reconcileAfterReconnect(): Promise<void> {
    for (const { session, found } of await reconcileAfterReconnect(this.recoveryDeps))
      if (found === 'lost') this.end(session, { kind: 'lost' });
      else if (this.isActive(session)) this.flow.answered(session);
    this.pump();
  }

  /** Ends calls in progress with nothing behind them (a dead node's): interrupted, never redialed. */
  interrupt(calls: readonly CallForDialing[], why: CallReason): void {
    interrupt(this.recoveryDeps, calls, why);
  }

  /** Lets active calls end by themselves up to graceMs, then hangs them up; those still going end `stopped` (the SMS backup applies). */
  async endAtStop(graceMs: number): Promise<void> {
    for (const session of await hangUpAtStop(this.recoveryDeps, graceMs)) this.end(session, { kind: 'stopped' });
  }

  /** Is the call still going (it may have ended while something was awaited)? */
  private isActive(session: CallSession): boolean {
    return this.sessions.has(session.call.callId);
  }

  /** Stops taking calls: nothing more is placed, and calls held for their speech stop waiting. */
  stop(): void {
    this.stopping = true;
    this.signalStop();
    this.pacer.stop();
    this.dueLater.clear();
  }

  /**
   * A call was accepted: the alert just queued with the account it was read with (by the webhook
   * or a test call: not read again), or the id of one found queued in the store. Dialed as soon as
   * a line is free.
   */
  enqueue(alert: string | JustQueued): void {
    const callId = typeof alert === 'string' ? alert : alert.callId;
    if (this.stopping || this.sessions.has(callId) || this.starting.has(callId) || this.dueLater.has(callId)) return;
    if (!this.queue.add(callId)) return;
    if (typeof alert !== 'string' && !this.waiting.has(callId)) this.waiting.set(callId, waitingAlert(alert));
    if (this.waiting.has(callId)) {
      this.pump();
      return;
    }
    const { store, logger } = this.settings;
    loadWaitingAlert(callId, store).then(
      (alert) => {
        if (!alert) this.queue.remove(callId);
        else if (this.dueLater.takes(callId, alert.retryAt)) this.queue.remove(callId);
        else if (alert.retry && phoneTaken(alert.phone, this.sessions.all(), this.waiting.values())) {
          this.queue.remove(callId); // a newer alert rings that phone: it carries the news (core/calls/ring-again)
          this.ledger.endRetry(alert.retry.call, alert.retry.lastOutcome);
        } else if (this.queue.has(callId)) this.waiting.set(callId, alert);
        this.pump();
      },
      (error: Error) => {
        // Out of the queue, so that the next look at the store brings it back.
        this.queue.remove(callId);
        logger.warn('could not read a queued call; it is tried again shortly', { call_id: callId, error });
      },
    );
  }

  /** Alerts released together (quiet hours): all queued, 1,000 a turn, before their line is looked at in the next, so that one call carries them (#51: an entry in a map costs ~1 µs here, alert-index.ts). */
  async enqueueTogether(alerts: readonly JustQueued[]): Promise<void> {
    const ready = await waitingAlertsInSlices(alerts);
    this.gathering++;
    for await (const slice of turnByTurn(ready, 1_000))
      for (const alert of slice) {
        if (this.stopping || this.sessions.has(alert.callId) || this.starting.has(alert.callId)) continue;
        if (this.queue.add(alert.callId)) this.waiting.set(alert.callId, alert);
      }
    if (alerts.length > 1) await nextTurn();
    this.gathering--;
    this.pump();
  }

  /** A line may be free: more calls are placed, and speech is made ahead for those next in line. */
  pump(): void {
    for (const { session, endpoint } of this.placingAgain.splice(0)) void this.place(session, endpoint);
    if (this.stopping || !this.settings.ari.isConnected) return;
    if (this.waiting.size > this.queue.length)
      for (const id of this.waiting.keys()) if (!this.queue.has(id)) this.waiting.delete(id);
    this.placeNext();
    this.speakAhead();
  }

  private placeNext(): void {
    if (this.gathering > 0) return;
    const busy = this.sessions.size + this.starting.size;
    const freeLines = Math.min(this.settings.maxConcurrent - busy, this.pacer.allowed(this.queue.length > 0));
    if (freeLines <= 0 || this.queue.length === 0) return;
    // Oldest first: nothing is dialed past an alert still being read (it may ride with the others).
    const waiting: QueuedAlert[] = [];
    for (const id of this.queue.ids()) {
      const alert = this.waiting.get(id);
      if (!alert) break;
      waiting.push(alert);
    }
    const busyPhones = new Set([...this.sessions.phones(), ...this.starting.phones()]);
    for (const call of nextCalls(waiting, busyPhones, freeLines)) {
      this.queue.takeAll(call.map((alert) => alert.callId));
      // What waits is all queued: with the queue empty, nothing is left to forget one by one.
      if (this.queue.length === 0) this.waiting.clear();
      else for (const alert of call) this.waiting.delete(alert.callId);
      this.ahead.forget(call);
      this.pacer.started(call[0]!.callId);
      void this.dial(call);
    }
  }

  /** Speech for the alerts next in line, made while an engine is free (line-speech.ts). */
  private speakAhead(): void {
    if (this.stopping || !this.settings.ari.isConnected) return;
    this.ahead.next(this.queue, this.waiting, () => this.speakAhead());
  }

  /** Places one call for the alerts given (the first is the call's own, the others ride along). */
  private async dial(alerts: readonly QueuedAlert[]): Promise<void> {
    this.starting.start(alerts);
    try {
      let claimed: ClaimedCall | undefined;
      try {
        claimed = await claimCall(this.claimDeps, alerts);
      } finally {
        // From here the call's session (if any) holds the line and counts as a call in progress.
        this.starting.done(alerts);
      }
      if (claimed) await this.speakAndPlace(claimed);
      else this.pacer.cancelled(alerts[0]!.callId);
    } catch (error) {
      this.settings.logger.error('could not place a call', { call_id: alerts[0]?.callId, error });
    } finally {
      this.pump();
    }
  }

  private async speakAndPlace(claimed: ClaimedCall): Promise<void> {
    const { session, endpoint, holdMs } = claimed;
    const call = session.call;
    const speechFailed = makeMessage(this.claimDeps, claimed);
    // The call's fixed phrases are made while it is set up, so that an answer is spoken to at once.
    this.script.prepare(session);
    if (holdMs > 0) {
      await settledOrAfter(Promise.race([session.messageMedia, this.stopped]), holdMs);
      if (!this.sessions.has(call.callId)) return;
      // Counted against the pace from now: a hold longer than the pacer waits for a call to dial
      // must not let its INVITE go uncounted.
      if (!this.stopping) this.pacer.started(call.callId);
    }
    // Stopped while held, or while the claim waited for the database: nothing was dialed, and the
    // alerts are queued again, for the next start within their freshness.
    if (this.stopping) {
      putBack({ sessions: this.sessions, ledger: this.ledger }, session, 'ringhook stopped before the call was placed');
      this.pacer.cancelled(call.callId);
      return;
    }
    // Held for speech that could not be made: the phone is not rung only to be hung up on at its
    // answer; the call fails now, and its SMS backup goes out.
    const failed = speechFailed();
    if (failed) {
      this.pacer.cancelled(call.callId);
      this.end(session, {
        kind: 'given-up',
        why: `its speech could not be made: ${failed.message}`,
        reason: 'speech_failed',
      });
      return;
    }
    await this.place(session, endpoint);
  }

  /** Places the call (call-placement.ts) and applies Asterisk's answer. */
  private async place(session: CallSession, endpoint: Endpoint): Promise<void> {
    arm(session, (this.settings.ringTimeoutSec + 15) * 1000, () => this.giveUp(session));
    this.applyPlacement(session, await place(this.settings, session, endpoint));
  }

  /** Placed; ended (its one attempt); or nothing dialed (Asterisk down or stopping): its alerts wait in the queue again, within their freshness. */
  private applyPlacement(session: CallSession, placement: Placement): void {
    if (placement.placed) this.queue.taken(alertsOf(session));
    else if ('outcome' in placement) this.end(session, placement.outcome);
    else
      for (const callId of putBack({ sessions: this.sessions, ledger: this.ledger }, session, placement.waitFor))
        this.queue.holdBack(callId, (id) => this.enqueue(id));
  }

  /** No final event came after the ring timeout, and never answered: the call ends failed rather than left hanging. */
  private giveUp(session: CallSession): void {
    if (session.line.answeredAt !== undefined) return;
    const why = 'no final event from Asterisk after the ring timeout';
    void hangUp(this.settings, session.channelId, { why, callId: session.call.callId });
    this.end(session, { kind: 'given-up', why });
  }

  /**
   * The call is over. Its alerts go out again through the backup trunk, as a new call placed by the
   * next pump, when the first trunk did not take it; otherwise its end is recorded and handed on with
   * every alert it carried. Both are decided at once in core (core/calls/backup-trunk, core/calls/call-end).
   */
  private end(session: CallSession, stop: CallStop): Promise<boolean> | undefined {
    if (!this.isActive(session)) return undefined;
    let recorded: Promise<boolean> | undefined;
    this.pacer.dialed(session.call.callId);
    this.sessions.remove(session);
    const { now, backupEndpointFor } = this.settings;
    const backup = backupEndpointFor?.(session.phone);
    const next = afterStop(factsOf(session), stop, {
      backupTrunk: backup && (backup.trunk ?? backup.resource),
      stopping: this.stopping,
      now: now(),
    });
    if (next.next === 'end') {
      const alerts = alertsOf(session);
      this.queue.removeAll(alerts);
      const { dialedAt, phone } = session;
      const { trunk, softphone } = session.placement;
      const ending = { ...next.end, phone, placed: { dialedAt, trunk, softphone } };
      const again = ringAgainAfter(session, next.end.state, now(), this.sessions.all(), this.waiting.values());
      if (again) {
        this.ledger.ringAgain(alerts, ending, { ...again, dialedAt }, this.settings.onMissed);
        for (const alert of alerts) this.dueLater.add(alert.callId, again.at);
      } else if (stop.kind === 'decided') recorded = this.ledger.endDecided(alerts, ending, stop.decision);
      else this.ledger.end(alerts, ending);
    } else if (backup) {
      const again = backupTrunkSession(session, next.at);
      this.sessions.add(again);
      const { channelId, dialedAt } = again;
      this.ledger.placedAgain(alertsOf(again), { trunk: next.trunk, channelId, dialedAt }, next.why);
      this.placingAgain.push({ session: again, endpoint: backup });
    }
    this.pump();
    return recorded;
  }

  private async hangup(session: CallSession, why: string): Promise<void> {
    this.ledger.note(session.call.callId, 'hangup', why);
    // Should the channel's end never be reported (events lost, Asterisk stuck), the call still ends.
    arm(session, HANGUP_CONFIRM_MS, () => this.end(session, { kind: 'hangup-unconfirmed' }));
    await hangUp(this.settings, session.channelId, { why, callId: session.call.callId });
  }
}
