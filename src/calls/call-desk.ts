// The one owner of call state: the queue, the pace, the calls in progress (their sessions), the
// ledger that records their steps, the alerts being claimed (their phone's line is taken), and
// whether ringhook is stopping. The other parts of call control are given this desk and call its
// methods: the claim (call-claim.ts), placement (call-placement.ts) and the script an answered call
// hears (call-script.ts) are used by it; Asterisk's events with machine detection (call-flow.ts)
// and recovery (call-recovery.ts) use it. One session per call, exactly one attempt each, a cap on
// concurrent calls, one line per phone (alerts that wait for their phone's line ride along in its
// next call: core/line), paced to the provider, the speech planned before the call is placed.
import type { Backoff } from '../core/backoff.js';
import { decideCallEnd, type CallStop, queuedFate } from '../core/call-end.js';
import { nextCalls } from '../core/line.js';
import type { CallForDialing } from '../core/records.js';
import { settledOrAfter } from '../lib/sleep.js';
import { SpeechAhead } from '../speech/speech-ahead.js';
import { SpeechPlanner } from '../speech/speech-planner.js';
import { type ClaimedCall, claimCall } from './call-claim.js';
import { CallLedger } from './call-ledger.js';
import { place, placedAgain, putBack } from './call-placement.js';
import { CallQueue } from './call-queue.js';
import { CallScript } from './call-script.js';
import { alertsOf, arm, type CallSession, CallSessions } from './call-session.js';
import { type DialerOptions, type DialerSettings, withDefaults } from './dialer-options.js';
import { Pacer } from './pacer.js';
import { type JustQueued, loadWaitingAlert, type QueuedAlert, waitingAlert } from './waiting-alerts.js';

/** A call Asterisk could not take waits this long before it is tried again, doubling each time. */
const REQUEUE_BACKOFF: Backoff = { initialMs: 500, maxMs: 5_000 };

/** After ringhook hangs a call up, how long Asterisk has to report the channel's end. */
const HANGUP_CONFIRM_MS = 15_000;

export class CallDesk {
  readonly settings: DialerSettings;
  readonly queue = new CallQueue(REQUEUE_BACKOFF);
  readonly sessions = new CallSessions();
  readonly pacer: Pacer;
  readonly ledger: CallLedger;
  readonly script: CallScript;
  readonly speech: SpeechPlanner;
  /** Speech made ahead for the alerts next in line; undefined when the speech engine cannot. */
  private readonly ahead: SpeechAhead | undefined;
  /** The queued alerts as the line rule sees them, loaded once when they join the queue. */
  private readonly waiting = new Map<string, QueuedAlert>();
  /** Alerts taken from the queue whose call is being claimed and set up: their phone's line is taken. */
  private readonly starting = new Map<string, string>();
  private stopping = false;
  /** Settles when stop() begins: calls held before they are placed stop waiting. */
  private readonly stopped: Promise<void>;
  private signalStop: () => void = () => {};

  constructor(options: DialerOptions) {
    this.settings = withDefaults(options);
    this.stopped = new Promise((resolve) => {
      this.signalStop = resolve;
    });
    const { progress, writes, events, logger, now, onFinal, tts, burstVoice, callsPerSecond, japanese } = this.settings;
    this.ledger = new CallLedger({ progress, writes, events, logger, now, onFinal });
    this.pacer = new Pacer(callsPerSecond, now, () => this.pump());
    this.script = new CallScript(this);
    this.speech = new SpeechPlanner({ tts, burstVoice, callsPerSecond, waiting: () => this.queue.length });
    const { ahead, fastestMakingMs } = tts;
    if (ahead && fastestMakingMs)
      this.ahead = new SpeechAhead({
        tts: { ahead, fastestMakingMs },
        burstVoice,
        callsPerSecond,
        japanese: japanese && (() => japanese.loadedOrLoad()),
      });
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** Is the call still going (it may have ended while something was awaited)? */
  isActive(session: CallSession): boolean {
    return this.sessions.has(session.call.callId);
  }

  /** The alert is between the queue and its call (taken from the queue, being claimed). */
  isStarting(callId: string): boolean {
    return this.starting.has(callId);
  }

  /** Stops taking calls: nothing more is placed, and calls held for their speech stop waiting. */
  stop(): void {
    this.stopping = true;
    this.signalStop();
    this.pacer.stop();
  }

  /**
   * A call was accepted (by the webhook or a test call, which hand over what they read: it is not
   * read again; or found queued in the store): dial it as soon as a line is free.
   */
  enqueue(callId: string, queued?: JustQueued): void {
    if (this.stopping || this.sessions.has(callId) || this.starting.has(callId)) return;
    if (!this.queue.add(callId)) return;
    if (queued && !this.waiting.has(callId)) this.waiting.set(callId, waitingAlert(queued));
    if (this.waiting.has(callId)) {
      this.pump();
      return;
    }
    const { progress, accounts, logger } = this.settings;
    loadWaitingAlert(callId, progress, accounts).then(
      (alert) => {
        if (!alert) this.queue.remove(callId);
        else if (this.queue.has(callId)) this.waiting.set(callId, alert);
        this.pump();
      },
      (error: Error) => {
        // Out of the queue, so that the next look at the store brings it back.
        this.queue.remove(callId);
        logger.warn('could not read a queued call; it is tried again shortly', { call_id: callId, error });
      },
    );
  }

  /** Ends a queued alert too old to place (expired at a start, failed while waiting: the SMS backup applies); false when it is fresh. */
  endIfStale(call: CallForDialing, when: 'at start' | 'waiting'): boolean {
    const { now, freshnessMs } = this.settings;
    const fate = queuedFate(call.receivedAt, now(), freshnessMs, when);
    if (!fate.dial)
      this.ledger.end(
        call,
        fate.state,
        { endedAt: now(), error: fate.error, ...(fate.reasonDetail && { reasonDetail: fate.reasonDetail }) },
        undefined,
        null,
      );
    return !fate.dial;
  }

  /** A line may be free: more calls are placed, and speech is made ahead for those next in line. */
  pump(): void {
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
      for (const alert of call) {
        this.queue.take(alert.callId);
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
        claimed = await claimCall(
          this,
          alerts.map((a) => a.callId),
        );
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
    // time: core/speech-plan).
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
      putBack(this, session, 'ringhook stopped before the call was placed');
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
    await place(this, session, endpoint);
  }

  /** The call is over (or goes out again through the backup trunk): its end is decided, recorded and handed on. */
  end(session: CallSession, stop: CallStop): void {
    if (!this.isActive(session)) return;
    this.pacer.dialed(session.call.callId);
    if (placedAgain(this, session, stop)) return;
    this.sessions.remove(session);
    const alerts = alertsOf(session);
    for (const alert of alerts) this.queue.remove(alert.callId);
    const { state, fields, detail } = decideCallEnd(session, stop, this.settings.now());
    this.ledger.end(alerts, state, fields, detail, session.phone);
    this.pump();
  }

  async hangup(session: CallSession, why: string): Promise<void> {
    this.ledger.note(session.call.callId, 'hangup', why);
    // Should the channel's end never be reported (events lost, Asterisk stuck), the call still ends.
    arm(session, HANGUP_CONFIRM_MS, () => this.end(session, { kind: 'hangup-unconfirmed' }));
    await this.settings.ari.hangup(session.channelId).catch((error: Error) => {
      this.settings.logger.warn('hangup failed', { call_id: session.call.callId, error });
    });
  }

  /** On the timeline of every alert the call carries. */
  note(session: CallSession, event: string, detail: string): void {
    for (const alert of alertsOf(session)) this.ledger.note(alert.callId, event, detail);
  }
}
