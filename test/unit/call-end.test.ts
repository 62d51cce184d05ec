// What a call's end means: every way a call stops, decided without Asterisk.
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/core/backoff.js';
import { decideCallEnd, freshSince, queuedFate, type CallFacts } from '../../src/core/calls/call-end.js';
import { reasonText } from '../../src/core/reasons.js';

const dialed: CallFacts = { dialedAt: 1_000, rang: true, acknowledged: false };
const answered: CallFacts = { ...dialed, answeredAt: 3_000, messageStarted: true };
const destroyed = (cause: number, techCause?: number) => ({
  kind: 'destroyed' as const,
  cause,
  causeText: `cause ${cause}`,
  techCause,
});
const NOW = 10_000;

describe('decideCallEnd', () => {
  it('a decision key ends an answered call acknowledged at once (#56), with its talk time; even where 1 is required', () => {
    const decided = { kind: 'decided' as const, decision: { key: '7', label: 'buy' } };
    expect(decideCallEnd({ ...answered, requireConfirm: true }, decided, NOW)).toEqual({
      state: 'acknowledged',
      fields: { endedAt: NOW, talkMs: NOW - 3_000 },
    });
  });

  it('an unanswered call ends by its cause, with its ring time and SIP code, its reason in words and the detail', () => {
    expect(decideCallEnd(dialed, destroyed(17, 486), NOW)).toEqual({
      state: 'busy',
      fields: {
        endedAt: NOW,
        hangupCause: 17,
        hangupCauseText: 'cause 17',
        sipCode: 486,
        ringMs: 9_000,
        error: reasonText('busy'),
        reasonDetail: 'SIP 486, cause 17 (cause 17)',
      },
    });
    expect(decideCallEnd({ ...dialed, phone: '+14155550123' }, destroyed(28, 484), NOW)).toMatchObject({
      state: 'unreachable',
      fields: {
        error: reasonText('wrong_number', { phone: '+14155550123' }),
        reasonDetail: 'SIP 484, cause 28 (cause 28)',
      },
    });
    // Cause 21 for a 403 ends `rejected` as before; its reason says the provider refused ringhook, not the phone.
    expect(decideCallEnd({ ...dialed, rang: false }, destroyed(21, 403), NOW)).toMatchObject({
      state: 'rejected',
      fields: { error: reasonText('provider_credentials'), sipCode: 403 },
    });
    expect(decideCallEnd(dialed, destroyed(21), NOW).state).toBe('rejected');
    expect(decideCallEnd(dialed, destroyed(19), NOW).state).toBe('no_answer');
    expect(decideCallEnd({ ...dialed, farEnd: { cause: 19, sipCode: 480 } }, destroyed(19), NOW)).toMatchObject({
      state: 'unreachable',
      fields: { sipCode: 480 },
    });
  });

  it('an answered call is completed, acknowledged with a 1, failed when its speech failed; talk time kept', () => {
    expect(decideCallEnd(answered, destroyed(16), NOW)).toEqual({
      state: 'completed',
      fields: { endedAt: NOW, hangupCause: 16, hangupCauseText: 'cause 16', talkMs: 7_000 },
    });
    expect(decideCallEnd({ ...answered, acknowledged: true }, destroyed(16), NOW).state).toBe('acknowledged');
    expect(decideCallEnd({ ...answered, speechFailed: 'no file' }, destroyed(16), NOW)).toMatchObject({
      state: 'failed',
      fields: { error: reasonText('speech_failed'), reasonDetail: 'speech failed: no file' },
    });
  });

  it('heard or not: a machine ends voicemail, an unconfirmed call ends unconfirmed when confirmation is required; a 1 always counts', () => {
    expect(decideCallEnd({ ...answered, machine: true }, destroyed(16), NOW)).toMatchObject({
      state: 'voicemail',
      fields: { talkMs: 7_000 },
    });
    expect(decideCallEnd({ ...answered, requireConfirm: true }, destroyed(16), NOW).state).toBe('unconfirmed');
    expect(decideCallEnd({ ...answered, requireConfirm: true, acknowledged: true }, destroyed(16), NOW).state).toBe(
      'acknowledged',
    );
    expect(decideCallEnd({ ...answered, machine: true, requireConfirm: true }, destroyed(16), NOW).state).toBe(
      'voicemail',
    );
    expect(decideCallEnd({ ...answered, requireConfirm: true, speechFailed: 'x' }, destroyed(16), NOW).state).toBe(
      'failed',
    );
    // Hung up before the message began (while the machine check listened): not heard, whatever the setting.
    expect(decideCallEnd({ ...answered, messageStarted: false }, destroyed(16), NOW).state).toBe('unconfirmed');
    // Not heard is not an error: the record carries no error text for it.
    expect(decideCallEnd({ ...answered, requireConfirm: true }, { kind: 'hangup-unconfirmed' }, NOW)).toMatchObject({
      state: 'unconfirmed',
      fields: { endedAt: NOW },
    });
    expect(
      decideCallEnd({ ...answered, requireConfirm: true }, { kind: 'hangup-unconfirmed' }, NOW).fields.error,
    ).toBeUndefined();
  });

  it('a call cut by Asterisk or ringhook stopping is interrupted with the reason, unless already acknowledged', () => {
    const cut: CallFacts = { ...answered, cutBecause: 'asterisk_stopped' };
    expect(decideCallEnd(cut, destroyed(0), NOW)).toMatchObject({
      state: 'interrupted',
      detail: 'Asterisk stopped during the call (restart or shutdown): cause 0 (cause 0)',
      fields: {
        error: reasonText('asterisk_stopped'),
        reasonDetail: 'Asterisk stopped during the call (restart or shutdown): cause 0 (cause 0)',
        talkMs: 7_000,
      },
    });
    expect(decideCallEnd({ ...cut, acknowledged: true }, destroyed(16), NOW).state).toBe('acknowledged');
    expect(decideCallEnd(answered, { kind: 'stopped' }, NOW)).toMatchObject({
      state: 'interrupted',
      fields: { error: reasonText('ringhook_stopped'), reasonDetail: 'ringhook stopped during the call' },
    });
  });

  it('a call lost while the events connection was down is interrupted, or acknowledged if the 1 came', () => {
    expect(decideCallEnd(answered, { kind: 'lost' }, NOW)).toEqual({
      state: 'interrupted',
      fields: {
        endedAt: NOW,
        error: reasonText('events_lost'),
        reasonDetail: 'the call ended while the connection to Asterisk was down',
      },
      detail: 'the call ended while the connection to Asterisk was down',
    });
    expect(decideCallEnd({ ...answered, acknowledged: true }, { kind: 'lost' }, NOW)).toMatchObject({
      state: 'acknowledged',
      fields: { endedAt: NOW },
    });
  });

  it('a hang-up Asterisk never confirmed ends as answered, noted; a call with no final event fails', () => {
    expect(decideCallEnd(answered, { kind: 'hangup-unconfirmed' }, NOW)).toMatchObject({
      state: 'completed',
      fields: { talkMs: 7_000 },
      detail: 'Asterisk did not report the end of the call after ringhook hung up',
    });
    expect(decideCallEnd(dialed, { kind: 'given-up', why: 'no final event' }, NOW)).toMatchObject({
      state: 'failed',
      fields: { error: reasonText('no_final_event'), reasonDetail: 'no final event' },
    });
    expect(
      decideCallEnd(dialed, { kind: 'given-up', why: 'its speech could not be made: x', reason: 'speech_failed' }, NOW)
        .fields.error,
    ).toBe(reasonText('speech_failed'));
  });

  it('an originate Asterisk refused is unreachable (no softphone registered, or the trunk refused); any other failure is failed; never retried', () => {
    const refused = {
      kind: 'originate-failed',
      refusedByAsterisk: true,
      endpointOffline: true,
      message: 'HTTP 500 (Allocation failed)',
    } as const;
    expect(decideCallEnd({ ...dialed, softphone: 'ringhook' }, refused, NOW)).toMatchObject({
      state: 'unreachable',
      fields: {
        error: reasonText('softphone_not_registered', { softphone: 'ringhook' }),
        reasonDetail: 'originate failed: HTTP 500 (Allocation failed)',
      },
    });
    expect(decideCallEnd(dialed, refused, NOW)).toMatchObject({
      state: 'unreachable',
      fields: { error: reasonText('trunk_refused') },
    });
    expect(
      decideCallEnd(dialed, { kind: 'originate-failed', refusedByAsterisk: false, message: 'timeout' }, NOW),
    ).toMatchObject({
      state: 'failed',
      fields: { error: reasonText('asterisk_no_reply'), reasonDetail: 'originate failed: timeout' },
    });
  });

  it('a call that never left this server gives its monthly allowance back; one that rang anything does not', () => {
    const refused = { kind: 'originate-failed', refusedByAsterisk: true, endpointOffline: true, message: 'x' } as const;
    expect(decideCallEnd({ ...dialed, softphone: 'ringhook' }, refused, NOW).fields.returnsAllowance).toBe(true);
    expect(decideCallEnd(dialed, { ...refused, refusedByAsterisk: false }, NOW).fields.returnsAllowance).toBe(true);
    expect(decideCallEnd(dialed, destroyed(17, 486), NOW).fields.returnsAllowance).toBeUndefined();
    expect(decideCallEnd(dialed, destroyed(19), NOW).fields.returnsAllowance).toBeUndefined();
    expect(decideCallEnd(answered, { kind: 'stopped' }, NOW).fields.returnsAllowance).toBeUndefined();
    expect(decideCallEnd(dialed, { kind: 'given-up', why: 'x' }, NOW).fields.returnsAllowance).toBeUndefined();
  });
});

describe('queuedFate', () => {
  it('a fresh call is dialed; an old one expires at start and fails while waiting for Asterisk', () => {
    expect(queuedFate(NOW - 1000, NOW, 5000, 'at start')).toEqual({ dial: true });
    expect(queuedFate(NOW - 5000, NOW, 5000, 'waiting')).toEqual({ dial: true });
    expect(queuedFate(NOW - 5001, NOW, 5000, 'at start')).toEqual({
      dial: false,
      state: 'expired',
      returnsAllowance: true,
      error: 'Not called: the alert was still waiting when ringhook restarted, and was older than 5 seconds.',
      reasonDetail: 'too old to be placed after a restart',
    });
    expect(queuedFate(NOW - 300_001, NOW, 300_000, 'waiting')).toEqual({
      dial: false,
      state: 'failed',
      returnsAllowance: true,
      error:
        'Not called: the phone system (Asterisk) could not take calls until the alert was too old to call (5 minutes); `ringhook doctor` says why.',
      reasonDetail: 'telephony was unavailable until the call was too old to place',
    });
  });
});

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the cap', () => {
    const b = { initialMs: 500, maxMs: 5_000 };
    expect([1, 2, 3, 4, 5, 6, 100].map((n) => backoffDelay(n, b))).toEqual([500, 1000, 2000, 4000, 5000, 5000, 5000]);
    expect(backoffDelay(0, b)).toBe(500);
  });
});

describe('freshSince', () => {
  it('counts from the latest of arrival, the quiet hours it was held until and its attempt due time', () => {
    expect(freshSince({ receivedAt: 1_000 })).toBe(1_000);
    expect(freshSince({ receivedAt: 1_000, heldUntil: 5_000, retryAt: null })).toBe(5_000);
    expect(freshSince({ receivedAt: 1_000, heldUntil: 5_000, retryAt: 9_000 })).toBe(9_000);
  });
});
