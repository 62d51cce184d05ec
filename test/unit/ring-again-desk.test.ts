// Ring again (#54) at the call desk: which alerts count as a newer alert for the phone, and the
// timers that put a missed call's alerts back in the queue when due (and none after a stop).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DueLater, phoneTaken, ringAgainAfter } from '../../src/calls/ring-again.js';
import { type CallSession, newSession } from '../../src/calls/call-session.js';
import type { CallForDialing } from '../../src/core/records.js';
import type { Account } from '../../src/core/account.js';
import { loadWaitingAlert } from '../../src/calls/waiting-alerts.js';

const PHONE = '+14155550123';

const BACKUP = '+14155550777';

function session(attempt: number, phone = PHONE, extra: Partial<CallForDialing> = {}): CallSession {
  const call = {
    callId: `call_${attempt}`,
    userId: 'u',
    kind: 'alert',
    status: 'ringing',
    attempt,
    receivedAt: 0,
    ...extra,
  } as CallForDialing;
  const s = newSession({ calls: [call], phone, requireConfirm: true, dialedAt: 1_000 });
  s.ringAgain = {
    ringAgain: 1,
    ringAgainAfter: 60,
    requireConfirm: true,
    status: 'active',
    backupPhone: null,
    backupPhoneStatus: null,
  };
  return s;
}

function withBackup(s: CallSession, status: 'pending' | 'verified'): CallSession {
  s.ringAgain = { ...s.ringAgain!, backupPhone: BACKUP, backupPhoneStatus: status };
  return s;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('phoneTaken', () => {
  it('a first call in progress or a fresh alert waiting for the line takes the phone; alerts rung again do not', () => {
    expect(phoneTaken(PHONE, [session(1)], [])).toBe(true);
    expect(phoneTaken(PHONE, [session(1, '+14155550999')], [])).toBe(false);
    expect(phoneTaken(PHONE, [session(2)], [])).toBe(false);
    expect(phoneTaken(PHONE, [], [{ phone: PHONE }])).toBe(true);
    expect(phoneTaken(PHONE, [], [{ phone: PHONE, retry: {} }])).toBe(false);
  });

  it('a missed call is rung again unless a newer alert rings its phone', () => {
    expect(ringAgainAfter(session(1), 'no_answer', 5_000, [], [])).toEqual({ attempt: 2, at: 61_000 });
    expect(ringAgainAfter(session(1), 'no_answer', 5_000, [], [{ phone: PHONE }])).toBeUndefined();
    expect(ringAgainAfter(session(2), 'no_answer', 5_000, [], [])).toBeUndefined();
    const off = session(1);
    off.ringAgain = undefined;
    expect(ringAgainAfter(off, 'no_answer', 5_000, [], [])).toBeUndefined();
  });

  it("no attempt is scheduled at or past the alert's own expiry (its expires_in)", () => {
    expect(ringAgainAfter(session(1, PHONE, { expiresIn: 62 }), 'no_answer', 5_000, [], [])).toEqual({
      attempt: 2,
      at: 61_000,
    });
    expect(ringAgainAfter(session(1, PHONE, { expiresIn: 61 }), 'no_answer', 5_000, [], [])).toBeUndefined();
  });

  it('every attempt missed: the alert is called at once at the verified backup number, once; never at a pending one', () => {
    expect(ringAgainAfter(withBackup(session(2), 'verified'), 'no_answer', 70_000, [], [])).toEqual({
      attempt: 3,
      at: 70_000,
      dialTo: BACKUP,
    });
    // Attempts left: the owner's phone first.
    expect(ringAgainAfter(withBackup(session(1), 'verified'), 'busy', 5_000, [], [])).toEqual({
      attempt: 2,
      at: 61_000,
    });
    expect(ringAgainAfter(withBackup(session(2), 'pending'), 'no_answer', 70_000, [], [])).toBeUndefined();
    // The backup person's own call missed: nothing after it.
    const atBackup = withBackup(session(3, BACKUP, { dialTo: BACKUP }), 'verified');
    expect(ringAgainAfter(atBackup, 'no_answer', 90_000, [], [])).toBeUndefined();
    // Heard, or a newer alert for the owner's phone: nothing escalated.
    expect(ringAgainAfter(withBackup(session(2), 'verified'), 'acknowledged', 70_000, [], [])).toBeUndefined();
    expect(
      ringAgainAfter(withBackup(session(2), 'verified'), 'no_answer', 70_000, [], [{ phone: PHONE }]),
    ).toBeUndefined();
    // Expired: nothing escalated.
    const expired = withBackup(session(2, PHONE, { expiresIn: 30 }), 'verified');
    expect(ringAgainAfter(expired, 'no_answer', 70_000, [], [])).toBeUndefined();
    // Ring again off (0): the one call missed is escalated.
    const single = withBackup(session(1), 'verified');
    single.ringAgain = { ...single.ringAgain!, ringAgain: 0 };
    expect(ringAgainAfter(single, 'rejected', 9_000, [], [])).toEqual({ attempt: 2, at: 9_000, dialTo: BACKUP });
  });
});

describe('DueLater', () => {
  it('hands each alert on once when due, takes only those not due yet, and none after a stop', () => {
    vi.useFakeTimers({ now: 0 });
    const due: string[] = [];
    const later = new DueLater(
      () => Date.now(),
      (id) => due.push(id),
    );
    expect(later.takes('a', 20_000)).toBe(true);
    later.add('a', 20_000);
    expect(later.takes('b', 0)).toBe(false);
    expect(later.takes('c', undefined)).toBe(false);
    vi.advanceTimersByTime(19_999);
    expect(due).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(due).toEqual(['a']);
    expect(later.has('a')).toBe(false);
    later.add('d', 30_000);
    later.clear();
    later.add('e', 30_000);
    vi.advanceTimersByTime(60_000);
    expect(due).toEqual(['a']);
  });
});

describe('loadWaitingAlert', () => {
  it('a missed call rung again gives way to a newer alert for its phone; one for the backup person waits for their line (#54)', async () => {
    const account = {
      userId: 'u',
      phone: PHONE,
      status: 'active',
      language: 'en',
      voice: 'slt',
      intro: null,
    } as unknown as Account;
    const attempts = JSON.stringify([{ at: 1_000, outcome: 'no_answer' }]);
    const row = (extra: Partial<CallForDialing>) =>
      ({
        callId: 'c',
        userId: 'u',
        kind: 'alert',
        status: 'queued',
        message: 'm',
        receivedAt: 0,
        attempt: 2,
        attempts,
        retryAt: 5_000,
        ...extra,
      }) as CallForDialing;
    const store = (call: CallForDialing) => ({
      progress: { get: async () => call },
      accounts: { get: async () => account },
    });
    const again = await loadWaitingAlert('c', store(row({})));
    expect(again).toMatchObject({ phone: PHONE, retryAt: 5_000, retry: { lastOutcome: 'no_answer' } });
    const toBackup = await loadWaitingAlert('c', store(row({ dialTo: BACKUP })));
    expect(toBackup).toMatchObject({ phone: BACKUP, retryAt: 5_000 });
    expect(toBackup?.retry).toBeUndefined();
  });
});
