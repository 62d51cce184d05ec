// Turns queued alerts into phone calls: one session per call, exactly one attempt each, a cap on
// concurrent calls, one line per phone (alerts that wait for their phone's line ride along in its
// next call), paced to the provider, the speech planned before the call is placed. A placed call's
// life (Asterisk's events, its script, its end) is call-flow's; the queue, the records, the pace,
// the speech's plan and the speech made ahead, and the recovery after a crash, a lost connection
// or at stop are modules of their own; which alerts a call carries is decided in core/line.
import { receivesCalls } from '../core/account.js';
import { nextCalls } from '../core/line.js';
import { callSpeech } from '../core/languages.js';
import { describeSpeechPlan } from '../core/speech-plan.js';
import { spokenAlerts } from '../core/spoken-alerts.js';
import type { Backoff } from '../core/backoff.js';
import { callReason } from '../core/reasons.js';
import { CallLedger } from './call-ledger.js';
import { CallQueue } from './call-queue.js';
import { CallRecovery } from './call-recovery.js';
import { type DialerOptions, type DialerSettings, withDefaults } from './dialer-options.js';
import type { Endpoint } from '../pbx/endpoint.js';
import { CallSessions, channelIdFor, newSession, type CallSession } from './call-session.js';
import { CallFlow } from './call-flow.js';
import type { AriEvent } from '../pbx/ari.js';
import { Pacer } from './pacer.js';
import { settledOrAfter } from '../lib/sleep.js';
import { type JustQueued, loadWaitingAlert, type QueuedAlert, waitingAlert } from './waiting-alerts.js';
import { SpeechAhead } from '../speech/speech-ahead.js';
import { SpeechPlanner } from '../speech/speech-planner.js';
import type { CallForDialing } from '../core/records.js';

/** A call Asterisk could not take waits this long before it is tried again, doubling each time. */
const REQUEUE_BACKOFF: Backoff = { initialMs: 500, maxMs: 5_000 };

/** The regular look at the store waits at least this many times what the last one took, */
const POLL_COST_RATIO = 50;
/** and never longer than this: a look slowed by a lock or a slow network must not park queued calls for minutes. */
const POLL_MAX_GAP_MS = 2_000;

/** A call taken for placing: its session, where it goes, and its speech's plan. */
interface ClaimedCall {
  session: CallSession;
  endpoint: Endpoint;
  /** How long it is held for its speech before it is placed (core/speech-plan). */
  holdMs: number;
  /** Takes back the speech counted as queued for it since it was planned. */
  unreserve: () => void;
  /** In how many ms its speech was forecast ready once asked for (the lateness margin aside); undefined: made already, or no forecast. */
  forecastMs: number | undefined;
  /** What it says: its alerts' messages as a trader would read them aloud. */
  text: string;
}

export class Dialer {
  private readonly opts: DialerSettings;
  private readonly pacer: Pacer;
  private readonly queue = new CallQueue(REQUEUE_BACKOFF);
  private readonly sessions = new CallSessions();
  private readonly ledger: CallLedger;
  private readonly flow: CallFlow;
  private readonly recovery: CallRecovery;
  private pollTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  /** Settles when stop() begins: calls held before they are placed stop waiting. */
  private readonly stopped: Promise<void>;
  private signalStop: () => void = () => {};
  private polling = false;
  private storeDown = false;
  /** The queued alerts as the line rule sees them, loaded once when they join the queue. */
  private readonly waiting = new Map<string, QueuedAlert>();
  private readonly speech: SpeechPlanner;
  /** Speech made ahead for the alerts next in line; undefined when the speech engine cannot. */
  private readonly ahead: SpeechAhead | undefined;
  /** Alerts taken from the queue whose call is being claimed and set up: their phone's line is taken. */
  private readonly starting = new Map<string, string>();
  private readonly onAriEvent = (e: AriEvent) => this.flow.route(e);
  // After a reconnect, the calls of before the drop are reconciled first, and only then are queued
  // calls dialed: a call dialed now has no channel yet and must not be taken for one that vanished.
  private readonly onConnected = ({ reconnect }: { reconnect: boolean }) => (reconnect ? void this.recovery.afterReconnect() : this.pump());

  constructor(options: DialerOptions) {
    this.opts = withDefaults(options);
    this.stopped = new Promise((resolve) => {
      this.signalStop = resolve;
    });
    const { ari, logger, progress, writes, events, now, onFinal } = this.opts;
    this.ledger = new CallLedger({ progress, writes, events, logger, now, onFinal });
    this.pacer = new Pacer(this.opts.callsPerSecond, now, () => this.pump());
    this.flow = new CallFlow({
      settings: this.opts,
      sessions: this.sessions,
      ledger: this.ledger,
      queue: this.queue,
      pacer: this.pacer,
      enqueue: (callId) => this.enqueue(callId),
      stopping: () => this.stopping,
      pump: () => this.pump(),
    });
    this.speech = new SpeechPlanner({
      tts: this.opts.tts,
      burstVoice: this.opts.burstVoice,
      callsPerSecond: this.opts.callsPerSecond,
      waiting: () => this.queue.length,
    });
    const { ahead, fastestMakingMs } = this.opts.tts;
    if (ahead && fastestMakingMs)
      this.ahead = new SpeechAhead({ tts: { ahead, fastestMakingMs }, burstVoice: this.opts.burstVoice, callsPerSecond: this.opts.callsPerSecond });
    this.recovery = new CallRecovery(
      { progress, writes, ari, ledger: this.ledger, queue: this.queue, sessions: this.sessions, logger, now, freshnessMs: this.opts.freshnessMs },
      {
        enqueue: (callId) => this.enqueue(callId),
        isStarting: (callId) => this.starting.has(callId),
        end: (session, stop) => this.flow.end(session, stop),
        answered: (session) => this.flow.answered(session),
        pump: () => this.pump(),
      },
    );
  }

  get activeCalls(): number {
    return this.sessions.size;
  }

  get queuedCalls(): number {
    return this.queue.length;
  }

  /** Recovers what a previous process left, then starts dialing. */
  async start(): Promise<void> {
    this.opts.ari.on('event', this.onAriEvent);
    this.opts.ari.on('connected', this.onConnected);
    try {
      await this.recovery.atStart();
    } catch (error) {
      this.opts.logger.error('could not read the calls left in progress; they are looked at again shortly', { error });
    }
    this.schedulePoll(this.opts.pollMs);
    this.pump();
  }

  private schedulePoll(ms: number): void {
    if (this.stopping) return;
    this.pollTimer = setTimeout(() => void this.poll(), ms);
    this.pollTimer.unref();
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
    loadWaitingAlert(callId, this.opts.progress, this.opts.accounts).then(
      (alert) => {
        if (!alert) this.queue.remove(callId);
        else if (this.queue.has(callId)) this.waiting.set(callId, alert);
        this.pump();
      },
      (error: Error) => {
        // Out of the queue, so that the next look at the store brings it back.
        this.queue.remove(callId);
        this.opts.logger.warn('could not read a queued call; it is tried again shortly', { call_id: callId, error });
      },
    );
  }

  /** Calls of a node that stopped answering (several nodes share the store): ended interrupted here. */
  endAbandoned(calls: readonly CallForDialing[], nodeId: string): void {
    this.recovery.interrupt(calls, callReason('node_stopped', { node: nodeId }, `the ringhook node ${nodeId} stopped answering during the call`));
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    const started = performance.now();
    let gapMs = this.opts.pollMs;
    try {
      await this.recovery.tick();
      if (this.storeDown) this.opts.logger.info('the store answers again: calls are looked at again');
      this.storeDown = false;
      gapMs = Math.min(POLL_MAX_GAP_MS, Math.max(this.opts.pollMs, (performance.now() - started) * POLL_COST_RATIO));
    } catch (error) {
      // Said once, not at every look (4 a second) while the store is down.
      if (!this.storeDown) this.opts.logger.warn('could not look at the calls in the store; trying again', { error });
      this.storeDown = true;
    } finally {
      this.polling = false;
      // A safety net: with a thousand calls in flight its look costs milliseconds, so it is spaced
      // out to keep it under ~2 % of the loop's time (a failed look is simply tried again).
      this.schedulePoll(gapMs);
    }
  }

  /** Stops taking calls; lets active calls end by themselves up to graceMs, then hangs them up. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    this.signalStop();
    clearTimeout(this.pollTimer);
    this.pacer.stop();
    await this.recovery.atStop(graceMs);
    this.opts.ari.off('event', this.onAriEvent);
    this.opts.ari.off('connected', this.onConnected);
  }

  private pump(): void {
    if (this.stopping || !this.opts.ari.isConnected) return;
    if (this.waiting.size > this.queue.length) for (const id of this.waiting.keys()) if (!this.queue.has(id)) this.waiting.delete(id);
    this.placeNext();
    this.speakAhead();
  }

  private placeNext(): void {
    const busy = this.sessions.size + this.starting.size;
    const freeLines = Math.min(this.opts.maxConcurrent - busy, this.pacer.allowed(this.queue.length > 0));
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
    if (!this.ahead || this.stopping || !this.opts.ari.isConnected || this.queue.length === 0) return;
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
      let claimed: Awaited<ReturnType<Dialer['claim']>>;
      try {
        claimed = await this.claim(alerts.map((a) => a.callId));
      } finally {
        // From here the call's session (if any) holds the line and counts as a call in progress.
        for (const alert of alerts) this.starting.delete(alert.callId);
      }
      if (claimed) await this.speakAndPlace(claimed);
      else this.pacer.cancelled(alerts[0]!.callId);
    } catch (error) {
      this.opts.logger.error('could not place a call', { call_id: alerts[0]?.callId, error });
    } finally {
      this.pump();
    }
  }

  /**
   * Takes the alerts for one call: each must still be queued, and the store must take its step to
   * dialing (with several nodes, only one of them can). Returns the call's session, registered
   * before the originate so that no event of the channel can be missed; undefined when there is
   * nothing to place.
   */
  private async claim(callIds: readonly string[]): Promise<ClaimedCall | undefined> {
    const { progress, accounts, now } = this.opts;
    // An alert put back again and again (Asterisk refusing calls while it restarts, a long database
    // lock) is not in the queue the stale check looks at: it is looked at here, before its call.
    const calls = (await Promise.all(callIds.map((id) => progress.get(id)))).filter(
      (c): c is CallForDialing => c?.status === 'queued' && !this.recovery.endedStale(c, 'waiting'),
    );
    const call = calls[0];
    if (!call) return undefined;
    const account = await accounts.get(call.userId);
    if (!account || this.stopping) return undefined;
    if (!receivesCalls(account)) {
      // Suspended after the alert was accepted: no call of any kind, and no SMS in its place.
      const reason = callReason('account_suspended');
      for (const alert of calls) this.ledger.end(alert, 'failed', { endedAt: now(), ...reason }, undefined, null);
      return undefined;
    }
    const dialedAt = now();
    const endpoint = this.opts.endpointFor(account.phone);
    const own = callSpeech(account);
    // What the call will say (unless another node takes some of its alerts meanwhile): made ahead, perhaps.
    const says = (alerts: readonly CallForDialing[]) =>
      spokenAlerts(
        alerts.map((c) => c.message),
        own.language,
      );
    const text = says(calls);
    const { speech, plan, toMake, forecastMs } = this.speech.plan(own, text);
    // Counted as queued from now: the calls planned while this one's claim is written must see it,
    // or all of those planned in one turn would choose their voice on the same short queue.
    const unreserve = (toMake && this.opts.tts.reserve?.(speech.synthesis)) || (() => {});
    const detail = describeSpeechPlan(plan, speech.synthesis?.voice);
    const claimed = await this.ledger
      .claim(calls, { phone: account.phone, channelId: channelIdFor(call.callId), dialedAt, trunk: endpoint.trunk }, detail)
      .catch((error: unknown) => {
        unreserve();
        throw error;
      });
    if (claimed.length === 0) {
      unreserve();
      return undefined;
    }
    const session = newSession(claimed, account.phone, account.requireConfirm, dialedAt, '', speech);
    this.sessions.add(session);
    return { session, endpoint, holdMs: plan.holdMs, unreserve, forecastMs, text: claimed.length === calls.length ? text : says(claimed) };
  }

  private async speakAndPlace({ session, endpoint, holdMs, unreserve, forecastMs, text }: ClaimedCall): Promise<void> {
    const call = session.call;
    // Speech is made while the phone rings (or partly or wholly first, when it cannot be made in
    // time: core/speech-plan).
    unreserve();
    session.messageMedia = this.opts.tts.synthesize(text, session.speech.synthesis).then((s) => s.media);
    let speechFailed: Error | undefined;
    session.messageMedia.catch((error: Error) => {
      speechFailed = error;
    });
    this.speech.follow(session.messageMedia, forecastMs);
    this.flow.prepare(session);
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
      this.flow.putBack(session, 'ringhook stopped before the call was placed');
      this.pacer.cancelled(call.callId);
      return;
    }
    // Held for speech that could not be made: the phone is not rung only to be hung up on at its
    // answer; the call fails now, and its SMS backup goes out.
    if (speechFailed) {
      this.pacer.cancelled(call.callId);
      this.flow.end(session, { kind: 'given-up', why: `its speech could not be made: ${speechFailed.message}`, reason: 'speech_failed' });
      return;
    }
    await this.flow.place(session, endpoint);
  }
}
