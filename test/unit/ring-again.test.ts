// Ring again (#54): whether a missed call's alert is called again, when, and what is said of it.
import { describe, expect, it } from 'vitest';
import { callbackEventsFor, type CallbackCallFacts } from '../../src/core/callbacks/callback-events.js';
import {
  decideRingAgain,
  describeRingAgain,
  missedPerson,
  parseRingAgain,
  parseRingAgainAfter,
  readAttempts,
  type RingAgainFacts,
} from '../../src/core/calls/ring-again.js';

const account = { ringAgain: 1, ringAgainAfter: 60, requireConfirm: true, status: 'active' as const };
const facts: RingAgainFacts = {
  state: 'no_answer',
  attempt: 1,
  dialedAt: 1_000_000,
  now: 1_030_000,
  account,
  newerAlertForPhone: false,
};

describe('decideRingAgain', () => {
  it('rings a missed alert again from the start of the call before, never before its end', () => {
    expect(decideRingAgain(facts)).toEqual({ again: true, attempt: 2, at: 1_060_000 });
    // The call rang longer than the gap: the next starts at once.
    expect(decideRingAgain({ ...facts, now: 1_090_000 })).toEqual({ again: true, attempt: 2, at: 1_090_000 });
  });

  it('rings again for every way of missing the person, unconfirmed only where a 1 is required', () => {
    for (const state of ['no_answer', 'busy', 'unreachable', 'voicemail', 'rejected', 'unconfirmed'] as const)
      expect(decideRingAgain({ ...facts, state }).again).toBe(true);
    expect(missedPerson('unconfirmed', false)).toBe(false);
    expect(decideRingAgain({ ...facts, state: 'unconfirmed', account: { ...account, requireConfirm: false } })).toEqual(
      { again: false },
    );
  });

  it('stops at a person reached, an expired or failed alert, a suspended account, a newer alert, or the count', () => {
    for (const state of ['acknowledged', 'completed', 'expired', 'failed', 'interrupted', 'sms_instead'] as const)
      expect(decideRingAgain({ ...facts, state })).toEqual({ again: false });
    expect(decideRingAgain({ ...facts, account: { ...account, status: 'suspended' } })).toEqual({ again: false });
    expect(decideRingAgain({ ...facts, newerAlertForPhone: true })).toEqual({ again: false });
    expect(decideRingAgain({ ...facts, attempt: 2 })).toEqual({ again: false });
    expect(decideRingAgain({ ...facts, attempt: 2, account: { ...account, ringAgain: 2 } })).toMatchObject({
      again: true,
      attempt: 3,
    });
    expect(decideRingAgain({ ...facts, attempt: 3, account: { ...account, ringAgain: 2 } })).toEqual({ again: false });
    expect(decideRingAgain({ ...facts, account: { ...account, ringAgain: 0 } })).toEqual({ again: false });
  });
});

describe('the setting', () => {
  it('takes 0 to 2 calls and 20 to 170 s, naming a value out of range', () => {
    expect(parseRingAgain('1')).toEqual({ ok: true, value: 1 });
    expect(parseRingAgain('0')).toEqual({ ok: true, value: 0 });
    for (const bad of ['3', '-1', 'x', '1.5', ''])
      expect(parseRingAgain(bad)).toEqual({ ok: false, error: expect.stringContaining(`'${bad}'`) });
    expect(parseRingAgainAfter('20')).toEqual({ ok: true, value: 20 });
    expect(parseRingAgainAfter('170')).toEqual({ ok: true, value: 170 });
    for (const bad of ['19', '171', 'soon', '60.5'])
      expect(parseRingAgainAfter(bad)).toEqual({ ok: false, error: expect.stringContaining(`'${bad}'`) });
  });

  it('says in one sentence what happens to a missed call', () => {
    expect(describeRingAgain({ ringAgain: 1, ringAgainAfter: 60 })).toMatch(
      /^A missed call is tried again once, 60 s after the start of the one before, from the same number/,
    );
    expect(describeRingAgain({ ringAgain: 2, ringAgainAfter: 20 })).toContain('tried again twice, 20 s');
    expect(describeRingAgain({ ringAgain: 0, ringAgainAfter: 60 })).toMatch(/^A missed call is not tried again/);
  });

  it('reads the earlier attempts kept on a call, an unreadable list as none', () => {
    expect(readAttempts('[{"at":5,"outcome":"no_answer"}]')).toEqual([{ at: 5, outcome: 'no_answer' }]);
    expect(readAttempts('nonsense')).toEqual([]);
    expect(readAttempts(null)).toEqual([]);
  });
});

describe('status callbacks of a call rung again', () => {
  const call: CallbackCallFacts = {
    callId: 'call_abc',
    userId: 'u1',
    kind: 'alert',
    status: 'queued',
    error: null,
    smsStatus: null,
    smsError: null,
    smsParts: null,
    receivedAt: Date.parse('2026-12-06T20:00:00Z'),
    answeredAt: null,
    endedAt: null,
  };

  it('carries the attempt on call.* events, each attempt its own key, and announces the retry', () => {
    const first = callbackEventsFor('ringing', call);
    expect(first).toEqual([
      expect.objectContaining({ key: 'call_abc:call.ringing', data: expect.objectContaining({ attempt: 1 }) }),
    ]);
    const second = {
      ...call,
      attempt: 2,
      retryAt: Date.parse('2026-12-06T20:01:00Z'),
      earlierAttempts: [{ at: 1, outcome: 'no_answer' }],
    };
    expect(callbackEventsFor('queued', second)).toEqual([
      {
        type: 'call.retry_scheduled',
        key: 'call_abc:call.retry_scheduled:2',
        callId: 'call_abc',
        data: expect.objectContaining({
          attempt: 2,
          retry_at: '2026-12-06T20:01:00.000Z',
          missed_outcome: 'no_answer',
        }),
      },
    ]);
    expect(callbackEventsFor('ringing', second)[0]).toMatchObject({
      key: 'call_abc:call.ringing:2',
      data: { attempt: 2 },
    });
    expect(callbackEventsFor('acknowledged', second)[0]).toMatchObject({
      key: 'call_abc:call.final',
      data: { attempt: 2 },
    });
  });
});
