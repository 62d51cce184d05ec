import { describe, expect, it } from 'vitest';
import { afterStop, goesToBackupTrunk } from '../../src/core/calls/backup-trunk.js';
import { type CallStop, decideCallEnd } from '../../src/core/calls/call-end.js';

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
  const NOW = 10_000;
  const running = { backupTrunk: 'backup', stopping: false, now: NOW };
  const call = { ...silent, dialedAt: 1_000, acknowledged: false };

  it('a call the first trunk did not take is a new placement through the backup trunk, saying why, dialed now', () => {
    expect(afterStop(call, refused, running)).toEqual({
      next: 'backup trunk',
      trunk: 'backup',
      why: 'the first trunk did not take the call (SIP 503): placed through backup',
      at: NOW,
    });
  });

  it('ends the call, as core/calls/call-end decides its end: placed on the backup trunk already, no backup trunk, ringhook stopping, or the phone answered for itself', () => {
    const ends = (facts: typeof call, stop: CallStop) => ({ next: 'end', end: decideCallEnd(facts, stop, NOW) });
    expect(afterStop({ ...call, onBackupTrunk: true }, refused, running)).toEqual(ends(call, refused));
    expect(afterStop(call, refused, { ...running, backupTrunk: undefined })).toEqual(ends(call, refused));
    expect(afterStop(call, refused, { ...running, stopping: true })).toEqual(ends(call, refused));
    expect(afterStop(call, destroyed(17, 486), running)).toEqual(ends(call, destroyed(17, 486)));
    expect(afterStop({ ...call, rang: true }, refused, running)).toEqual(ends({ ...call, rang: true }, refused));
    // The end is the call's own: the provider's 503 on the only trunk, with its ring time.
    expect(afterStop(call, refused, { ...running, backupTrunk: undefined })).toMatchObject({
      next: 'end',
      end: { state: 'unreachable', fields: { sipCode: 503, ringMs: 9_000 } },
    });
  });
});
