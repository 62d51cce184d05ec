import { describe, expect, it } from 'vitest';
import { FINAL_STATES, SMS_BACKUP_STATES } from '../../src/core/call-state.js';
import { decideSms, groupByCarrier } from '../../src/core/sms-decision.js';

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
