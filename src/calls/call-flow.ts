// A placed call's life as Asterisk tells it: its events move the call on (Dial: ringing and the
// pace; StasisStart: the answer, the message starts at once; the phone talking: machine detection;
// digits and the playback's end: the script; the channel's end: the desk ends it). The state it moves is
// the call desk's (call-desk.ts); what an end means is decided in core/calls/call-end.
import type { CallStop } from '../core/calls/call-end.js';
import { type AriEvent, eventChannelId } from '../pbx/index.js';
import type { CallLedger } from './call-ledger.js';
import type { CallScript } from './call-script.js';
import { alertsOf, type CallSession, type CallSessions, noteHangupRequest } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';
import { hangUp } from './hang-up.js';
import { type DetectionDesk, MachineDetection } from './machine-detection.js';
import type { Pacer } from './pacer.js';

/** What the flow (and machine detection, which it runs) uses of the call desk (call-desk.ts). */
export interface FlowDesk extends DetectionDesk {
  readonly settings: Pick<DialerSettings, 'now' | 'ari' | 'logger' | 'detectMachine'>;
  readonly sessions: Pick<CallSessions, 'byChannel'>;
  readonly pacer: Pick<Pacer, 'dialed'>;
  readonly ledger: Pick<CallLedger, 'note' | 'detection' | 'transitionAll'>;
  readonly script: Pick<CallScript, 'machineAnswered' | 'leaveMessage' | 'playbackFinished' | 'digit' | 'answered'>;
  end(session: CallSession, stop: CallStop): void;
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

  private readonly detection: MachineDetection;

  constructor(private readonly desk: FlowDesk) {
    this.detection = new MachineDetection(desk);
  }

  route(event: AriEvent): void {
    const { sessions, settings, script } = this.desk;
    const channelId = eventChannelId(event);
    const session = channelId ? sessions.byChannel(channelId) : undefined;
    if (!session) {
      // Only ringhook's calls enter its app: one it no longer follows (ended while its originate
      // went unanswered, or from before a restart) is hung up rather than left to silence.
      if (event.type === 'StasisStart' && channelId) {
        settings.logger.warn('a call ringhook no longer follows was answered: hung up', { channel_id: channelId });
        void hangUp(settings, channelId, { why: 'a call ringhook no longer follows' });
      }
      return;
    }
    switch (event.type) {
      case 'PlaybackFinished':
        script.playbackFinished(session, event.playback.id);
        break;
      case 'Dial':
        this.desk.pacer.dialed(session.call.callId);
        // 183 (PROGRESS) is how many mobile networks ring: with early media, and no 180.
        if ((event.dialstatus === 'RINGING' || event.dialstatus === 'PROGRESS') && !session.rang) {
          session.rang = true;
          this.desk.ledger.transitionAll(alertsOf(session), 'ringing', { fields: { ringingAt: settings.now() } });
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
        void script.digit(session, event.digit);
        break;
      case 'ChannelTalkingStarted':
        this.detection.talkingStarted(session);
        break;
      case 'ChannelTalkingFinished':
        this.detection.talkingFinished(session, event.duration);
        break;
      case 'ChannelDestroyed':
        this.desk.end(session, {
          kind: 'destroyed',
          cause: event.cause,
          causeText: event.cause_txt,
          techCause: event.tech_cause,
        });
        break;
      default:
        break;
    }
  }

  /** The call was answered (its StasisStart, or found answered after the events were cut off). */
  answered(session: CallSession): void {
    const { settings, ledger, script } = this.desk;
    const now = settings.now();
    session.answeredAt = now;
    ledger.transitionAll(alertsOf(session), 'answered', {
      fields: { answeredAt: now, ringMs: now - session.dialedAt },
    });
    // Speech first: the answer hears the message at once, and its audio opens a home router's way back.
    void script.answered(session);
    if (settings.detectMachine) this.detection.start(session);
  }
}
