// The reasons table: every row, from what Asterisk and the provider report to the sentence an
// owner reads. What the real peers produce for each row is in test/e2e/reasons.test.ts.
import { describe, expect, it } from 'vitest';
import { classifyUnanswered } from '../../src/core/calls/outcome.js';
import {
  CAUSE_REASONS,
  callReason,
  endReason,
  hangupDetail,
  isPhoneSide,
  REASONS,
  type ReasonCode,
  reasonText,
  refusalReason,
  returnsAllowance,
  SIP_REASONS,
  SMS_NOT_SENT,
  smsReasonText,
  unansweredReason,
} from '../../src/core/reasons.js';

describe('every reason is a sentence', () => {
  const context = {
    softphone: 'alice',
    phone: '+14155550123',
    freshnessMs: 300_000,
    node: 'n1',
    registration: 'Rejected',
  };
  it.each(Object.keys(REASONS) as ReasonCode[])('%s', (code) => {
    for (const text of [reasonText(code), reasonText(code, context)]) {
      expect(text).toMatch(/^[A-Zr].*[.?]$/);
      expect(text).not.toMatch(/undefined|null|NaN|\[object/);
      // About the phone and what to do, not the machinery: no raw ARI text, no HTTP status lines.
      expect(text).not.toMatch(/ARI|HTTP \d|POST|originate|Allocation failed|cause \d/);
    }
  });

  it('names what it can: the softphone, the number, the window, the node, the registration', () => {
    expect(reasonText('softphone_not_registered')).toBe(
      'No phone is registered as ringhook, so nothing could ring: register a softphone app (Linphone, Zoiper) as user ringhook on this server, or set a SIP trunk to call real phones.',
    );
    expect(reasonText('softphone_not_registered', { softphone: 'alice' })).toMatch(
      /^No phone is registered as alice, .* as user alice /,
    );
    expect(reasonText('wrong_number', { phone: '+14155550123' })).toMatch(
      /could not route the number \+14155550123: check the account's phone number/,
    );
    expect(reasonText('expired', { freshnessMs: 300_000 })).toMatch(/older than 5 minutes\.$/);
    expect(reasonText('expired', { freshnessMs: 60_000 })).toMatch(/older than 1 minute\.$/);
    expect(reasonText('telephony_unavailable', { freshnessMs: 90_000 })).toMatch(/\(90 seconds\)/);
    expect(reasonText('node_stopped', { node: 'n1' })).toMatch(/\(node n1\)/);
    expect(reasonText('trunk_unregistered', { registration: 'Rejected' })).toMatch(
      /not registered with the provider \(Rejected\)/,
    );
    expect(reasonText('no_response', { softphone: 'alice' })).toMatch(/softphone registered as alice did not answer/);
    expect(reasonText('no_response')).toMatch(/RINGHOOK_TRUNK_URI/);
  });

  it("tells the phone's own answers from faults of the set-up", () => {
    expect(isPhoneSide(reasonText('phone_unavailable'))).toBe(true);
    expect(isPhoneSide(reasonText('busy'))).toBe(true);
    expect(isPhoneSide(reasonText('provider_credentials'))).toBe(false);
    expect(isPhoneSide(reasonText('softphone_not_registered'))).toBe(false);
    expect(isPhoneSide('an old technical error')).toBe(false);
  });

  it('keeps the technical detail beside the sentence', () => {
    expect(callReason('busy', {}, 'SIP 486, cause 17 (User busy)')).toEqual({
      error: reasonText('busy'),
      reasonDetail: 'SIP 486, cause 17 (User busy)',
    });
    expect(callReason('account_suspended')).toEqual({ error: reasonText('account_suspended') });
    expect(hangupDetail(17, 'User busy', 486)).toBe('SIP 486, cause 17 (User busy)');
    expect(hangupDetail(19, '')).toBe('cause 19');
  });
});

describe('SIP answers (the SIP code Asterisk 22.7+ reports, with the cause it maps it to)', () => {
  // [SIP code, the Q.850 cause chan_pjsip gives it, reason, call state]
  const rows: Array<[number, number, ReasonCode, string]> = [
    [401, 21, 'provider_credentials', 'rejected'],
    [403, 21, 'provider_credentials', 'rejected'],
    [407, 21, 'provider_credentials', 'rejected'],
    [404, 1, 'wrong_number', 'unreachable'],
    [410, 22, 'wrong_number', 'unreachable'],
    [484, 28, 'wrong_number', 'unreachable'],
    [485, 1, 'wrong_number', 'unreachable'],
    [604, 1, 'wrong_number', 'unreachable'],
    [408, 18, 'no_response', 'unreachable'],
    [415, 127, 'codecs', 'unreachable'],
    [488, 58, 'codecs', 'unreachable'],
    [606, 58, 'codecs', 'unreachable'],
    [486, 17, 'busy', 'busy'],
    [600, 17, 'busy', 'busy'],
    [603, 21, 'declined', 'rejected'],
    [607, 21, 'declined', 'rejected'],
    [608, 21, 'declined', 'rejected'],
    [500, 38, 'provider_down', 'unreachable'],
    [502, 38, 'provider_down', 'unreachable'],
    [503, 34, 'provider_down', 'unreachable'],
    [504, 102, 'provider_down', 'unreachable'],
    [580, 38, 'provider_down', 'unreachable'],
  ];
  it.each(rows)('%i (cause %i) → %s, %s', (sipCode, cause, reason, state) => {
    const facts = { cause, sipCode, farEndAnswered: true, rang: false };
    expect(unansweredReason(facts)).toBe(reason);
    expect(classifyUnanswered(facts)).toBe(state);
  });

  it('covers every row of the SIP table', () => {
    const tested = new Set(rows.map(([code]) => code));
    for (const code of Object.keys(SIP_REASONS)) expect(tested.has(Number(code)), `SIP ${code}`).toBe(true);
  });

  it('a 480 is the phone unavailable when the far end sent it; Asterisk’s own ring timeout is no answer, or no response if it never rang', () => {
    expect(unansweredReason({ cause: 19, sipCode: 480, farEndAnswered: true, rang: true })).toBe('phone_unavailable');
    expect(unansweredReason({ cause: 19, sipCode: 480, farEndAnswered: false, rang: true })).toBe('no_answer');
    expect(unansweredReason({ cause: 19, sipCode: 480, farEndAnswered: false, rang: false })).toBe('no_response');
  });
});

describe('Q.850 causes without a SIP code (an older Asterisk, or a cause of its own)', () => {
  const rows: Array<[number, ReasonCode]> = Object.entries(CAUSE_REASONS).map(([cause, reason]) => [
    Number(cause),
    reason,
  ]);
  it.each(rows)('cause %i → %s', (cause, reason) => {
    expect(unansweredReason({ cause, farEndAnswered: true, rang: false })).toBe(reason);
  });

  it('19 and 16: no answer after ringing, no response without; an unknown cause is said to be unknown', () => {
    expect(unansweredReason({ cause: 19, farEndAnswered: false, rang: true })).toBe('no_answer');
    expect(unansweredReason({ cause: 19, farEndAnswered: false, rang: false })).toBe('no_response');
    expect(unansweredReason({ cause: 19, farEndAnswered: true, rang: true })).toBe('phone_unavailable');
    expect(unansweredReason({ cause: 16, farEndAnswered: true, rang: true })).toBe('no_answer');
    expect(unansweredReason({ cause: 16, farEndAnswered: false, rang: false })).toBe('no_response');
    expect(unansweredReason({ cause: 99, farEndAnswered: false, rang: false })).toBe('unknown');
  });
});

describe('originates Asterisk did not place', () => {
  it('refused for the softphone: none is registered; refused through a trunk: the trunk; no answer at all: Asterisk', () => {
    expect(refusalReason({ softphone: 'ringhook', refusedByAsterisk: true, endpointOffline: true })).toBe(
      'softphone_not_registered',
    );
    expect(refusalReason({ softphone: 'ringhook', refusedByAsterisk: true, endpointOffline: false })).toBe(
      'softphone_refused',
    );
    expect(refusalReason({ refusedByAsterisk: true })).toBe('trunk_refused');
    expect(refusalReason({ refusedByAsterisk: false })).toBe('asterisk_no_reply');
    expect(refusalReason({ softphone: 'ringhook', refusedByAsterisk: false })).toBe('asterisk_no_reply');
  });
});

describe('the SMS backup, in words (sms_error keeps the gateway’s own)', () => {
  it.each([
    ['waiting', 'HTTP 503 from the gateway', /has not taken the SMS yet \(down or busy\)/],
    ['failed', `${SMS_NOT_SENT.notDelivered}UNDELIV`, /phone's network could not deliver it/],
    ['failed', SMS_NOT_SENT.turnedOff, /^Not sent: SMS backup was turned off/],
    ['failed', SMS_NOT_SENT.tooOld, /before the alert was too old; it is never sent late/],
    ['failed', SMS_NOT_SENT.accountGone, /account was deleted/],
    ['failed', SMS_NOT_SENT.stoppedHandingOver, /^Maybe not sent: ringhook stopped while handing/],
    [
      'failed',
      'gateway answered 500 (expected 200): oops',
      /^Not sent: the SMS gateway refused it or could not be reached\.$/,
    ],
    ['failed', null, /^Not sent: the SMS gateway refused it or could not be reached\.$/],
    // Why no SMS was tried: kept with the status disabled (#38).
    ['disabled', SMS_NOT_SENT.noGateway, /^No SMS was sent: this server has no SMS gateway\.$/],
    ['disabled', SMS_NOT_SENT.backupOff, /^No SMS was sent: SMS backup is off for this account\.$/],
    ['disabled', SMS_NOT_SENT.suspended, /^No SMS was sent: the account is suspended\.$/],
    ['disabled', null, /SMS backup was off for this account, or this server has no SMS gateway/],
  ] as Array<[string, string | null, RegExp]>)('%s: %s', (status, error, said) => {
    const text = smsReasonText(status, error);
    expect(text).toMatch(said);
    expect(text).toMatch(/^[A-Z].*\.$/);
  });

  it('no owner sentence points at the README (an owner of a hosted service has none)', () => {
    for (const code of Object.keys(REASONS) as Array<keyof typeof REASONS>)
      expect(reasonText(code, { softphone: 'ringhook', phone: '+14155550123' })).not.toMatch(/README/);
  });

  it('calls that never left the server give the allowance back; calls that left it do not', () => {
    for (const code of [
      'softphone_not_registered',
      'trunk_refused',
      'asterisk_no_reply',
      'telephony_unavailable',
      'expired',
    ] as const)
      expect(returnsAllowance(code)).toBe(true);
    for (const code of [
      'busy',
      'no_answer',
      'declined',
      'phone_unavailable',
      'no_response',
      'wrong_number',
      'provider_down',
      'asterisk_stopped',
      'ringhook_stopped',
    ] as const)
      expect(returnsAllowance(code)).toBe(false);
  });

  it('says nothing of an SMS that went, or was not needed', () => {
    for (const status of ['sent', 'delivered', 'not_needed', 'sending']) expect(smsReasonText(status, null)).toBeNull();
  });
});

describe("endReason: what a call's end asks, answered at once", () => {
  const context = { softphone: 'alice', phone: '+14155550123' };
  const hangup = { cause: 17, causeText: 'User busy', sipCode: 486 };

  it("a named reason with words of ringhook's own, the channel's end as Asterisk gave it, or both", () => {
    expect(endReason({ why: 'events_lost', detail: 'lost' }, context)).toEqual({
      error: reasonText('events_lost'),
      reasonDetail: 'lost',
    });
    expect(endReason({ why: 'asterisk_stopped', detail: 'Asterisk stopped', hangup }, context)).toEqual({
      error: reasonText('asterisk_stopped'),
      reasonDetail: 'Asterisk stopped: SIP 486, cause 17 (User busy)',
    });
  });

  it('an unanswered call: the reason its cause chooses, with the hangup line; it never gives the allowance back', () => {
    const unanswered = { cause: 17, sipCode: 486, farEndAnswered: true, rang: true };
    expect(endReason({ why: { unanswered }, hangup }, context)).toEqual(
      callReason(unansweredReason(unanswered), context, hangupDetail(17, 'User busy', 486)),
    );
    for (const cause of [...Object.keys(CAUSE_REASONS).map(Number), 16, 19, 99])
      for (const sipCode of [undefined, ...Object.keys(SIP_REASONS).map(Number), 480, 599])
        for (const rang of [true, false])
          expect(
            endReason({ why: { unanswered: { cause, sipCode, farEndAnswered: false, rang } }, hangup }, context)
              .returnsAllowance,
          ).toBeUndefined();
  });

  it('an originate that failed: the refusal its facts choose, and the allowance given back', () => {
    expect(
      endReason(
        { why: { refused: { softphone: 'alice', refusedByAsterisk: true, endpointOffline: true } }, detail: 'x' },
        context,
      ),
    ).toEqual({ error: reasonText('softphone_not_registered', context), reasonDetail: 'x', returnsAllowance: true });
    expect(endReason({ why: { refused: { refusedByAsterisk: false } }, detail: 'y' }, context)).toMatchObject({
      error: reasonText('asterisk_no_reply'),
      returnsAllowance: true,
    });
  });
});
