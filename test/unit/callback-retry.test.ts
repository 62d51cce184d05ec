// The status callbacks' retry decision: exponential backoff with jitter, bounded, given up after a day.
import { describe, expect, it } from 'vitest';
import {
  CALLBACK_RETRY,
  callbackVerdict,
  nextCallbackAttempt,
  receiverHoldUntil,
} from '../../src/core/callbacks/callback-retry.js';

const HOUR = 60 * 60_000;

describe('callbackVerdict', () => {
  it('2xx is delivered, 410 turns callbacks off, anything else (and no answer) is tried again', () => {
    expect([200, 201, 204, 299].map(callbackVerdict)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
    expect(callbackVerdict(410)).toBe('gone');
    expect([null, 301, 302, 400, 404, 429, 500, 503].map(callbackVerdict)).toEqual(Array(8).fill('retry'));
  });
});

describe('nextCallbackAttempt', () => {
  const at = (failures: number, random: number, now = 0, createdAt = 0) =>
    nextCallbackAttempt({ failures, createdAt, now, random });

  it('waits between half and all of a doubling delay: 5 s, 10 s, 20 s…', () => {
    expect(at(1, 0)).toBe(2_500);
    expect(at(1, 0.999_999)).toBeCloseTo(5_000, -1);
    expect(at(2, 0)).toBe(5_000);
    expect(at(3, 0.5)).toBe(15_000);
  });

  it('spreads the retries of receivers that failed together (jitter)', () => {
    const waits = new Set([0.1, 0.3, 0.5, 0.7, 0.9].map((r) => at(4, r)));
    expect(waits.size).toBe(5);
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(20_000);
  });

  it('never waits more than an hour between tries', () => {
    for (const failures of [12, 20, 50, 1000]) expect(at(failures, 0.999)! <= HOUR).toBe(true);
  });

  it('gives up once the next try would fall after a day from the event', () => {
    expect(at(10, 0.5, 23 * HOUR)).not.toBeNull();
    expect(at(20, 0.999, 23.9 * HOUR)).toBeNull();
    expect(at(1, 0, CALLBACK_RETRY.giveUpAfterMs)).toBeNull();
  });

  it('keeps a day of tries: about 40 before giving up', () => {
    let now = 0;
    let tries = 1;
    for (;;) {
      const next = nextCallbackAttempt({ failures: tries, createdAt: 0, now, random: 0.5 });
      if (next === null) break;
      now = next;
      tries++;
    }
    expect(now).toBeLessThanOrEqual(24 * HOUR);
    expect(now).toBeGreaterThan(22 * HOUR);
    expect(tries).toBeGreaterThan(30);
    expect(tries).toBeLessThan(50);
  });
});

describe('receiverHoldUntil', () => {
  it("holds the account's other deliveries until the next try only when the receiver gave no answer", () => {
    expect(receiverHoldUntil(false, 12_000)).toBe(12_000);
    expect(receiverHoldUntil(true, 12_000)).toBeNull();
    // Given up: nothing is held by a delivery that will not be tried again.
    expect(receiverHoldUntil(false, null)).toBeNull();
  });
});
