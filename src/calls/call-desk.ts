// The one owner of call state: the queue, the pace, the calls in progress (their sessions), the
// ledger that records their steps, the alerts being claimed (their phone's line is taken), and
// whether ringhook is stopping. Its parts are its own: the other parts of call control are each
// handed what they name in a narrow interface (ClaimDesk, PlacementDesk, ScriptDesk, FlowDesk,
// RecoveryDesk), never the desk. One session per call, exactly one attempt each (a call the first
// trunk did not take is a new placement through the backup trunk: core/calls/backup-trunk), a cap on
// concurrent calls, one line per phone (alerts that wait for their phone's line ride along in its
// next call: core/calls/line), paced to the provider, the speech planned before the call is placed.
import { afterStop } from '../core/calls/backup-trunk.js';
import type { Backoff } from '../core/backoff.js';
import { type CallStop, fateOfQueued } from '../core/calls/call-end.js';
import { nextCalls } from '../core/calls/line.js';
import type { CallReason } from '../core/reasons.js';
import type { CallForDialing } from '../core/records.js';
import { settledOrAfter } from '../lib/sleep.js';
import type { AriEvent } from '../pbx/index.js';
import type { Endpoint } from '../pbx/index.js';
import { SpeechAhead } from '../speech/index.js';
import { SpeechPlanner } from '../speech/index.js';
import { type ClaimDesk, type ClaimedCall, claimCall } from './call-claim.js';
import { CallFlow, type FlowDesk } from './call-flow.js';
import { CallLedger } from './call-ledger.js';
import { place, type PlacementDesk, putBack } from './call-placement.js';
import { CallQueue } from './call-queue.js';
import {
  endAtStop,
  interrupt,
  reconcile,
  reconcileAfterReconnect,
  type RecoveryDesk,
  recoverAtStart,
} from './call-recovery.js';
import { CallScript, type ScriptDesk } from './call-script.js';
import { type ReleaseDesk, releaseHeld } from './quiet-hours.js';
import { alertsOf, arm, backupTrunkSession, type CallSession, CallSessions } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';
import { hangUp } from './hang-up.js';
import { Pacer } from './pacer.js';
import { DueLater, phoneTaken, ringAgainAfter } from './ring-again.js';
import {
  type JustQueued,
  loadWaitingAlert,
  type QueuedAlert,
  waitingAlert,
  waitingAlertsInSlices,
} from './waiting-alerts.js';

/** What the desk hands its parts: each takes it as the narrow interface it names. */
type Inside = ClaimDesk & PlacementDesk & ScriptDesk & FlowDesk & RecoveryDesk & ReleaseDesk;

/** A call Asterisk could not take waits this long before it is tried again, doubling each time. */
const REQUEUE_BACKOFF: Backoff = { initialMs: 500, maxMs: 5_000 };

/** After ringhook hangs a call up, how long Asterisk has to report the channel's end. */
const HANGUP_CONFIRM_MS = 15_000;

export class CallDesk {
  private readonly queue = new CallQueue(REQUEUE_BACKOFF);
  private readonly sessions = new CallSessions();
  private readonly pacer: Pacer;
  private readonly ledger: CallLedger;
  private readonly script: CallScript;
  private readonly speech: SpeechPlanner;
  private readonly flow: CallFlow;
  private readonly inside: Inside;
  /** Speech made ahead for the alerts next in line; undefined when the speech engine cannot. */
  private readonly ahead: SpeechAhead | undefined;
  /** The queued alerts as the line rule sees them, loaded once when they join the queue. */
  private readonly waiting = new Map<string, QueuedAlert>();
  /** Calls placed again through the backup trunk, placed by the next pump: an end never places a call itself. */
  private readonly placingAgain: Array<{ session: CallSession; endpoint: Endpoint }> = [];
  /** Alerts taken from the queue whose call is being claimed and set up: their phone's line is taken. */
  private readonly starting = new Map<string, string>();
  private readonly dueLater: DueLater; // missed calls rung again: each queued when due (ring-again.ts)
  private stopping = false;
  /** Settles when stop() begins: calls held before they are placed stop waiting. */
  private readonly stopped: Promise<void>;
  private signalStop: () => void = () => {};

  constructor(private readonly settings: DialerSettings) {
    this.stopped = new Promise((resolve) => {
      this.signalStop = resolve;
    });
    const { now, tts, burstVoice, callsPerSecond, japanese } = settings;
    this.ledger = new CallLedger(settings);
    this.dueLater = new DueLater(now, (callId) => this.enqueue(callId));
    this.pacer = new Pacer(callsPerSecond, now, () => this.pump());
    this.speech = new SpeechPlanner({ tts, burstVoice, callsPerSecond, waiting: () => this.queue.length });
    this.inside = this.handedToParts();
    this.script = new CallScript(this.inside);
    this.flow = new CallFlow(this.inside);
    const { ahead, fastestMakingMs } = tts;
    if (ahead && fastestMakingMs)
      this.ahead = new SpeechAhead({
        tts: { ahead, fastestMakingMs },
        burstVoice,
        callsPerSecond,
        japanese: japanese && (() => japanese.loadedOrLoad()),
      });
  }

  /** The desk's parts and operations, as its parts see them (each through its own narrow interface). */
  private handedToParts(): Inside {
    const desk = this;
    return {
      settings: this.settings,
      queue: this.queue,
      sessions: this.sessions,
      pacer: this.pacer,
      ledger: this.ledger,
      speech: this.speech,
      // Made after this object, which it is given.
      get script() {
        return desk.script;
      },
      get isStopping() {
        return desk.stopping;
      },
      isActive: (session) => this.isActive(session),
      isStarting: (callId) => this.starting.has(callId),
      endIfStale: (call, when) => this.endIfStale(call, when),
      enqueue: (callId) => this.enqueue(callId),
      enqueueTogether: (alerts) => this.enqueueTogether(alerts),
      pump: () => this.pump(),
      end: (session, stop) => this.end(session, stop),
      hangup: (session, why) => this.hangup(session, why),
      note: (session, event, detail) => this.note(session, event, detail),
      answered: (session) => this.flow.answered(session),
    };
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
    this.flow.route(event);
  }

  /** Held alerts whose quiet hours ended, queued together (quiet-hours.ts); how many. */
  releaseHeld(): Promise<number> {
    return releaseHeld(this.inside);
  }

  /** At start: what a previous process left (call-recovery.ts). */
  recoverAtStart(): Promise<void> {
    return recoverAtStart(this.inside);
  }

  /** Regularly: the store's view of the calls in flight, against the desk's. */
  reconcile(): Promise<void> {
    return reconcile(this.inside);
  }

  /** After the events connection came back: events may have been lost meanwhile. */
  reconcileAfterReconnect(): Promise<void> {
    return reconcileAfterReconnect(this.inside);
  }

  /** Ends calls in progress with nothing behind them (a dead node's): interrupted, never redialed. */
  interrupt(calls: readonly CallForDialing[], why: CallReason): void {
    interrupt(this.inside, calls, why);
  }

  /** Lets active calls end by themselves up to graceMs, then hangs them up. */
  endAtStop(graceMs: number): Promise<void> {
    return endAtStop(this.inside, graceMs);
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

  /** Alerts released together (quiet hours): all queued before a line is looked at, so one call carries them. Made ready a slice a turn, then queued in one. */
  async enqueueTogether(alerts: readonly JustQueued[]): Promise<void> {
    for (const alert of await waitingAlertsInSlices(alerts)) {
      if (this.stopping || this.sessions.has(alert.callId) || this.starting.has(alert.callId)) continue;
      if (this.queue.add(alert.callId)) this.waiting.set(alert.callId, alert);
    }
    // Their line is looked at in the next turn: queueing 10,000 and placing them was one long turn (#51).
    if (alerts.length > 1) await new Promise((resolve) => setImmediate(resolve));
    this.pump();
  }

  /** Ends a queued alert too old to place (expired at a start, failed while waiting: the SMS backup applies); false when it is fresh. */
  private endIfStale(call: CallForDialing, when: 'at start' | 'waiting'): boolean {
    const { now, freshnessMs } = this.settings;
    const fate = fateOfQueued(call, now(), freshnessMs, when);
    if (!fate.dial) this.ledger.endUnplaced(call, fate);
    return !fate.dial;
  }

  /** A line may be free: more calls are placed, and speech is made ahead for those next in line. */
  pump(): void {
    for (const { session, endpoint } of this.placingAgain.splice(0)) void place(this.inside, session, endpoint);
    if (this.stopping || !this.settings.ari.isConnected) return;
    if (this.waiting.size > this.queue.length)
      for (const id of this.waiting.keys()) if (!this.queue.has(id)) this.waiting.delete(id);
    this.placeNext();
    this.speakAhead();
  }

  private placeNext(): void {
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
    const busyPhones = new Set([...this.sessions.phones(), ...this.starting.values()]);
    for (const call of nextCalls(waiting, busyPhones, freeLines)) {
      this.queue.takeAll(call.map((alert) => alert.callId));
      for (const alert of call) {
        this.waiting.delete(alert.callId);
        this.ahead?.forget(alert.callId);
      }
      this.pacer.started(call[0]!.callId);
      void this.dial(call);
    }
  }

  /** Speech for the alerts next in line, made while an engine is free (speech-ahead.ts). */
  private speakAhead(): void {
    if (!this.ahead || this.stopping || !this.settings.ari.isConnected || this.queue.length === 0) return;
    this.ahead.keepOnly((id) => this.queue.has(id), this.queue.length);
    this.ahead.next(this.lineToSpeak(), this.queue.length, () => this.speakAhead());
  }

  private *lineToSpeak(): Generator<QueuedAlert | undefined> {
    for (const id of this.queue.ids()) yield this.waiting.get(id);
  }

  /** Places one call for the alerts given (the first is the call's own, the others ride along). */
  private async dial(alerts: readonly QueuedAlert[]): Promise<void> {
    for (const alert of alerts) this.starting.set(alert.callId, alert.phone);
    try {
      let claimed: ClaimedCall | undefined;
      try {
        claimed = await claimCall(this.inside, alerts);
      } finally {
        // From here the call's session (if any) holds the line and counts as a call in progress.
        for (const alert of alerts) this.starting.delete(alert.callId);
      }
      if (claimed) await this.speakAndPlace(claimed);
      else this.pacer.cancelled(alerts[0]!.callId);
    } catch (error) {
      this.settings.logger.error('could not place a call', { call_id: alerts[0]?.callId, error });
    } finally {
      this.pump();
    }
  }

  private async speakAndPlace({ session, endpoint, holdMs, unreserve, forecastMs, text }: ClaimedCall): Promise<void> {
    const call = session.call;
    // Speech is made while the phone rings (or partly or wholly first, when it cannot be made in
    // time: core/speech/speech-plan).
    unreserve();
    session.messageMedia = this.settings.tts.synthesize(text, session.speech.synthesis).then((s) => s.media);
    let speechFailed: Error | undefined;
    session.messageMedia.catch((error: Error) => {
      speechFailed = error;
    });
    this.speech.follow(session.messageMedia, forecastMs);
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
      putBack(this.inside, session, 'ringhook stopped before the call was placed');
      this.pacer.cancelled(call.callId);
      return;
    }
    // Held for speech that could not be made: the phone is not rung only to be hung up on at its
    // answer; the call fails now, and its SMS backup goes out.
    if (speechFailed) {
      this.pacer.cancelled(call.callId);
      this.end(session, {
        kind: 'given-up',
        why: `its speech could not be made: ${speechFailed.message}`,
        reason: 'speech_failed',
      });
      return;
    }
    await place(this.inside, session, endpoint);
  }

  /**
   * The call is over. Its alerts go out again through the backup trunk, as a new call placed by the
   * next pump, when the first trunk did not take it; otherwise its end is recorded and handed on with
   * every alert it carried. Both are decided at once in core (core/calls/backup-trunk, core/calls/call-end).
   */
  private end(session: CallSession, stop: CallStop): void {
    if (!this.isActive(session)) return;
    this.pacer.dialed(session.call.callId);
    this.sessions.remove(session);
    const { now, backupEndpointFor } = this.settings;
    const backup = backupEndpointFor?.(session.phone);
    const next = afterStop(session, stop, {
      backupTrunk: backup && (backup.trunk ?? backup.resource),
      stopping: this.stopping,
      now: now(),
    });
    if (next.next === 'end') {
      const alerts = alertsOf(session);
      for (const alert of alerts) this.queue.remove(alert.callId);
      const { dialedAt, trunk, softphone, phone } = session;
      const ending = { ...next.end, phone, placed: { dialedAt, trunk, softphone } };
      const again = ringAgainAfter(session, next.end.state, now(), this.sessions.all(), this.waiting.values());
      if (again) {
        this.ledger.ringAgain(alerts, ending, { ...again, dialedAt }, this.settings.onMissed);
        for (const alert of alerts) this.dueLater.add(alert.callId, again.at);
      } else this.ledger.end(alerts, ending);
    } else if (backup) {
      const again = backupTrunkSession(session, next.at);
      this.sessions.add(again);
      const { channelId, dialedAt } = again;
      this.ledger.placedAgain(alertsOf(again), { trunk: next.trunk, channelId, dialedAt }, next.why);
      this.placingAgain.push({ session: again, endpoint: backup });
    }
    this.pump();
  }

  private async hangup(session: CallSession, why: string): Promise<void> {
    this.ledger.note(session.call.callId, 'hangup', why);
    // Should the channel's end never be reported (events lost, Asterisk stuck), the call still ends.
    arm(session, HANGUP_CONFIRM_MS, () => this.end(session, { kind: 'hangup-unconfirmed' }));
    await hangUp(this.settings, session.channelId, { why, callId: session.call.callId });
  }

  /** On the timeline of every alert the call carries. */
  private note(session: CallSession, event: string, detail: string): void {
    for (const alert of alertsOf(session)) this.ledger.note(alert.callId, event, detail);
  }
}
