// Call ids draw their random bytes from a batch: each id still carries 128 bits of its own.
import { describe, expect, it } from 'vitest';
import { newCallId } from '../../src/core/ids.js';

describe('newCallId', () => {
  it('gives distinct URL-safe ids of 128 bits across many batches', () => {
    const ids = Array.from({ length: 2_000 }, () => newCallId());
    for (const id of ids) expect(id).toMatch(/^call_[A-Za-z0-9_-]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
