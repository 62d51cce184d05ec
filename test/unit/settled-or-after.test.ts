import { describe, expect, it } from 'vitest';
import { settledOrAfter } from '../../src/lib/sleep.js';

const settleIn = (ms: number, fail = false) =>
  new Promise<void>((resolve, reject) => setTimeout(() => (fail ? reject(new Error('failed')) : resolve()), ms));

describe('settledOrAfter', () => {
  it('ends when the work settles, fulfilled or rejected, if that is sooner', async () => {
    for (const fail of [false, true]) {
      const started = performance.now();
      await settledOrAfter(settleIn(20, fail), 5_000);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });

  it('ends after the time when the work takes longer', async () => {
    const started = performance.now();
    await settledOrAfter(new Promise(() => {}), 50);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('Infinity: only once the work settles', async () => {
    let settled = false;
    const waiting = settledOrAfter(settleIn(100), Number.POSITIVE_INFINITY).then(() => {
      settled = true;
    });
    await settleIn(30);
    expect(settled).toBe(false);
    await waiting;
    expect(settled).toBe(true);
  });
});
