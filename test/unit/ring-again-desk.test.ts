// Ring again (#54) at the call desk: which alerts count as a newer alert for the phone, and the
// timers that put a missed call's alerts back in the queue when due (and none after a stop).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DueLater, phoneTaken, ringAgainAfter } from '../../src/calls/ring-again.js';
import { type CallSession, newSession } from '../../src/calls/call-session.js';
import type { CallForDialing } from '../../src/core/records.js';

const PHONE = '+14155550123';

function session(attempt: number, phone = PHONE): CallSession {
  const call = { callId: `call_${attempt}`, userId: 'u', kind: 'alert', status: 'ringing', attempt } as CallForDialing;
  const s = newSession({ calls: [call], phone, requireConfirm: true, dialedAt: 1_000 });
  s.ringAgain = { ringAgain: 1, ringAgainAfter: 60, requireConfirm: true, status: 'active' };
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
