// A call's events as the flow reads them (calls/call-flow.ts): what Asterisk told of the line is
// kept in the session's line record, and what changes the call's course comes back as an action for
// the desk; the flow ends nothing itself. The desk's parts are stand-ins that record what was asked.
import { describe, expect, it } from 'vitest';
import { CallFlow, type FlowDeps } from '../../src/calls/call-flow.js';
import { CallSessions, factsOf, newSession } from '../../src/calls/call-session.js';
import type { CallForDialing } from '../../src/core/records.js';
import { silentLogger } from '../../src/lib/log.js';
import type { AriEvent } from '../../src/pbx/index.js';

const channel = (id: string) => ({ id, name: `PJSIP/${id}`, state: 'Up' });

function setUp() {
  const call = { callId: 'c1', userId: 'u1', message: 'm', status: 'dialing', kind: 'alert' } as CallForDialing;
  const session = newSession({ calls: [call], phone: '+14155550100', requireConfirm: false, dialedAt: 1_000 });
  const sessions = new CallSessions();
  sessions.add(session);
  const steps: string[] = [];
  const asked: string[] = [];
  const deps: FlowDeps = {
    settings: { now: () => 5_000, ari: {} as never, logger: silentLogger, detectMachine: false },
    sessions,
    pacer: { dialed: (key) => asked.push(`dialed ${key}`) },
    ledger: {
      note: () => {},
      detection: () => {},
      transitionAll: (calls, to) => {
        steps.push(`${calls[0]!.callId} ${to}`);
        return true;
      },
    },
    script: {
      answered: async () => void asked.push('script answered'),
      digit: async (_s, key) => void asked.push(`digit ${key}`),
      playbackFinished: () => {},
      machineAnswered: async () => {},
      leaveMessage: async () => {},
    },
    isActive: (s) => sessions.has(s.call.callId),
  };
  return { flow: new CallFlow(deps), session, steps, asked };
}

describe('CallFlow.route', () => {
  it("the channel's end comes back as the desk's action, with Asterisk's cause; the call is still the desk's to end", () => {
    const { flow, session } = setUp();
    const event = { type: 'ChannelDestroyed', channel: channel(session.channelId), cause: 17, cause_txt: 'User busy' };
    expect(flow.route(event as AriEvent)).toEqual({
      session,
      action: { act: 'end', stop: { kind: 'destroyed', cause: 17, causeText: 'User busy', techCause: undefined } },
    });
  });

  it('ringing and the answer are kept on the line and recorded once; an event of a call not followed is nothing', () => {
    const { flow, session, steps, asked } = setUp();
    const dial = { type: 'Dial', peer: channel(session.channelId), dialstatus: 'RINGING' } as AriEvent;
    expect(flow.route(dial)).toBeUndefined();
    expect(flow.route(dial)).toBeUndefined();
    expect(flow.route({ type: 'StasisStart', channel: channel(session.channelId) } as AriEvent)).toBeUndefined();
    expect(session.line).toMatchObject({ rang: true, answeredAt: 5_000 });
    expect(steps).toEqual(['c1 ringing', 'c1 answered']);
    expect(asked).toEqual(['dialed c1', 'dialed c1', 'script answered']);
    expect(flow.route({ type: 'Dial', peer: channel('rh-other'), dialstatus: 'RINGING' } as AriEvent)).toBeUndefined();
  });

  it("a hangup asked for: the far end's answer before the answer, or Asterisk stopping (the call is cut); both read by the end's facts", () => {
    const far = setUp();
    far.flow.route({
      type: 'ChannelHangupRequest',
      channel: channel(far.session.channelId),
      cause: 17,
      tech_cause: 486,
    } as AriEvent);
    expect(factsOf(far.session)).toMatchObject({ farEnd: { cause: 17, sipCode: 486 }, cutBecause: undefined });
    const cut = setUp();
    cut.flow.route({
      type: 'ChannelHangupRequest',
      channel: channel(cut.session.channelId),
      cause: 4,
      soft: true,
    } as AriEvent);
    expect(factsOf(cut.session)).toMatchObject({ cutBecause: 'asterisk_stopped', farEnd: undefined });
    cut.flow.cutAtStop(cut.session);
    expect(factsOf(cut.session).cutBecause).toBe('ringhook_stopped');
  });
});
