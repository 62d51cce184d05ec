import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultMaxCalls, PACE_GUARD_MS, PACE_WINDOW_MS, paceNow } from '../../src/core/calls/pace.js';

describe('paceNow', () => {
  it('allows what the last second leaves of the rate', () => {
    expect(paceNow([], 10_000, 10)).toEqual({ allowed: 10 });
    expect(paceNow([9_100, 9_500, 9_999], 10_000, 10)).toEqual({ allowed: 7 });
    // Starts older than the window and its guard do not count.
    expect(paceNow([8_000, 8_950, 9_001], 10_000, 2)).toEqual({ allowed: 1 });
    expect(paceNow([8_000, 8_951, 9_001], 10_000, 2)).toEqual({ allowed: 0, nextAt: 10_001 });
    // Calls asked for and not started yet use the rate up: no time to wait for, their start frees a place.
    expect(paceNow([9_500], 10_000, 0)).toEqual({ allowed: 0 });
  });

  it('none left: the next start is when the oldest in the window leaves it, guard included', () => {
    expect(paceNow([9_200, 9_300], 10_000, 2)).toEqual({ allowed: 0, nextAt: 10_200 + PACE_GUARD_MS });
    expect(paceNow([9_100, 9_200, 9_300], 10_000, 2)).toEqual({ allowed: 0, nextAt: 10_200 + PACE_GUARD_MS });
  });

  it('starting what it allows, when it allows, never puts more than the rate in any one-second window, whatever the INVITE jitter', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 200 }),
        (rate, arrivals) => {
          const sorted = [...arrivals].sort((a, b) => a - b);
          const starts: number[] = [];
          let now = 0;
          for (const arrival of sorted) {
            now = Math.max(now, arrival);
            let d = paceNow(starts, now, rate);
            while (d.allowed === 0) {
              now = d.nextAt!;
              d = paceNow(starts, now, rate);
            }
            starts.push(now);
          }
          const window = PACE_WINDOW_MS + PACE_GUARD_MS;
          for (const at of starts)
            expect(starts.filter((s) => s > at - window && s <= at).length).toBeLessThanOrEqual(rate);
        },
      ),
    );
  });
});

describe('defaultMaxCalls', () => {
  it('two RTP ports a call, within the allowed most', () => {
    expect(defaultMaxCalls({ start: 10_000, end: 20_000 }, 500)).toBe(500);
    expect(defaultMaxCalls({ start: 40_000, end: 40_099 }, 500)).toBe(50);
    expect(defaultMaxCalls({ start: 40_000, end: 40_001 }, 500)).toBe(1);
  });
});
