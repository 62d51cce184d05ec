// A placed call's life as Asterisk tells it: its events move the call on (Dial: ringing and the
// pace; StasisStart: the answer, the message starts at once; the phone talking: machine detection;
// digits and the playback's end: the script; the channel's end: an action for the desk). It is the
// only writer of what Asterisk told of the line (session.line); what it comes to that changes the
// call's course is a FlowAction, which the desk alone applies (call-desk.ts); what an end means is
// decided in core/calls/call-end.
import type { CallStop } from '../core/calls/call-end.js';
import { type AriEvent, type AriEventOf, eventChannelId } from '../pbx/index.js';
import type { CallLedger } from './call-ledger.js';
import type { CallScript, ScriptOutcome } from './call-script.js';
import { alertsOf, type CallSession, type CallSessions, type LineRecord } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';
import { hangUp } from './hang-up.js';
import { type DetectionDeps, MachineDetection } from './machine-detection.js';
import type { Pacer } from './pacer.js';

/**
 * What a call's events come to that the desk applies (call-desk.ts: apply): the channel ended (the
 * call ends), or the script's outcome (hang up; #56 adds the decision keys' `decision` there).
 */
export type FlowAction = { act: 'end'; stop: CallStop } | ScriptOutcome;

/**
 * ChannelHangupRequest's `cause` when `soft` is Asterisk's soft-hangup reason (a set of flags, not
 * a Q.850 cause): this one is AST_SOFTHANGUP_SHUTDOWN, a channel hung up because Asterisk stops.
 */
const SOFT_HANGUP_SHUTDOWN = 4;

/** What the flow (and machine detection, which it runs) is given. */
export interface FlowDeps extends DetectionDeps {
  readonly settings: Pick<DialerSettings, 'now' | 'ari' | 'logger' | 'detectMachine'>;
  readonly sessions: Pick<CallSessions, 'byChannel'>;
  readonly pacer: Pick<Pacer, 'dialed'>;
  readonly ledger: Pick<CallLedger, 'note' | 'detection' | 'transitionAll'>;
  readonly script: Pick<CallScript, 'machineAnswered' | 'leaveMessage' | 'playbackFinished' | 'digit' | 'answered'>;
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

  constructor(private readonly deps: FlowDeps) {
    this.detection = new MachineDetection(deps, (session, verdict) => {
      // A machine: the message stops while its greeting goes on; the greeting over: the message is left on it.
      void (verdict === 'machine' ? deps.script.machineAnswered(session) : deps.script.leaveMessage(session));
    });
  }

  /** One of Asterisk's events, for the call it names: what it comes to for the desk, if anything. */
  route(event: AriEvent): { session: CallSession; action: FlowAction } | undefined {
    const { sessions, settings, script } = this.deps;
    const channelId = eventChannelId(event);
    const session = channelId ? sessions.byChannel(channelId) : undefined;
    if (!session) {
      // Only ringhook's calls enter its app: one it no longer follows (ended while its originate
      // went unanswered, or from before a restart) is hung up rather than left to silence.
      if (event.type === 'StasisStart' && channelId) {
        settings.logger.warn('a call ringhook no longer follows was answered: hung up', { channel_id: channelId });
        void hangUp(settings, channelId, { why: 'a call ringhook no longer follows' });
      }
      return undefined;
    }
    const line = lineOf(session);
    switch (event.type) {
      case 'PlaybackFinished':
        script.playbackFinished(session, event.playback.id);
        break;
      case 'Dial':
        this.deps.pacer.dialed(session.call.callId);
        // 183 (PROGRESS) is how many mobile networks ring: with early media, and no 180.
        if ((event.dialstatus === 'RINGING' || event.dialstatus === 'PROGRESS') && !line.rang) {
          line.rang = true;
          this.deps.ledger.transitionAll(alertsOf(session), 'ringing', { fields: { ringingAt: settings.now() } });
        }
        break;
      case 'ChannelHangupRequest':
        heardHangupRequest(line, event);
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
      case 'ChannelDestroyed': {
        const stop: CallStop = {
          kind: 'destroyed',
          cause: event.cause,
          causeText: event.cause_txt,
          techCause: event.tech_cause,
        };
        return { session, action: { act: 'end', stop } };
      }
      default:
        break;
    }
    return undefined;
  }

  /** ringhook stops: the call is cut (it is hung up next, and its end says why). */
  cutAtStop(session: CallSession): void {
    lineOf(session).cutBecause = 'ringhook_stopped';
  }

  /** The call was answered (its StasisStart, or found answered after the events were cut off). */
  answered(session: CallSession): void {
    const { settings, ledger, script } = this.deps;
    const now = settings.now();
    lineOf(session).answeredAt = now;
    ledger.transitionAll(alertsOf(session), 'answered', {
      fields: { answeredAt: now, ringMs: now - session.dialedAt },
    });
    // Speech first: the answer hears the message at once, and its audio opens a home router's way back.
    void script.answered(session);
    if (settings.detectMachine) this.detection.start(session);
  }
}

/** The call's line record, as its one writer sees it. */
const lineOf = (session: CallSession) => session.line as LineRecord;

/** A hangup is asked for: by Asterisk stopping (the call is cut), or by the far end before answering. */
function heardHangupRequest(line: LineRecord, event: AriEventOf<'ChannelHangupRequest'>): void {
  if (event.soft && event.cause !== undefined && (event.cause & SOFT_HANGUP_SHUTDOWN) !== 0)
    line.cutBecause = 'asterisk_stopped';
  else if (line.answeredAt === undefined) line.farEnd = { cause: event.cause, sipCode: event.tech_cause };
}
