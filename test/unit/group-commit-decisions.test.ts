// The group commit's pure decisions (core/webhook/group-commit): how many waiting writes one commit takes,
// and the burst refusals that this process's own committed accepts decide without a commit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KnownAccepts, MAX_GROUP, nextGroup } from '../../src/core/webhook/group-commit.js';
import { BURST_WINDOW_MS, decideLimits } from '../../src/core/webhook/limits.js';

const now = Date.parse('2026-11-22T14:00:00Z');

describe('the next group', () => {
  it('takes every waiting write up to the bound, and says when another commit must follow', () => {
    expect(nextGroup(1)).toEqual({ take: 1, more: false });
    expect(nextGroup(MAX_GROUP)).toEqual({ take: MAX_GROUP, more: false });
    expect(nextGroup(MAX_GROUP + 1)).toEqual({ take: MAX_GROUP, more: true });
    expect(nextGroup(0)).toEqual({ take: 0, more: false });
    fc.assert(
      fc.property(fc.nat(1000), fc.integer({ min: 1, max: 200 }), (waiting, max) => {
        const { take, more } = nextGroup(waiting, max);
        expect(take).toBeLessThanOrEqual(max);
        expect(take).toBe(Math.min(waiting, max));
        expect(more).toBe(waiting > max);
      }),
    );
  });
});

describe('known accepts', () => {
  it('refuse the 11th premium alert of a minute, with the wait the full check gives', () => {
    const known = new KnownAccepts();
    const times = Array.from({ length: 10 }, (_, i) => now - 50_000 + i * 1000);
    for (const t of times.slice(0, 9)) known.note('u1', t);
    expect(known.refusal('u1', 'premium', now)).toBeNull();
    known.note('u1', times[9]!);
    const refusal = known.refusal('u1', 'premium', now);
    expect(refusal).toEqual(decideLimits('premium', now, 0, times));
    expect(refusal).toMatchObject({ limit: 'burst', perMinute: 10, retryAfterSeconds: 10 });
    expect(known.refusal('u2', 'premium', now)).toBeNull();
  });

  it('never decide for a plan with a monthly allowance (its monthly refusal comes first): the full check does', () => {
    const known = new KnownAccepts();
    known.note('u1', now - 1000);
    known.note('u1', now - 500);
    expect(known.refusal('u1', 'free', now)).toBeNull();
  });

  it('let accepts leave the window as time passes, and forget an account quiet for a window', () => {
    const known = new KnownAccepts();
    for (let i = 0; i < 10; i++) known.note('u1', now - 59_000 + i);
    known.note('u2', now - 1000);
    expect(known.refusal('u1', 'premium', now)).not.toBeNull();
    expect(known.refusal('u1', 'premium', now + 1000)).toBeNull();
    expect(known.refusal('u1', 'premium', now + 2 * BURST_WINDOW_MS)).toBeNull();
    expect(known.size).toBe(0);
  });

  it('count alerts accepted in the same millisecond apart (a group shares one), read or noted', () => {
    const known = new KnownAccepts();
    known.learn('u1', Array(10).fill(now - 1000));
    expect(known.refusal('u1', 'premium', now)).toMatchObject({ limit: 'burst' });
    for (let i = 0; i < 10; i++) known.note('u2', now - 1000);
    expect(known.refusal('u2', 'premium', now)).toMatchObject({ limit: 'burst' });
  });

  it('never count an alert twice: what a commit read replaces what was noted', () => {
    const known = new KnownAccepts();
    const times = Array.from({ length: 5 }, (_, i) => now - 10_000 + i);
    for (const t of times) known.note('u1', t);
    known.learn('u1', times);
    for (let i = 0; i < 4; i++) known.note('u1', now - 100);
    // 5 read + 4 noted since: 9, one short of the limit.
    expect(known.refusal('u1', 'premium', now)).toBeNull();
  });

  it('learn the times read inside a commit, once each', () => {
    const known = new KnownAccepts();
    const times = Array.from({ length: 10 }, (_, i) => now - 10_000 + i);
    known.note('u1', times[0]!);
    known.learn('u1', times);
    known.learn('u1', times);
    expect(known.refusal('u1', 'premium', now)).toEqual(decideLimits('premium', now, 0, times));
  });

  it('refuse only what the full check over the same accepts refuses, and the same way (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -120_000, max: 0 }), { maxLength: 30 }), (offsets) => {
        const known = new KnownAccepts();
        const times = offsets.map((o) => now + o);
        for (const t of times) known.note('u', t);
        const refusal = known.refusal('u', 'premium', now);
        const full = decideLimits('premium', now, 0, times);
        expect(refusal ?? { allowed: true }).toEqual(full);
      }),
    );
  });
});
