import { describe, expect, it } from 'vitest';
import { FINAL_STATES, SMS_BACKUP_STATES } from '../../src/core/call-state.js';
import { decideSms } from '../../src/core/sms-decision.js';

const active = { smsBackup: true, status: 'active' as const };

describe('decideSms', () => {
  it('sends after every unanswered outcome, interrupted and expired, and never after a call that reached the owner', () => {
    for (const state of FINAL_STATES) expect([state, decideSms(state, active, true)]).toEqual([state, SMS_BACKUP_STATES.has(state) ? 'send' : 'not_needed']);
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
