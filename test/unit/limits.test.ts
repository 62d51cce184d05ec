// Plan limits: free 3 calls a month and 1 a minute, premium unlimited and 10 a minute; the month is
// the calendar month in UTC; a burst is refused with the seconds to wait.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BURST_WINDOW_MS,
  decideBurst,
  decideLimits,
  hasMonthlyAllowance,
  monthWindow,
  TEST_CALL_LIMITS,
} from '../../src/core/webhook/limits.js';

const at = (iso: string) => Date.parse(iso);

describe('plan limits', () => {
  it('only a plan with a monthly allowance needs its usage read: an unlimited one decides the same without it', () => {
    expect(hasMonthlyAllowance('free')).toBe(true);
    expect(hasMonthlyAllowance('premium')).toBe(false);
    const now = at('2026-11-22T14:00:00Z');
    const recent = [now - 1_000, now - 2_000];
    expect(decideLimits('premium', now, 0, recent)).toEqual(decideLimits('premium', now, 1_000_000, recent));
  });

  it('free: the fourth alert of a month is refused; premium: the eleventh within a minute, never the monthly count', () => {
    const now = at('2026-11-22T14:00:00Z');
    const spread = (n: number) => Array.from({ length: n }, (_, i) => now - 5 * 60_000 * (i + 1));
    expect(decideLimits('free', now, 2, spread(2))).toEqual({ allowed: true });
    expect(decideLimits('free', now, 3, spread(3))).toMatchObject({ allowed: false, limit: 'monthly', allowance: 3 });
    const lastMinute = Array.from({ length: 10 }, (_, i) => now - 1_000 * (i + 1));
    expect(decideLimits('premium', now, 1_000_000, lastMinute.slice(0, 9))).toEqual({ allowed: true });
    expect(decideLimits('premium', now, 1_000_000, lastMinute)).toMatchObject({
      allowed: false,
      limit: 'burst',
      perMinute: 10,
    });
    // The window is one minute: the same ten, a minute later, no longer count.
    expect(decideLimits('premium', now + BURST_WINDOW_MS + 1_000, 1_000_000, lastMinute)).toEqual({ allowed: true });
    expect(TEST_CALL_LIMITS.perMinute).toBeGreaterThan(0);
  });
});

describe('monthWindow', () => {
  it('gives the key, first instant and next first instant of the UTC month', () => {
    expect(monthWindow(at('2026-11-22T14:00:00Z'))).toEqual({
      key: '2026-11',
      start: at('2026-11-01T00:00:00Z'),
      resetsAt: at('2026-12-01T00:00:00Z'),
    });
  });

  it('puts the first and last millisecond of a month in that month', () => {
    expect(monthWindow(at('2026-11-01T00:00:00.000Z')).key).toBe('2026-11');
    expect(monthWindow(at('2026-11-30T23:59:59.999Z')).key).toBe('2026-11');
    expect(monthWindow(at('2026-12-01T00:00:00.000Z')).key).toBe('2026-12');
  });

  it('rolls December over into January of the next year', () => {
    expect(monthWindow(at('2026-12-31T23:59:59.999Z'))).toEqual({
      key: '2026-12',
      start: at('2026-12-01T00:00:00Z'),
      resetsAt: at('2027-01-01T00:00:00Z'),
    });
    expect(monthWindow(at('2027-01-01T00:00:00Z'))).toEqual({
      key: '2027-01',
      start: at('2027-01-01T00:00:00Z'),
      resetsAt: at('2027-02-01T00:00:00Z'),
    });
  });

  it('handles February in leap and common years', () => {
    expect(monthWindow(at('2028-02-29T23:59:59.999Z'))).toEqual({
      key: '2028-02',
      start: at('2028-02-01T00:00:00Z'),
      resetsAt: at('2028-03-01T00:00:00Z'),
    });
    expect(monthWindow(at('2027-02-28T12:00:00Z')).resetsAt).toBe(at('2027-03-01T00:00:00Z'));
    expect(monthWindow(at('2028-03-01T00:00:00Z')).key).toBe('2028-03');
  });

  it('uses UTC, not the local time zone', () => {
    // 23:30 on 31 October at UTC-2 is already 1 November in UTC, so it is November's.
    expect(monthWindow(at('2026-10-31T23:30:00Z')).key).toBe('2026-10');
    expect(monthWindow(at('2026-10-31T23:30:00-02:00')).key).toBe('2026-11');
  });

  it('always holds now in [start, resetsAt) and pads the month', () => {
    fc.assert(
      fc.property(fc.integer({ min: at('1971-01-01T00:00:00Z'), max: at('2999-12-31T23:59:59Z') }), (now) => {
        const w = monthWindow(now);
        expect(w.start).toBeLessThanOrEqual(now);
        expect(now).toBeLessThan(w.resetsAt);
        expect(w.key).toMatch(/^\d{4}-(0[1-9]|1[0-2])$/);
        expect(new Date(w.resetsAt).getUTCDate()).toBe(1);
        expect(monthWindow(w.resetsAt).start).toBe(w.resetsAt);
      }),
    );
  });
});

describe('decideLimits, free plan (3 a month, 1 a minute)', () => {
  const now = at('2026-11-22T14:00:00Z');

  it('allows the first alert', () => {
    expect(decideLimits('free', now, 0, [])).toEqual({ allowed: true });
  });

  it('refuses a second alert within the minute with the exact Retry-After', () => {
    expect(decideLimits('free', now, 1, [now - 20_000])).toEqual({
      allowed: false,
      limit: 'burst',
      perMinute: 1,
      retryAfterSeconds: 40,
    });
    expect(decideLimits('free', now, 1, [now])).toEqual({
      allowed: false,
      limit: 'burst',
      perMinute: 1,
      retryAfterSeconds: 60,
    });
    expect(decideLimits('free', now, 1, [now - 1])).toMatchObject({ retryAfterSeconds: 60 }); // 59.999 s, rounded up
    expect(decideLimits('free', now, 1, [now - 59_001])).toMatchObject({ retryAfterSeconds: 1 }); // 0.999 s, rounded up
    expect(decideLimits('free', now, 1, [now - 59_999])).toMatchObject({ retryAfterSeconds: 1 });
  });

  it('allows again once the previous alert is a full minute old', () => {
    expect(decideLimits('free', now, 1, [now - 60_000])).toEqual({ allowed: true });
    expect(decideLimits('free', now, 1, [now - 60_001])).toEqual({ allowed: true });
  });

  it('refuses the fourth alert of the month with the allowance, the usage and the reset instant', () => {
    expect(decideLimits('free', now, 2, [])).toEqual({ allowed: true });
    expect(decideLimits('free', now, 3, [])).toEqual({
      allowed: false,
      limit: 'monthly',
      allowance: 3,
      used: 3,
      resetsAt: at('2026-12-01T00:00:00Z'),
    });
    expect(decideLimits('free', now, 7, [])).toMatchObject({ limit: 'monthly', used: 7 });
  });

  it('resets the allowance at the first instant of the next UTC month, across the year end', () => {
    expect(decideLimits('free', at('2026-12-31T23:59:59Z'), 3, [])).toMatchObject({
      limit: 'monthly',
      resetsAt: at('2027-01-01T00:00:00Z'),
    });
  });

  it('checks the monthly allowance before the burst limit', () => {
    expect(decideLimits('free', now, 3, [now - 1000])).toMatchObject({ allowed: false, limit: 'monthly' });
  });
});

describe('decideLimits, premium plan (unlimited a month, 10 a minute)', () => {
  const now = at('2026-11-22T14:00:00Z');
  const tenWithin = (offsets: number[]) => offsets.map((o) => now - o);

  it('has no monthly allowance', () => {
    expect(decideLimits('premium', now, 1_000_000, [])).toEqual({ allowed: true });
  });

  it('allows ten alerts a minute', () => {
    expect(decideLimits('premium', now, 9, tenWithin([1, 2, 3, 4, 5, 6, 7, 8, 9]))).toEqual({ allowed: true });
  });

  it('refuses the eleventh, with Retry-After from the oldest of the ten that block', () => {
    const times = tenWithin([59_000, 50_000, 45_000, 30_000, 20_000, 10_000, 5_000, 3_000, 2_000, 1_000]);
    expect(decideLimits('premium', now, 10, times)).toEqual({
      allowed: false,
      limit: 'burst',
      perMinute: 10,
      retryAfterSeconds: 1,
    });
    const later = tenWithin([40_000, 39_000, 38_000, 37_000, 36_000, 35_000, 34_000, 33_000, 32_000, 31_000]);
    expect(decideLimits('premium', now, 10, later)).toMatchObject({ retryAfterSeconds: 20 });
  });

  it('takes the recent times in any order', () => {
    const sorted = tenWithin([40_000, 39_000, 38_000, 37_000, 36_000, 35_000, 34_000, 33_000, 32_000, 31_000]);
    const shuffled = [
      sorted[3]!,
      sorted[9]!,
      sorted[0]!,
      sorted[5]!,
      sorted[1]!,
      sorted[8]!,
      sorted[2]!,
      sorted[7]!,
      sorted[4]!,
      sorted[6]!,
    ];
    expect(decideLimits('premium', now, 10, shuffled)).toEqual(decideLimits('premium', now, 10, sorted));
    expect(decideLimits('premium', now, 10, [...sorted].reverse())).toMatchObject({ retryAfterSeconds: 20 });
  });

  it('ignores times outside the window', () => {
    const old = tenWithin([60_000, 61_000, 90_000, 3_600_000, 86_400_000]);
    const recent = tenWithin([1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000]);
    expect(decideLimits('premium', now, 0, [...old, ...recent])).toEqual({ allowed: true });
    // With more than ten recent times, the tenth most recent decides.
    const eleven = tenWithin([1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000, 10_000, 58_000]);
    expect(decideLimits('premium', now, 0, [...old, ...eleven])).toMatchObject({
      allowed: false,
      retryAfterSeconds: 50,
    });
  });
});

describe('decideBurst', () => {
  it('never asks to wait less than one second nor more than the window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 120_000 }), { maxLength: 40 }),
        (n, times) => {
          const now = 120_000;
          const d = decideBurst(n, now, times);
          if (!d.allowed && d.limit === 'burst') {
            expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
            expect(d.retryAfterSeconds).toBeLessThanOrEqual(60);
            // Waiting that long is enough.
            expect(
              decideBurst(
                n,
                now + d.retryAfterSeconds * 1000,
                times.filter((t) => t <= now),
              ),
            ).toEqual({ allowed: true });
          }
        },
      ),
    );
  });

  it('honours a custom window', () => {
    expect(decideBurst(2, 10_000, [9_000, 8_000], 5_000)).toEqual({
      allowed: false,
      limit: 'burst',
      perMinute: 2,
      retryAfterSeconds: 3,
    });
    expect(decideBurst(2, 10_000, [9_000, 4_000], 5_000)).toEqual({ allowed: true });
  });

  it('with perMinute n, no 60-second window ever holds more than n acceptances, whatever the arrivals', () => {
    const arrivals = fc.array(fc.integer({ min: 0, max: 600_000 }), { maxLength: 80 });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), arrivals, fc.boolean(), (n, times, inOrder) => {
        const sequence = inOrder ? [...times].sort((a, b) => a - b) : times;
        const accepted: number[] = [];
        for (const t of sequence) if (decideBurst(n, t, accepted).allowed) accepted.push(t);
        const sorted = [...accepted].sort((a, b) => a - b);
        // Every window [start, start + 60 s) that begins at an acceptance holds at most n.
        for (let i = 0; i < sorted.length; i++) {
          let count = 0;
          for (let j = i; j < sorted.length && sorted[j]! < sorted[i]! + BURST_WINDOW_MS; j++) count++;
          expect(count).toBeLessThanOrEqual(n);
        }
        // And the limiter is not stricter than it says: in time order, an arrival is refused only when n
        // acceptances lie in the minute before it.
        if (inOrder) {
          for (const t of sequence) {
            if (!accepted.includes(t))
              expect(accepted.filter((a) => a > t - BURST_WINDOW_MS && a <= t).length).toBeGreaterThanOrEqual(n);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
