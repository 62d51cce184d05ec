// This connection's own accepts (core/webhook/own-accepts, #58): while no other connection has
// committed for a whole burst window, they are every accept of the window and the limit needs no read.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OwnAccepts } from '../../src/core/webhook/own-accepts.js';
import { BURST_WINDOW_MS } from '../../src/core/webhook/limits.js';

const t0 = Date.parse('2026-12-07T06:00:00Z');

describe('own accepts', () => {
  it('decide nothing before a whole window alone has passed since the first look', () => {
    const own = new OwnAccepts();
    expect(own.inWindow('u', t0)).toBeNull();
    own.observe(7, t0);
    own.note('u', t0 + 1);
    expect(own.inWindow('u', t0 + BURST_WINDOW_MS - 1)).toBeNull();
    expect(own.inWindow('u', t0 + BURST_WINDOW_MS)).toEqual([t0 + 1]);
    expect(own.inWindow('other', t0 + BURST_WINDOW_MS)).toEqual([]);
  });

  it('start the window over when another connection committed, and not when nothing changed', () => {
    const own = new OwnAccepts();
    own.observe(1, t0);
    own.observe(1, t0 + 30_000);
    expect(own.inWindow('u', t0 + BURST_WINDOW_MS)).toEqual([]);
    own.observe(2, t0 + BURST_WINDOW_MS + 5);
    expect(own.inWindow('u', t0 + BURST_WINDOW_MS + 10)).toBeNull();
    expect(own.inWindow('u', t0 + 2 * BURST_WINDOW_MS + 5)).toEqual([]);
  });

  it('decide at once from a seed of the whole window read under the lock, until another connection commits', () => {
    const own = new OwnAccepts();
    expect(own.seeded).toBe(false);
    // Read at t0: two of u's accepts in the window (one stamped ahead of this clock), one of v's out of it.
    own.seed(
      [
        ['u', t0 - 1_000],
        ['u', t0 + 5],
        ['v', t0 - BURST_WINDOW_MS],
      ],
      3,
      t0,
    );
    expect(own.seeded).toBe(true);
    expect(own.inWindow('u', t0)).toEqual([t0 - 1_000, t0 + 5]);
    expect(own.inWindow('v', t0)).toEqual([]);
    own.note('v', t0 + 10);
    own.observe(3, t0 + 20);
    expect(own.inWindow('v', t0 + 20)).toEqual([t0 + 10]);
    // The clock went back past the seed: nothing decided.
    expect(own.inWindow('u', t0 - 1)).toBeNull();
    // Another connection committed: a whole window before anything is decided again.
    own.observe(4, t0 + 30);
    expect(own.inWindow('u', t0 + 30)).toBeNull();
    expect(own.inWindow('u', t0 + 30 + BURST_WINDOW_MS)).toEqual([]);
  });

  it('decide nothing when the clock went back before the first look', () => {
    const own = new OwnAccepts();
    own.observe(1, t0);
    expect(own.inWindow('u', t0 - 1)).toBeNull();
  });

  it('give the times within the window, equal times kept apart, older ones dropped', () => {
    const own = new OwnAccepts();
    own.observe(1, t0);
    const now = t0 + 5 * BURST_WINDOW_MS;
    for (const at of [now - BURST_WINDOW_MS, now - 1000, now - 1000, now - 10]) own.note('u', at);
    expect(own.inWindow('u', now)).toEqual([now - 1000, now - 1000, now - 10]);
    expect(own.inWindow('u', now + BURST_WINDOW_MS)).toEqual([]);
    expect(own.size).toBe(0);
  });

  it('keep what is in the window of every account noted, and forget the rest as time passes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.nat(3 * BURST_WINDOW_MS)), { maxLength: 60 }),
        (notes) => {
          const own = new OwnAccepts();
          own.observe(1, t0);
          const sorted = [...notes].sort((x, y) => x[1] - y[1]);
          for (const [userId, dt] of sorted) own.note(userId, t0 + BURST_WINDOW_MS + dt);
          const now = t0 + 4 * BURST_WINDOW_MS;
          for (const userId of ['a', 'b', 'c']) {
            const expected = sorted
              .filter(([u, dt]) => u === userId && t0 + BURST_WINDOW_MS + dt > now - BURST_WINDOW_MS)
              .map(([, dt]) => t0 + BURST_WINDOW_MS + dt);
            expect(own.inWindow(userId, now)).toEqual(expected);
          }
        },
      ),
    );
  });
});
