import { describe, expect, it } from 'vitest';
import { afterStop, goesToBackupTrunk } from '../../src/core/backup-trunk.js';
import type { CallStop } from '../../src/core/call-end.js';

const destroyed = (cause: number, techCause?: number): CallStop => ({
  kind: 'destroyed',
  cause,
  causeText: '',
  techCause,
});
const silent = { rang: false, answeredAt: undefined, farEnd: undefined };

describe('goesToBackupTrunk', () => {
  it('the provider refused or never answered the INVITE: through the backup', () => {
    for (const sip of [408, 500, 502, 503, 504])
      expect(goesToBackupTrunk(silent, destroyed(34, sip)), String(sip)).toBe(true);
    for (const cause of [34, 38, 41, 42, 102])
      expect(goesToBackupTrunk(silent, destroyed(cause)), String(cause)).toBe(true);
    expect(goesToBackupTrunk({ ...silent, farEnd: { cause: 34, sipCode: 503 } }, destroyed(34))).toBe(true);
    expect(
      goesToBackupTrunk(silent, { kind: 'originate-failed', refusedByAsterisk: true, message: 'Allocation failed' }),
    ).toBe(true);
  });

  it('the phone answered for itself (busy, declined, unknown number, unavailable): no second call', () => {
    for (const sip of [404, 480, 486, 603])
      expect(goesToBackupTrunk(silent, destroyed(17, sip)), String(sip)).toBe(false);
    for (const cause of [1, 17, 19, 21]) expect(goesToBackupTrunk(silent, destroyed(cause)), String(cause)).toBe(false);
  });

  it('a call that rang or was answered is never sent again, whatever its end', () => {
    expect(goesToBackupTrunk({ ...silent, rang: true }, destroyed(34, 503))).toBe(false);
    expect(goesToBackupTrunk({ ...silent, answeredAt: 1 }, destroyed(34, 503))).toBe(false);
  });

  it('ends that say nothing of the trunk stay the call outcome', () => {
    for (const stop of [
      { kind: 'lost' },
      { kind: 'stopped' },
      { kind: 'hangup-unconfirmed' },
      { kind: 'given-up', why: 'x' },
    ] as CallStop[])
      expect(goesToBackupTrunk(silent, stop)).toBe(false);
    expect(
      goesToBackupTrunk(silent, { kind: 'originate-failed', refusedByAsterisk: false, message: 'socket hang up' }),
    ).toBe(false);
  });
});

describe('afterStop', () => {
  const refused = destroyed(34, 503);
  const running = { backupTrunk: 'backup', stopping: false };

  it('a call the first trunk did not take is a new placement through the backup trunk, saying why', () => {
    expect(afterStop(silent, refused, running)).toEqual({
      next: 'backup trunk',
      trunk: 'backup',
      why: 'the first trunk did not take the call (SIP 503): placed through backup',
    });
  });

  it('ends the call: placed on the backup trunk already, no backup trunk, ringhook stopping, or the phone answered for itself', () => {
    expect(afterStop({ ...silent, onBackupTrunk: true }, refused, running)).toEqual({ next: 'end' });
    expect(afterStop(silent, refused, { backupTrunk: undefined, stopping: false })).toEqual({ next: 'end' });
    expect(afterStop(silent, refused, { ...running, stopping: true })).toEqual({ next: 'end' });
    expect(afterStop(silent, destroyed(17, 486), running)).toEqual({ next: 'end' });
    expect(afterStop({ ...silent, rang: true }, refused, running)).toEqual({ next: 'end' });
  });
});
