import { describe, expect, it } from 'vitest';
import { dedupeKey, dedupeSince, describeDedupe, parseDedupeSeconds } from '../../src/core/webhook/dedupe.js';

const alert = (message: string, extra: Record<string, unknown> = {}, fields = {}) => ({ message, fields, extra });

describe('dedupeKey', () => {
  it('is null when the account does not dedupe (the seed contract)', () => {
    expect(dedupeKey(0, { alert: alert('BTC up') })).toBeNull();
  });
  it('is the same for the same body and fields, whatever the order of the extra fields', () => {
    const a = dedupeKey(60, { alert: alert('BTC up', { x: 1, y: { b: 2, a: 1 } }, { ticker: 'BTC' }) });
    const b = dedupeKey(60, { alert: alert('BTC up', { y: { a: 1, b: 2 }, x: 1 }, { ticker: 'BTC' }) });
    expect(a).toBe(b);
  });
  it('differs when the message, a field or an extra field differs', () => {
    const base = dedupeKey(60, { alert: alert('BTC up', { x: 1 }, { ticker: 'BTC' }) });
    expect(dedupeKey(60, { alert: alert('BTC down', { x: 1 }, { ticker: 'BTC' }) })).not.toBe(base);
    expect(dedupeKey(60, { alert: alert('BTC up', { x: 2 }, { ticker: 'BTC' }) })).not.toBe(base);
    expect(dedupeKey(60, { alert: alert('BTC up', { x: 1 }, { ticker: 'ETH' }) })).not.toBe(base);
  });
  it('lets the Idempotency-Key decide instead of the body', () => {
    const one = dedupeKey(60, { idempotencyKey: 'BTC-1700', alert: alert('first') });
    const two = dedupeKey(60, { idempotencyKey: 'BTC-1700', alert: alert('second text') });
    const other = dedupeKey(60, { idempotencyKey: 'BTC-1701', alert: alert('first') });
    expect(one).toBe(two);
    expect(other).not.toBe(one);
  });
  it('lets the JSON id decide when there is no header, and the header beat the id', () => {
    expect(dedupeKey(60, { alert: alert('a', { id: 'x-1' }) })).toBe(
      dedupeKey(60, { alert: alert('b', { id: 'x-1' }) }),
    );
    expect(dedupeKey(60, { alert: alert('a', { id: 7 }) })).toBe(dedupeKey(60, { alert: alert('b', { id: 7 }) }));
    expect(dedupeKey(60, { idempotencyKey: 'k', alert: alert('a', { id: 'x-1' }) })).toBe(
      dedupeKey(60, { idempotencyKey: 'k', alert: alert('a', { id: 'x-2' }) }),
    );
  });
  it('keeps the keys already stored byte for byte (computed by the first release of the window)', () => {
    const btc = alert('BTC up', { interval: '5', exchange: 'BINANCE' }, { ticker: 'BTC', price: 1.5, action: 'buy' });
    expect(dedupeKey(60, { alert: btc })).toBe('b:UzCAhAYqoZP77KdRsFBigBGk2vGXZCRif0iDTuJfmlM');
    const odd = alert('é ☃ "q"', {
      b: [1, null, { z: 1, a: [{ y: 2, x: null }] }],
      a: 'x',
      10: 1,
      9: 2,
      é: 1,
      e: 2,
      nested: { '': true, ' ': false },
    });
    expect(dedupeKey(60, { alert: odd })).toBe('b:x6H2eUvtYX-TviaWeUXp3m40s7xM0veb01dbCVBZ7qs');
  });
  it('leaves out undefined members, as JSON does', () => {
    expect(dedupeKey(60, { alert: alert('a', { x: 1, y: undefined }) })).toBe(
      dedupeKey(60, { alert: alert('a', { x: 1 }) }),
    );
  });
  it('never lets a header key equal an id or a body key', () => {
    expect(dedupeKey(60, { idempotencyKey: 'x-1', alert: alert('a') })).not.toBe(
      dedupeKey(60, { alert: alert('a', { id: 'x-1' }) }),
    );
  });
});

describe('parseDedupeSeconds', () => {
  it('reads off, 0 and seconds up to a day', () => {
    expect(parseDedupeSeconds('off')).toEqual({ ok: true, seconds: 0 });
    expect(parseDedupeSeconds('0')).toEqual({ ok: true, seconds: 0 });
    expect(parseDedupeSeconds('30')).toEqual({ ok: true, seconds: 30 });
    expect(parseDedupeSeconds('86400')).toEqual({ ok: true, seconds: 86400 });
  });
  it('refuses anything else with one line', () => {
    for (const bad of ['-1', '1.5', 'soon', '86401', '']) expect(parseDedupeSeconds(bad).ok).toBe(false);
  });
});

describe('dedupeSince', () => {
  it('is the window back from now', () => {
    expect(dedupeSince(100_000, 30)).toBe(70_000);
  });
});

describe('describeDedupe', () => {
  it('says off rings every alert, and a window rings once with the first call_id', () => {
    expect(describeDedupe(0)).toBe('Off: every alert rings, identical or not.');
    expect(describeDedupe(60)).toMatch(
      /^Two identical alerts within 60 s ring once: the second is answered with the first alert's call_id/,
    );
  });
});
