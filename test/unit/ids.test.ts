// Call ids draw their random bytes from a batch: each id still carries 128 bits of its own, behind
// the time it was made, written so that ids sort in the order they were made.
import { describe, expect, it } from 'vitest';
import { newCallId } from '../../src/core/ids.js';

describe('newCallId', () => {
  it('gives distinct URL-safe ids of 128 bits across many batches', () => {
    const ids = Array.from({ length: 2_000 }, () => newCallId());
    for (const id of ids) expect(id).toMatch(/^call_[A-Za-z0-9_-]{30}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(13))).size).toBe(ids.length);
  });

  it('sorts ids in the order they were made, a millisecond apart or years (as strings, as an index compares them)', () => {
    const times = [0, 1, 63, 64, 4_095, 4_096, 1_700_000_000_000, 1_700_000_000_001, 1_765_000_000_000, 2 ** 48 - 1];
    const ids = times.map((t) => newCallId(t));
    expect([...ids].sort()).toEqual(ids);
    expect(ids.map((id) => id.slice(5, 13))).toContain('--------');
    // Made in the same millisecond: ordered by their random part alone, but all beside each other.
    const same = Array.from({ length: 100 }, () => newCallId(1_765_000_000_000));
    expect(new Set(same.map((id) => id.slice(0, 13))).size).toBe(1);
  });
});
