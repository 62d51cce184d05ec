// A placed call's life, from its originate to its end: Asterisk's events move it on (Dial: ringing
// and the pace; StasisStart: the answer, the message starts at once; the phone talking: the
// machine detection; digits and the playback's end: the script; the channel's end), and it is hung up, given
// up or ended here. The script an answered call hears, the detection and the placement are modules
// of their own; what an end means is decided in core/call-end.
import { decideCallEnd, type CallStop } from '../core/call-end.js';
import type { Logger } from '../lib/log.js';
import { type AriEvent, eventChannelId } from '../pbx/ari.js';
import type { CallLedger } from './call-ledger.js';
import { CallPlacement } from './call-placement.js';
import type { CallQueue } from './call-queue.js';
import { CallScript } from './call-script.js';
import { alertsOf, arm, type CallSession, type CallSessions, noteHangupRequest } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';
import type { Endpoint } from '../pbx/endpoint.js';
import { MachineDetection } from './machine-detection.js';
import type { Pacer } from './pacer.js';

/** After ringhook hangs a call up, how long Asterisk has to report the channel's end. */
const HANGUP_CONFIRM_MS = 15_000;

export interface CallFlowDeps {
  settings: DialerSettings;
  sessions: CallSessions;
  ledger: CallLedger;
  queue: CallQueue;
  pacer: Pacer;
  enqueue: (callId: string) => void;
  stopping: () => boolean;
  /** A line is free again: more calls may be placed. */
  pump: () => void;
}

export class CallFlow {
  /** The ARI events route() reads: Asterisk sends no other (AriClientOptions.events). */
  static readonly EVENTS = [
    'PlaybackFinished',
    'Dial',
    'ChannelHangupRequest',
    'StasisStart',
    'ChannelDtmfReceived',
    'ChannelTalkingStarted',
    'ChannelTalkingFinished',
    'ChannelDestroyed',
  ] as const;

  private readonly script: CallScript;
  private readonly detection: MachineDetection;
  private readonly placement: CallPlacement;
  private readonly logger: Logger;

  constructor(private readonly deps: CallFlowDeps) {
    const { settings, sessions, ledger } = deps;
    const { ari, tts } = settings;
    this.logger = settings.logger;
    const isActive = (s: CallSession) => sessions.has(s.call.callId);
    const hangup = (s: CallSession, why: string) => this.hangup(s, why);
    this.script = new CallScript({
      ari,
      tts,
      logger: this.logger,
      maxRepeats: settings.maxRepeats,
      digitWaitMs: settings.digitWaitMs,
      maxTalkMs: settings.maxTalkMs,
      isActive,
      note: (s, event, detail) => {
        for (const alert of alertsOf(s)) ledger.note(alert.callId, event, detail);
      },
      hangup,
      now: settings.now,
      firstSpeech: settings.onFirstSpeech,
    });
    this.detection = new MachineDetection({
      ledger,
      now: settings.now,
      isActive,
      machine: (s) => void this.script.machineAnswered(s),
      greetingOver: (s) => void this.script.leaveMessage(s),
    });
    this.placement = new CallPlacement({
      ari,
      settings,
      sessions,
      ledger,
      queue: deps.queue,
      enqueue: deps.enqueue,
      giveUp: (s, why) => this.giveUp(s, why),
      end: (s, stop) => this.end(s, stop),
      stopping: deps.stopping,
    });
  }

  /** Makes the call's fixed phrases while it is set up, so that an answer is spoken to at once. */
  prepare(session: CallSession): void {
    this.script.prepare(session);
  }

  place(session: CallSession, endpoint: Endpoint): Promise<void> {
    return this.placement.place(session, endpoint);
  }

  /** Nothing was dialed: the call's alerts wait in the queue again. */
  putBack(session: CallSession, why: string): void {
    this.placement.putBack(session, why);
  }

  route(event: AriEvent): void {
    const { sessions, settings } = this.deps;
    const channelId = eventChannelId(event);
    const session = channelId ? sessions.byChannel(channelId) : undefined;
    if (!session) {
      // Only ringhook's calls enter its app: one it no longer follows (ended while its originate
      // went unanswered, or from before a restart) is hung up rather than left to silence.
      if (event.type === 'StasisStart' && channelId) {
        this.logger.warn('a call ringhook no longer follows was answered: hung up', { channel_id: channelId });
        void settings.ari.hangup(channelId).catch(() => {});
      }
      return;
    }
    switch (event.type) {
      case 'PlaybackFinished':
        this.script.playbackFinished(session, event.playback.id);
        break;
      case 'Dial':
        this.deps.pacer.dialed(session.call.callId);
        // 183 (PROGRESS) is how many mobile networks ring: with early media, and no 180.
        if ((event.dialstatus === 'RINGING' || event.dialstatus === 'PROGRESS') && !session.rang) {
          session.rang = true;
          this.deps.ledger.transitionAll(alertsOf(session), 'ringing', { ringingAt: settings.now() });
        }
        break;
      case 'ChannelHangupRequest':
        noteHangupRequest(session, event);
        break;
      case 'StasisStart':
        this.answered(session);
        break;
      case 'ChannelDtmfReceived':
        this.detection.digit(session);
        void this.script.digit(session, event.digit);
        break;
      case 'ChannelTalkingStarted':
        this.detection.talkingStarted(session);
        break;
      case 'ChannelTalkingFinished':
        this.detection.talkingFinished(session, event.duration);
        break;
      case 'ChannelDestroyed':
        this.end(session, { kind: 'destroyed', cause: event.cause, causeText: event.cause_txt, techCause: event.tech_cause });
        break;
      default:
        break;
    }
  }

  answered(session: CallSession): void {
    const now = this.deps.settings.now();
    session.answeredAt = now;
    this.deps.ledger.transitionAll(alertsOf(session), 'answered', { answeredAt: now, ringMs: now - session.dialedAt });
    // Speech first: the answer hears the message at once, and its audio opens a home router's way back.
    void this.script.answered(session);
    if (this.deps.settings.detectMachine) this.detection.start(session);
  }

  end(session: CallSession, stop: CallStop): void {
    const { sessions, queue, ledger, settings } = this.deps;
    if (!sessions.has(session.call.callId)) return;
    this.deps.pacer.dialed(session.call.callId);
    if (this.placement.placedAgain(session, stop)) return;
    sessions.remove(session);
    const alerts = alertsOf(session);
    for (const alert of alerts) queue.remove(alert.callId);
    const { state, fields, detail } = decideCallEnd(session, stop, settings.now());
    ledger.end(alerts, state, fields, detail, session.phone);
    this.deps.pump();
  }

  private async hangup(session: CallSession, why: string): Promise<void> {
    this.deps.ledger.note(session.call.callId, 'hangup', why);
    // Should the channel's end never be reported (events lost, Asterisk stuck), the call still ends.
    arm(session, HANGUP_CONFIRM_MS, () => this.end(session, { kind: 'hangup-unconfirmed' }));
    await this.deps.settings.ari.hangup(session.channelId).catch((error: Error) => {
      this.logger.warn('hangup failed', { call_id: session.call.callId, error });
    });
  }

  /** No final event came: the call is ended as failed rather than left hanging. */
  private giveUp(session: CallSession, why: string): void {
    if (session.answeredAt !== undefined) return;
    void this.deps.settings.ari.hangup(session.channelId).catch(() => {});
    this.end(session, { kind: 'given-up', why });
  }
}
