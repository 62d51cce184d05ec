// Turns queued calls into phone calls: one session per call, driven through its states by
// Asterisk's events, exactly one attempt each, a cap on concurrent calls. The queue, the script an
// answered call hears, the records and the recovery after a crash or a lost connection are modules
// of their own; what a call's end means is decided in core/call-end.
import { receivesCalls } from '../core/account.js';
import { decideCallEnd, type CallStop } from '../core/call-end.js';
import { speakable } from '../core/speakable.js';
import type { Backoff } from '../core/backoff.js';
import type { AccountStore } from '../db/accounts.js';
import type { CallProgressStore } from '../db/call-progress.js';
import type { PatientWriter } from '../db/patient-writes.js';
import type { CallEvents } from '../events.js';
import type { Logger } from '../log.js';
import type { AriCallControl, AriEvent } from './ari.js';
import { AriError, eventChannelId } from './ari.js';
import { CallLedger, type FinalCall } from './call-ledger.js';
import { CallQueue } from './call-queue.js';
import { CallRecovery } from './call-recovery.js';
import { CallScript } from './call-script.js';
import { arm, CallSessions, newSession, noteHangupRequest, type CallSession } from './call-session.js';
import type { Endpoint } from './endpoint.js';
import { nothingDialed } from './originate-refusal.js';
import type { Tts } from './tts.js';

export { SPEECH } from './call-script.js';

/** A call Asterisk could not take waits this long before it is tried again, doubling each time. */
const REQUEUE_BACKOFF: Backoff = { initialMs: 500, maxMs: 5_000 };

/** After ringhook hangs a call up, how long Asterisk has to report the channel's end. */
const HANGUP_CONFIRM_MS = 15_000;

export interface DialerOptions {
  ari: AriCallControl;
  progress: CallProgressStore;
  /** Every write of a call step goes through here: a database locked by another process never blocks the loop. */
  writes: PatientWriter;
  accounts: AccountStore;
  tts: Pick<Tts, 'synthesize'>;
  events: CallEvents;
  logger: Logger;
  now: () => number;
  /** Told once of every call that reached a final state (the SMS backup listens here). */
  onFinal: (call: FinalCall) => void;
  /** Where a phone number is dialed. */
  endpointFor: (phone: string) => Endpoint;
  callerId?: string | undefined;
  ringTimeoutSec: number;
  maxConcurrent: number;
  /** A queued call older than this is not dialed any more (expired at start, failed while running). */
  freshnessMs: number;
  maxRepeats?: number;
  digitWaitMs?: number;
  /** How often the database is looked at for calls queued by another process (CLI test calls). */
  pollMs?: number;
  maxTalkMs?: number;
}

export class Dialer {
  private readonly opts: Required<Omit<DialerOptions, 'callerId'>> & Pick<DialerOptions, 'callerId'>;
  private readonly queue = new CallQueue(REQUEUE_BACKOFF);
  private readonly sessions = new CallSessions();
  private readonly ledger: CallLedger;
  private readonly script: CallScript;
  private readonly recovery: CallRecovery;
  private pollTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly onAriEvent = (e: AriEvent) => this.route(e);
  // After a reconnect, the calls of before the drop are reconciled first, and only then are queued
  // calls dialed: a call dialed now has no channel yet and must not be taken for one that vanished.
  private readonly onConnected = ({ reconnect }: { reconnect: boolean }) => (reconnect ? void this.recovery.afterReconnect() : this.pump());

  constructor(options: DialerOptions) {
    this.opts = { maxRepeats: 2, digitWaitMs: 5_000, pollMs: 250, maxTalkMs: 5 * 60_000, ...options };
    const { ari, tts, logger, progress, writes, events, now, onFinal } = this.opts;
    this.ledger = new CallLedger({ progress, writes, events, logger, now, onFinal });
    this.script = new CallScript({
      ari,
      tts,
      logger,
      maxRepeats: this.opts.maxRepeats,
      digitWaitMs: this.opts.digitWaitMs,
      maxTalkMs: this.opts.maxTalkMs,
      isActive: (s) => this.sessions.has(s.call.callId),
      note: (s, event, detail) => this.ledger.note(s.call.callId, event, detail),
      hangup: (s, why) => this.hangup(s, why),
    });
    this.recovery = new CallRecovery(
      { progress, writes, ari, ledger: this.ledger, queue: this.queue, sessions: this.sessions, logger, now, freshnessMs: this.opts.freshnessMs },
      { enqueue: (callId) => this.enqueue(callId), end: (session, stop) => this.end(session, stop), pump: () => this.pump() },
    );
  }

  get activeCalls(): number {
    return this.sessions.size;
  }

  get queuedCalls(): number {
    return this.queue.length;
  }

  /** Recovers what a previous process left, then starts dialing. */
  start(): void {
    this.recovery.atStart();
    this.opts.ari.on('event', this.onAriEvent);
    this.opts.ari.on('connected', this.onConnected);
    this.pollTimer = setInterval(() => this.recovery.tick(), this.opts.pollMs);
    this.pollTimer.unref();
    this.pump();
  }

  /** A call was accepted (by the webhook or a test call): dial it as soon as a line is free. */
  enqueue(callId: string): void {
    if (this.stopping || this.sessions.has(callId)) return;
    if (this.queue.add(callId)) this.pump();
  }

  /** Stops taking calls; lets active calls end by themselves up to graceMs, then hangs them up. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    clearInterval(this.pollTimer);
    await this.sessions.whenEmpty(graceMs);
    for (const session of this.sessions.all()) {
      session.cutBecause = 'ringhook stopped during the call';
      await this.opts.ari.hangup(session.channelId).catch(() => {});
    }
    await this.sessions.whenEmpty(2_000);
    // Whatever did not end is interrupted: never redialed, SMS backup applies.
    for (const session of this.sessions.all()) this.end(session, { kind: 'stopped' });
    this.opts.ari.off('event', this.onAriEvent);
    this.opts.ari.off('connected', this.onConnected);
  }

  private pump(): void {
    if (this.stopping) return;
    while (this.sessions.size < this.opts.maxConcurrent && this.queue.length > 0 && this.opts.ari.isConnected) {
      void this.dial(this.queue.next()!);
    }
  }

  private async dial(callId: string): Promise<void> {
    const { progress, accounts, ari, tts, now } = this.opts;
    const call = progress.get(callId);
    if (!call || call.status !== 'queued') return;
    const account = accounts.get(call.userId);
    if (!account) return;
    if (!receivesCalls(account)) {
      // Suspended after the alert was accepted: no call of any kind, and no SMS in its place.
      this.ledger.end(call, 'failed', { endedAt: now(), error: 'the account was suspended before the call was placed' }, undefined, null);
      return;
    }
    const session = newSession(call, account.phone, now());
    // Registered before the originate, so no event of the channel can be missed.
    this.sessions.add(session);
    if (!this.ledger.transition(call, 'dialing', { phone: account.phone, channelId: session.channelId, dialedAt: session.dialedAt })) {
      this.sessions.remove(session);
      return;
    }
    // Speech is made while the phone rings, from the message as a trader would read it aloud.
    session.messageMedia = tts.synthesize(speakable(call.message)).then((s) => s.media);
    session.messageMedia.catch(() => {});
    arm(session, (this.opts.ringTimeoutSec + 15) * 1000, () => this.giveUp(session, 'no final event from Asterisk after the ring timeout'));
    const endpoint = this.opts.endpointFor(account.phone);
    try {
      await ari.originate({
        channelId: session.channelId,
        endpoint: endpoint.dial,
        appArgs: [callId],
        ...(this.opts.callerId && { callerId: this.opts.callerId }),
        timeoutSec: this.opts.ringTimeoutSec,
      });
      this.queue.taken(callId);
    } catch (error) {
      const waitFor = await nothingDialed(error, endpoint, ari);
      if (!waitFor) {
        this.end(session, { kind: 'originate-failed', refusedByAsterisk: error instanceof AriError && error.kind === 'http', message: (error as Error).message });
        return;
      }
      // Asterisk is down or stopping (a restart not yet seen on the events socket, or a graceful
      // restart waiting for calls to end): nothing was dialed, so the call goes back to the queue
      // and waits for Asterisk, within the freshness window.
      this.sessions.remove(session);
      if (this.ledger.transition(call, 'queued', {}, `${waitFor}: ${(error as Error).message}`)) this.queue.holdBack(callId, (id) => this.enqueue(id));
    }
  }

  private route(event: AriEvent): void {
    const channelId = eventChannelId(event);
    const session = channelId ? this.sessions.byChannel(channelId) : undefined;
    if (!session) return;
    const now = this.opts.now();
    switch (event.type) {
      case 'PlaybackFinished':
        this.script.playbackFinished(session, event.playback.id);
        break;
      case 'Dial':
        if (event.dialstatus === 'RINGING' && !session.rang) {
          session.rang = true;
          this.ledger.transition(session.call, 'ringing', { ringingAt: now });
        }
        break;
      case 'ChannelHangupRequest':
        noteHangupRequest(session, event);
        break;
      case 'StasisStart':
        session.answeredAt = now;
        this.ledger.transition(session.call, 'answered', { answeredAt: now, ringMs: now - session.dialedAt });
        void this.script.answered(session);
        break;
      case 'ChannelDtmfReceived':
        void this.script.digit(session, event.digit);
        break;
      case 'ChannelDestroyed':
        this.end(session, { kind: 'destroyed', cause: event.cause, causeText: event.cause_txt, techCause: event.tech_cause });
        break;
      default:
        break;
    }
  }

  private async hangup(session: CallSession, why: string): Promise<void> {
    this.ledger.note(session.call.callId, 'hangup', why);
    // Should the channel's end never be reported (events lost, Asterisk stuck), the call still ends.
    arm(session, HANGUP_CONFIRM_MS, () => this.end(session, { kind: 'hangup-unconfirmed' }));
    await this.opts.ari.hangup(session.channelId).catch((error: Error) => {
      this.opts.logger.warn('hangup failed', { call_id: session.call.callId, error });
    });
  }

  /** No final event came: the call is ended as failed rather than left hanging. */
  private giveUp(session: CallSession, why: string): void {
    if (session.answeredAt !== undefined) return;
    void this.opts.ari.hangup(session.channelId).catch(() => {});
    this.end(session, { kind: 'given-up', why });
  }

  private end(session: CallSession, stop: CallStop): void {
    if (!this.sessions.has(session.call.callId)) return;
    this.sessions.remove(session);
    this.queue.remove(session.call.callId);
    const { state, fields, detail } = decideCallEnd(session, stop, this.opts.now());
    this.ledger.end(session.call, state, fields, detail, session.phone);
    this.pump();
  }
}
