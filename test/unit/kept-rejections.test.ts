// When an account's oldest refusals are trimmed (core/webhook/kept-rejections): once every
// REJECTIONS_TRIM_EVERY, back to KEPT_AFTER_TRIM, so that an account never keeps more than
// MAX_REJECTIONS_KEPT.
import { describe, expect, it } from 'vitest';
import {
  KEPT_AFTER_TRIM,
  MAX_REJECTIONS_KEPT,
  REJECTIONS_TRIM_EVERY,
  RejectionTrims,
} from '../../src/core/webhook/kept-rejections.js';

describe('RejectionTrims', () => {
  it('trims an account at its first refusal (what it keeps is not known), then once every REJECTIONS_TRIM_EVERY', () => {
    const trims = new RejectionTrims();
    const due = Array.from({ length: 3 * REJECTIONS_TRIM_EVERY + 1 }, () => trims.written('a'));
    const at = due.flatMap((d, i) => (d ? [i] : []));
    const every = REJECTIONS_TRIM_EVERY + 1;
    expect(at).toEqual([0, every, 2 * every]);
    // Each account counts for itself.
    expect(trims.written('b')).toBe(true);
    expect(trims.written('b')).toBe(false);
  });

  it('trims at the next refusal an account whose trim was rolled back (forgotten)', () => {
    const trims = new RejectionTrims();
    trims.written('a');
    expect(trims.written('a')).toBe(false);
    trims.forget(['a']);
    expect(trims.written('a')).toBe(true);
  });

  it('keeps an account between KEPT_AFTER_TRIM and MAX_REJECTIONS_KEPT once it has that many, whatever the flood', () => {
    const trims = new RejectionTrims();
    let kept = 0;
    let least = Number.POSITIVE_INFINITY;
    let most = 0;
    for (let i = 0; i < 20 * MAX_REJECTIONS_KEPT; i++) {
      kept++;
      if (trims.written('a')) kept = Math.min(kept, KEPT_AFTER_TRIM);
      most = Math.max(most, kept);
      if (i > MAX_REJECTIONS_KEPT) least = Math.min(least, kept);
    }
    expect(most).toBe(MAX_REJECTIONS_KEPT);
    expect(least).toBe(KEPT_AFTER_TRIM);
  });
});
