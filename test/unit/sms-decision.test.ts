import { describe, expect, it } from 'vitest';
import { FINAL_STATES, SMS_BACKUP_STATES } from '../../src/core/calls/call-state.js';
import { SMS_NOT_SENT } from '../../src/core/reasons.js';
import { decideSms, groupByCarrier, planSms } from '../../src/core/delivery/sms-decision.js';

const active = { smsBackup: true, status: 'active' as const };

describe('decideSms', () => {
  it('sends after every unanswered outcome, interrupted and expired, and never after a call that reached the owner', () => {
    for (const state of FINAL_STATES)
      expect([state, decideSms(state, active, true)]).toEqual([
        state,
        SMS_BACKUP_STATES.has(state) ? 'send' : 'not_needed',
      ]);
    expect(decideSms('completed', active, true)).toBe('not_needed');
    expect(decideSms('acknowledged', active, true)).toBe('not_needed');
    expect(decideSms('busy', active, true)).toBe('send');
  });

  it('sends nothing for an account without SMS backup, a suspended account, an unknown account or without a gateway', () => {
    expect(decideSms('busy', { ...active, smsBackup: false }, true)).toBe('disabled');
    expect(decideSms('failed', { ...active, status: 'suspended' }, true)).toBe('disabled');
    expect(decideSms('busy', undefined, true)).toBe('disabled');
    expect(decideSms('busy', active, false)).toBe('disabled');
  });
});

describe('groupByCarrier', () => {
  it("puts a merged call's alerts in one SMS, carrier first and the rest in order; other calls' alone", () => {
    const rows = [
      { callId: 'a', carriedBy: 'c' },
      { callId: 'b', carriedBy: null },
      { callId: 'c', carriedBy: null },
      { callId: 'd', carriedBy: 'c' },
      // Its carrier's SMS was settled: it went out with it, or it is not waiting; this one goes alone.
      { callId: 'e', carriedBy: 'x' },
    ];
    expect(groupByCarrier(rows).map((g) => g.map((r) => r.callId))).toEqual([['c', 'a', 'd'], ['b'], ['e']]);
    expect(groupByCarrier([])).toEqual([]);
  });
});

describe('planSms: what the SMS backup does after a call, decided once', () => {
  const account = { smsBackup: true, status: 'active' as const, phone: '+14155550000' };
  const call = {
    callId: 'a',
    state: 'no_answer' as const,
    message: 'one',
    phone: '+14155550123',
    carried: [{ callId: 'b', message: 'two' }],
  };

  it('one SMS for every alert the call carried, to the number called (an alert never dialed: the account)', () => {
    expect(planSms(call, account, true)).toEqual({
      callIds: ['a', 'b'],
      send: true,
      to: '+14155550123',
      messages: ['one', 'two'],
    });
    expect(planSms({ ...call, phone: null }, account, true)).toMatchObject({ send: true, to: '+14155550000' });
  });

  it('none, for all its alerts: not needed when the call reached its person; disabled, saying why', () => {
    expect(planSms({ ...call, state: 'completed' }, account, true)).toEqual({
      callIds: ['a', 'b'],
      send: false,
      status: 'not_needed',
      why: undefined,
    });
    expect(planSms(call, account, false)).toMatchObject({
      send: false,
      status: 'disabled',
      why: SMS_NOT_SENT.noGateway,
    });
    expect(planSms(call, { ...account, smsBackup: false }, true)).toMatchObject({ why: SMS_NOT_SENT.backupOff });
    expect(planSms(call, { ...account, status: 'suspended' }, true)).toMatchObject({ why: SMS_NOT_SENT.suspended });
    expect(planSms(call, undefined, true)).toMatchObject({ status: 'disabled', why: SMS_NOT_SENT.accountGone });
  });
});
