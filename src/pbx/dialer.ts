// Turns queued calls into phone calls: one session (a small state machine) per call, exactly one
// attempt each, a cap on concurrent calls with a queue behind it, and recovery after a crash or a
// lost events connection. Every step is written to the call's history row and timeline.
import type { AccountStore } from '../db/accounts.js';
import type { CallForDialing, CallProgressStore, TransitionFields } from '../db/call-progress.js';
import type { PatientWriter } from '../db/patient-writes.js';
import { canTransition, type CallState, type FinalState } from '../core/call-state.js';
import { classifyUnanswered } from '../core/outcome.js';
import { errorCode } from '../errors.js';
import type { CallEvents } from '../events.js';
import type { Logger } from '../log.js';
import type { AriClient, AriEvent } from './ari.js';
import { AriError, eventChannelId } from './ari.js';
import type { Tts } from './tts.js';

export const SPEECH = {
  intro: 'Alert from ringhook.',
  prompt: 'Press 1 to confirm, press 2 to hear it again.',
} as const;

/** How long a call sent back to the queue waits before it is tried again (doubling up to the max). */
const REQUEUE_DELAY_MS = 500;
const REQUEUE_MAX_DELAY_MS = 5_000;

/**
 * ChannelHangupRequest's `cause` when `soft` is Asterisk's soft-hangup reason (a set of flags, not
 * a Q.850 cause): this one is AST_SOFTHANGUP_SHUTDOWN, a channel hung up because Asterisk stops.
 */
const SOFT_HANGUP_SHUTDOWN = 4;

/** After ringhook hangs a call up, how long Asterisk has to report the channel's end. */
const HANGUP_CONFIRM_MS = 15_000;

/** The PJSIP endpoint that an ARI dial string goes through: PJSIP/+1415…@trunk → trunk. */
function endpointResource(endpoint: string): string {
  const at = endpoint.lastIndexOf('@');
  return at >= 0 ? endpoint.slice(at + 1) : endpoint.slice(endpoint.indexOf('/') + 1);
}

/** True when the originate request never got to Asterisk (connection refused): nothing was dialed. */
function neverReachedAsterisk(error: unknown): boolean {
  return error instanceof AriError && error.kind === 'network' && errorCode(error.cause) === 'ECONNREFUSED';
}

export interface DialerOptions {
  ari: AriClient;
  progress: CallProgressStore;
  /** Every write of a call step goes through here: a database locked by another process never blocks the loop. */
  writes: PatientWriter;
  accounts: AccountStore;
  tts: Tts;
  events: CallEvents;
  logger: Logger;
  now: () => number;
  /** Told once of every call that reached a final state (the SMS backup listens here). */
  onFinal: (callId: string, state: FinalState) => void;
  /** The ARI endpoint that reaches a phone number, e.g. PJSIP/+14155550123@trunk. */
  endpointFor: (phone: string) => string;
  callerId?: string | undefined;
  ringTimeoutSec: number;
  maxConcurrent: number;
  /** A queued call older than this is not dialed any more (expired at start, failed while running). */
  freshnessMs: number;
  /** How many times "2" may replay the message. */
  maxRepeats?: number;
  /** How long to wait for a digit after the prompt before hanging up. */
  digitWaitMs?: number;
  /** How often the database is looked at for calls queued by another process (CLI test calls). */
  pollMs?: number;
  /** A call answered longer than this is hung up (a stuck playback must not hold a line). */
  maxTalkMs?: number;
}

interface Session {
  call: CallForDialing;
  channelId: string;
  dialedAt: number;
  rang: boolean;
  answeredAt?: number;
  farEnd?: { cause?: number | undefined; sipCode?: number | undefined };
  /** Set when the call is cut because Asterisk or ringhook stops: why, for the history. */
  cutBecause?: string;
  acknowledged: boolean;
  speechFailed?: string;
  repeats: number;
  playbackId?: string;
  playbackSeq: number;
  timers: Set<NodeJS.Timeout>;
  messageMedia?: Promise<string>;
}

export class Dialer {
  private readonly opts: Required<Omit<DialerOptions, 'callerId'>> & Pick<DialerOptions, 'callerId'>;
  private readonly waiting: string[] = [];
  private readonly waitingSet = new Set<string>();
  private readonly sessions = new Map<string, Session>();
  private readonly byChannel = new Map<string, Session>();
  /** Calls Asterisk could not take: how many times in a row, and not to be tried again before `until`. */
  private readonly backoff = new Map<string, { count: number; until: number }>();
  private pollTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly onAriEvent = (e: AriEvent) => this.route(e);
  // After a reconnect, the calls of before the drop are reconciled first, and only then are queued
  // calls dialed: a call dialed now has no channel yet and must not be taken for one that vanished.
  private readonly onConnected = ({ reconnect }: { reconnect: boolean }) => (reconnect ? void this.reconcile() : this.pump());

  constructor(options: DialerOptions) {
    this.opts = { maxRepeats: 2, digitWaitMs: 5_000, pollMs: 250, maxTalkMs: 5 * 60_000, ...options };
  }

  get activeCalls(): number {
    return this.sessions.size;
  }

  get queuedCalls(): number {
    return this.waiting.length;
  }

  /** Recovers what a previous process left, then starts dialing. */
  start(): void {
    this.recover();
    this.opts.ari.on('event', this.onAriEvent);
    this.opts.ari.on('connected', this.onConnected);
    this.pollTimer = setInterval(() => this.tick(), this.opts.pollMs);
    this.pollTimer.unref();
    this.pump();
  }

  /** A call was accepted (by the webhook or a test call): dial it as soon as a line is free. */
  enqueue(callId: string): void {
    if (this.stopping || this.waitingSet.has(callId) || this.sessions.has(callId)) return;
    if ((this.backoff.get(callId)?.until ?? 0) > Date.now()) return;
    this.waiting.push(callId);
    this.waitingSet.add(callId);
    this.pump();
  }

  /** Stops taking calls; lets active calls end by themselves up to graceMs, then hangs them up. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    clearInterval(this.pollTimer);
    const deadline = Date.now() + graceMs;
    while (this.sessions.size > 0 && Date.now() < deadline) await sleep(100);
    for (const session of this.sessions.values()) {
      session.cutBecause = 'ringhook stopped during the call';
      await this.opts.ari.hangup(session.channelId).catch(() => {});
    }
    const settle = Date.now() + 2_000;
    while (this.sessions.size > 0 && Date.now() < settle) await sleep(50);
    // Whatever did not end is interrupted: never redialed, SMS backup applies.
    for (const session of [...this.sessions.values()]) this.finish(session, 'interrupted', {}, 'ringhook stopped during the call');
    this.opts.ari.off('event', this.onAriEvent);
    this.opts.ari.off('connected', this.onConnected);
  }

  // ---- queue ----

  private tick(): void {
    // While call steps wait for the database, it may still show a finished call as queued.
    if (this.opts.writes.waiting > 0) return;
    const inFlight = new Map(this.opts.progress.inFlight().map((call) => [call.callId, call]));
    for (const call of inFlight.values()) {
      if (call.status === 'queued') this.enqueue(call.callId);
      else if (!this.sessions.has(call.callId)) this.sweep(call);
    }
    this.expireStaleQueued(inFlight);
    this.pump();
  }

  /**
   * A call the database shows in progress with no call behind it here: its end was not recorded
   * (a write that failed, a disk that was full). It is ended rather than left in progress.
   */
  private sweep(call: CallForDialing): void {
    const was = call.status;
    if (this.transition(call, 'interrupted', { endedAt: this.opts.now(), error: 'no call in progress for it: its end was not recorded' })) {
      this.opts.logger.warn('a call left in progress in the database was ended', { call_id: call.callId, status_was: was });
      this.opts.onFinal(call.callId, 'interrupted');
    }
  }

  /** Drops waiting calls that are no longer queued; fails those too old to place. */
  private expireStaleQueued(inFlight: ReadonlyMap<string, CallForDialing>): void {
    const oldest = this.opts.now() - this.opts.freshnessMs;
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const callId = this.waiting[i]!;
      const call = inFlight.get(callId);
      if (!call || call.status !== 'queued') {
        this.dropWaiting(i);
      } else if (call.receivedAt < oldest) {
        this.dropWaiting(i);
        this.transition(call, 'failed', { endedAt: this.opts.now(), error: 'telephony was unavailable until the call was too old to place' });
        this.opts.onFinal(callId, 'failed');
      }
    }
  }

  private dropWaiting(index: number): void {
    const [callId] = this.waiting.splice(index, 1);
    if (callId) {
      this.waitingSet.delete(callId);
      this.backoff.delete(callId);
    }
  }

  private pump(): void {
    if (this.stopping) return;
    while (this.sessions.size < this.opts.maxConcurrent && this.waiting.length > 0 && this.opts.ari.isConnected) {
      const callId = this.waiting.shift()!;
      this.waitingSet.delete(callId);
      void this.dial(callId);
    }
  }

  // ---- one call ----

  /**
   * Moves the call on if the step is legal from its state here (the dialer owns its calls' state),
   * and records the step: at once, or after another process releases the database, in order.
   */
  private transition(call: CallForDialing, to: CallState, fields: TransitionFields = {}, detail?: string): boolean {
    if (!canTransition(call.status, to)) return false;
    call.status = to;
    const { callId, userId } = call;
    void this.opts.writes.write(`call ${callId} → ${to}`, () => this.opts.progress.transition(callId, to, fields, detail)).then(
      (moved) => {
        if (moved) this.opts.events.emit({ callId, userId, status: to, at: this.opts.now() });
        else this.opts.logger.warn('the database refused a call step', { call_id: callId, to });
      },
      (error: Error) => this.opts.logger.error('could not record a call step', { call_id: callId, to, error }),
    );
    return true;
  }

  private note(session: Session, event: string, detail: string): void {
    const { callId } = session.call;
    void this.opts.writes.write(`call ${callId} ${event}`, () => this.opts.progress.note(callId, event, detail)).catch((error: Error) => {
      this.opts.logger.error('could not record a call event', { call_id: callId, event, error });
    });
  }

  private async dial(callId: string): Promise<void> {
    const call = this.opts.progress.get(callId);
    if (!call || call.status !== 'queued') return;
    const account = this.opts.accounts.get(call.userId);
    if (!account) return;
    if (account.status === 'suspended') {
      // Suspended after the alert was accepted: no call of any kind, and no SMS in its place.
      if (this.transition(call, 'failed', { endedAt: this.opts.now(), error: 'the account was suspended before the call was placed' })) this.opts.onFinal(callId, 'failed');
      return;
    }
    const channelId = `rh-${callId}`;
    const session: Session = { call, channelId, dialedAt: this.opts.now(), rang: false, acknowledged: false, repeats: 0, playbackSeq: 0, timers: new Set() };
    // Registered before the originate, so no event of the channel can be missed.
    this.sessions.set(callId, session);
    this.byChannel.set(channelId, session);
    if (!this.transition(call, 'dialing', { phone: account.phone, channelId, dialedAt: session.dialedAt })) {
      this.forget(session);
      return;
    }
    // Speech is made while the phone rings.
    session.messageMedia = this.opts.tts.synthesize(call.message).then((s) => s.media);
    session.messageMedia.catch(() => {});
    this.arm(session, (this.opts.ringTimeoutSec + 15) * 1000, () => this.giveUp(session, 'no final event from Asterisk after the ring timeout'));
    const endpoint = this.opts.endpointFor(account.phone);
    try {
      await this.opts.ari.originate({
        channelId,
        endpoint,
        appArgs: [callId],
        ...(this.opts.callerId && { callerId: this.opts.callerId }),
        timeoutSec: this.opts.ringTimeoutSec,
      });
      this.backoff.delete(callId);
    } catch (error) {
      const waitFor = neverReachedAsterisk(error) ? 'Asterisk unreachable' : (await this.asteriskCannotTakeCalls(error, endpoint)) ? 'Asterisk not taking calls' : undefined;
      if (waitFor) {
        // Asterisk is down or stopping (a restart not yet seen on the events socket, or a graceful
        // restart waiting for calls to end): nothing was dialed, so the call goes back to the
        // queue and waits for Asterisk, within the freshness window.
        this.forget(session);
        if (this.transition(call, 'queued', {}, `${waitFor}: ${(error as Error).message}`)) {
          const count = (this.backoff.get(callId)?.count ?? 0) + 1;
          const delay = Math.min(REQUEUE_MAX_DELAY_MS, REQUEUE_DELAY_MS * 2 ** (count - 1));
          this.backoff.set(callId, { count, until: Date.now() + delay });
          setTimeout(() => this.enqueue(callId), delay).unref();
        }
        return;
      }
      // One attempt only: a refused originate is the outcome, never retried.
      const state: FinalState = error instanceof AriError && error.kind === 'http' ? 'unreachable' : 'failed';
      this.finish(session, state, { endedAt: this.opts.now() }, `originate failed: ${(error as Error).message}`);
    }
  }

  /**
   * Asterisk answers 503 ("Shutdown in progress") as it stops, and "Allocation failed" (500) when
   * it cannot make the channel. If the endpoint is offline (a softphone not registered), that 500
   * is the call's outcome; otherwise Asterisk itself is not taking calls (a graceful restart waits
   * for the calls in progress). Either way no channel was made: nothing was dialed.
   */
  private async asteriskCannotTakeCalls(error: unknown, endpoint: string): Promise<boolean> {
    if (!(error instanceof AriError) || error.kind !== 'http') return false;
    if (error.status === 503) return true;
    if (error.status !== 500) return false;
    try {
      const { state } = await this.opts.ari.getEndpoint('PJSIP', endpointResource(endpoint));
      return state !== 'offline';
    } catch (lookup) {
      // Asterisk went away meanwhile: it is not taking calls. Any other answer: take the refusal.
      return neverReachedAsterisk(lookup);
    }
  }

  private route(event: AriEvent): void {
    const channelId = eventChannelId(event);
    const session = channelId ? this.byChannel.get(channelId) : undefined;
    if (!session) return;
    switch (event.type) {
      case 'PlaybackFinished':
        // Only the current playback: one stopped by a "2" must not start the digit wait.
        if (session.playbackId === event.playback.id) this.onPlaybackFinished(session);
        break;
      case 'Dial':
        if (event.dialstatus === 'RINGING' && !session.rang) {
          session.rang = true;
          this.transition(session.call, 'ringing', { ringingAt: this.opts.now() });
        }
        break;
      case 'ChannelHangupRequest':
        if (event.soft && event.cause !== undefined && (event.cause & SOFT_HANGUP_SHUTDOWN) !== 0) session.cutBecause = 'Asterisk stopped during the call (restart or shutdown)';
        else if (session.answeredAt === undefined) session.farEnd = { cause: event.cause, sipCode: event.tech_cause };
        break;
      case 'StasisStart':
        void this.onAnswered(session);
        break;
      case 'ChannelDtmfReceived':
        void this.onDigit(session, event.digit);
        break;
      case 'ChannelDestroyed':
        this.onDestroyed(session, event.cause, event.cause_txt, event.tech_cause);
        break;
      default:
        break;
    }
  }

  private async onAnswered(session: Session): Promise<void> {
    const now = this.opts.now();
    session.answeredAt = now;
    this.transition(session.call, 'answered', { answeredAt: now, ringMs: now - session.dialedAt });
    this.arm(session, this.opts.maxTalkMs, () => void this.hangup(session, 'longest call time reached'));
    await this.playMessage(session);
  }

  private async playMessage(session: Session): Promise<void> {
    try {
      const [intro, message, prompt] = await Promise.all([
        session.repeats === 0 ? this.opts.tts.synthesize(SPEECH.intro).then((s) => s.media) : Promise.resolve(undefined),
        session.messageMedia!,
        this.opts.tts.synthesize(SPEECH.prompt).then((s) => s.media),
      ]);
      if (!this.sessions.has(session.call.callId)) return;
      const playbackId = `${session.channelId}-p${++session.playbackSeq}`;
      session.playbackId = playbackId;
      await this.opts.ari.play(session.channelId, playbackId, [intro, message, prompt].filter((m): m is string => m !== undefined));
    } catch (error) {
      session.speechFailed = (error as Error).message;
      // Asterisk gone (killed, restarting) is its own fault, already reported: the call ends with it.
      const asteriskGone = error instanceof AriError && error.kind === 'network';
      this.opts.logger[asteriskGone ? 'warn' : 'error']('could not play the message', { call_id: session.call.callId, error });
      await this.hangup(session, 'speech failed');
    }
  }

  private onPlaybackFinished(session: Session): void {
    session.playbackId = undefined;
    this.arm(session, this.opts.digitWaitMs, () => void this.hangup(session, 'no digit after the message'));
  }

  private async onDigit(session: Session, digit: string): Promise<void> {
    if (session.answeredAt === undefined) return;
    this.note(session, 'digit', digit);
    if (digit === '1') {
      session.acknowledged = true;
      await this.hangup(session, 'acknowledged');
    } else if (digit === '2' && session.repeats < this.opts.maxRepeats) {
      session.repeats++;
      this.disarmAll(session);
      this.arm(session, this.opts.maxTalkMs, () => void this.hangup(session, 'longest call time reached'));
      if (session.playbackId) await this.opts.ari.stopPlayback(session.playbackId).catch(() => {});
      await this.playMessage(session);
    }
  }

  private async hangup(session: Session, why: string): Promise<void> {
    this.note(session, 'hangup', why);
    // Should the channel's end never be reported (events lost, Asterisk stuck), the call still ends.
    this.arm(session, HANGUP_CONFIRM_MS, () => {
      const { state, fields } = this.answeredOutcome(session, this.opts.now());
      this.finish(session, state, { ...fields, endedAt: this.opts.now() }, 'Asterisk did not report the end of the call after ringhook hung up');
    });
    await this.opts.ari.hangup(session.channelId).catch((error: Error) => {
      this.opts.logger.warn('hangup failed', { call_id: session.call.callId, error });
    });
  }

  /** The final state of an answered call, from what happened during it. */
  private answeredOutcome(session: Session, now: number): { state: FinalState; fields: TransitionFields } {
    const state: FinalState = session.acknowledged ? 'acknowledged' : session.speechFailed ? 'failed' : 'completed';
    return { state, fields: { talkMs: now - session.answeredAt!, ...(session.speechFailed && { error: `speech failed: ${session.speechFailed}` }) } };
  }

  private onDestroyed(session: Session, cause: number, causeText: string, techCause: number | undefined): void {
    const now = this.opts.now();
    const sipCode = techCause ?? session.farEnd?.sipCode;
    const hangup = { endedAt: now, hangupCause: cause, hangupCauseText: causeText, ...(sipCode !== undefined && { sipCode }) };
    const talk = session.answeredAt !== undefined ? { talkMs: now - session.answeredAt } : { ringMs: now - session.dialedAt };
    if (session.cutBecause && !session.acknowledged) {
      // The phone heard part of the message, or nothing: the SMS backup applies.
      this.finish(session, 'interrupted', { ...hangup, ...talk }, session.cutBecause);
      return;
    }
    if (session.answeredAt !== undefined) {
      const { state, fields } = this.answeredOutcome(session, now);
      this.finish(session, state, { ...hangup, ...fields });
      return;
    }
    const state = classifyUnanswered({ cause, sipCode, farEndAnswered: session.farEnd !== undefined, rang: session.rang });
    this.finish(session, state, { ...hangup, ...talk });
  }

  /** No final event came: the call is ended as failed rather than left hanging. */
  private giveUp(session: Session, why: string): void {
    if (session.answeredAt !== undefined) return;
    void this.opts.ari.hangup(session.channelId).catch(() => {});
    this.finish(session, 'failed', { endedAt: this.opts.now() }, why);
  }

  private finish(session: Session, state: FinalState, fields: TransitionFields, detail?: string): void {
    if (!this.sessions.has(session.call.callId)) return;
    this.forget(session);
    this.backoff.delete(session.call.callId);
    const withError = detail && state !== 'completed' && state !== 'acknowledged' ? { ...fields, error: fields.error ?? detail } : fields;
    if (this.transition(session.call, state, withError, detail)) this.opts.onFinal(session.call.callId, state);
    this.pump();
  }

  private forget(session: Session): void {
    this.disarmAll(session);
    this.sessions.delete(session.call.callId);
    this.byChannel.delete(session.channelId);
  }

  private arm(session: Session, ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      session.timers.delete(timer);
      fn();
    }, ms);
    session.timers.add(timer);
  }

  private disarmAll(session: Session): void {
    for (const timer of session.timers) clearTimeout(timer);
    session.timers.clear();
  }

  // ---- recovery ----

  /** After a crash: in-flight calls are interrupted (never redialed); fresh queued calls are dialed. */
  private recover(): void {
    const oldest = this.opts.now() - this.opts.freshnessMs;
    for (const call of this.opts.progress.inFlight()) {
      if (call.status === 'queued') {
        if (call.receivedAt >= oldest) {
          this.enqueue(call.callId);
        } else if (this.transition(call, 'expired', { endedAt: this.opts.now(), error: 'too old to be placed after a restart' })) {
          this.opts.onFinal(call.callId, 'expired');
        }
      } else if (this.transition(call, 'interrupted', { endedAt: this.opts.now(), error: 'ringhook stopped during the call' })) {
        this.opts.onFinal(call.callId, 'interrupted');
      }
    }
  }

  /** Events may have been lost while the websocket was down: end calls whose channel is gone. */
  private async reconcile(): Promise<void> {
    const ids = [...this.byChannel.keys()];
    if (ids.length > 0) {
      let alive: Set<string>;
      try {
        alive = await this.opts.ari.channelsStillUp(ids);
      } catch (error) {
        this.opts.logger.warn('could not reconcile calls after reconnecting', { error });
        this.pump();
        return;
      }
      for (const id of ids) {
        const session = this.byChannel.get(id);
        if (!session || alive.has(id)) continue;
        // The phone may have heard only part of the message, or nothing: the SMS backup applies.
        const state: FinalState = session.acknowledged ? 'acknowledged' : 'interrupted';
        this.finish(session, state, { endedAt: this.opts.now() }, 'the call ended while the connection to Asterisk was down');
      }
    }
    this.pump();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
