// How unanswered calls are classified, from the events Asterisk 22 was seen to send
// (docs/telephony.md), and which state steps are legal.
import { describe, expect, it } from 'vitest';
import {
  canTransition,
  FINAL_STATES,
  IN_FLIGHT_STATES,
  isFinal,
  isInFlight,
  SMS_BACKUP_STATES,
} from '../../src/core/calls/call-state.js';
import { classifyUnanswered, type UnansweredFacts } from '../../src/core/calls/outcome.js';

describe('classifyUnanswered, on what SIPp phones produced through Asterisk 22.10', () => {
  const observed: Array<[string, UnansweredFacts, string]> = [
    ['486 Busy Here', { cause: 17, sipCode: 486, farEndAnswered: true, rang: true }, 'busy'],
    ['603 Decline', { cause: 21, sipCode: 603, farEndAnswered: true, rang: true }, 'rejected'],
    ['480 from the phone', { cause: 19, sipCode: 480, farEndAnswered: true, rang: true }, 'unreachable'],
    ['503 from the phone', { cause: 34, sipCode: 503, farEndAnswered: true, rang: true }, 'unreachable'],
    ['rings until the timeout', { cause: 19, sipCode: 480, farEndAnswered: false, rang: true }, 'no_answer'],
    ['nothing listening', { cause: 19, sipCode: 480, farEndAnswered: false, rang: false }, 'unreachable'],
  ];
  it.each(observed)('%s', (_name, facts, expected) => {
    expect(classifyUnanswered(facts)).toBe(expected);
  });

  it.each([
    [{ cause: 17, farEndAnswered: false, rang: false }, 'busy'],
    [{ cause: 0, sipCode: 600, farEndAnswered: true, rang: false }, 'busy'],
    [{ cause: 21, farEndAnswered: true, rang: false }, 'rejected'],
    [{ cause: 18, sipCode: 408, farEndAnswered: true, rang: false }, 'unreachable'],
    [{ cause: 1, sipCode: 404, farEndAnswered: true, rang: false }, 'unreachable'],
    [{ cause: 3, farEndAnswered: false, rang: false }, 'unreachable'],
    [{ cause: 38, farEndAnswered: false, rang: false }, 'unreachable'],
    [{ cause: 16, farEndAnswered: false, rang: true }, 'no_answer'],
    [{ cause: 16, farEndAnswered: false, rang: false }, 'unreachable'],
    [{ cause: 99, farEndAnswered: false, rang: false }, 'failed'],
  ] as Array<[UnansweredFacts, string]>)(
    'older Asterisk (no tech_cause) or other causes: %j → %s',
    (facts, expected) => {
      expect(classifyUnanswered(facts)).toBe(expected);
    },
  );
});

describe('call states', () => {
  it('every state is in flight or final, never both', () => {
    for (const s of IN_FLIGHT_STATES) expect([isInFlight(s), isFinal(s)]).toEqual([true, false]);
    for (const s of FINAL_STATES) expect([isInFlight(s), isFinal(s)]).toEqual([false, true]);
  });

  it('walks the happy path and refuses to leave a final state or go back', () => {
    expect(canTransition('queued', 'dialing')).toBe(true);
    expect(canTransition('dialing', 'ringing')).toBe(true);
    expect(canTransition('ringing', 'answered')).toBe(true);
    expect(canTransition('answered', 'completed')).toBe(true);
    expect(canTransition('answered', 'acknowledged')).toBe(true);
    expect(canTransition('dialing', 'answered')).toBe(true);
    for (const final of FINAL_STATES)
      for (const next of [...IN_FLIGHT_STATES, ...FINAL_STATES]) expect(canTransition(final, next)).toBe(false);
    expect(canTransition('ringing', 'dialing')).toBe(false);
    // Back to the queue from dialing (the originate never reached Asterisk), and from any step of a
    // call whose missed alert is rung again (#54: only the desk's ring-again decision takes that step).
    expect(canTransition('dialing', 'queued')).toBe(true);
    expect(canTransition('ringing', 'queued')).toBe(true);
    expect(canTransition('answered', 'queued')).toBe(true);
    expect(canTransition('answered', 'busy')).toBe(false);
    expect(canTransition('queued', 'answered')).toBe(false);
  });

  it('a queued call is never interrupted (it was not dialed) but can expire; a dialed one never expires', () => {
    expect(canTransition('queued', 'expired')).toBe(true);
    expect(canTransition('queued', 'interrupted')).toBe(false);
    for (const s of ['dialing', 'ringing', 'answered'] as const) {
      expect(canTransition(s, 'interrupted')).toBe(true);
      expect(canTransition(s, 'expired')).toBe(false);
    }
  });

  it("the SMS backup follows exactly the unheard, unanswered, interrupted and expired ends, and quiet hours' SMS instead of the call", () => {
    expect([...SMS_BACKUP_STATES].sort()).toEqual([
      'busy',
      'expired',
      'failed',
      'interrupted',
      'no_answer',
      'rejected',
      'sms_instead',
      'unconfirmed',
      'unreachable',
      'voicemail',
    ]);
  });
});
