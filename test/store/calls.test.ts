// The call history in both stores: plan limits, monthly usage, rejections, paging.
import { describe, expect, test } from 'vitest';
import { PLAN_LIMITS, TEST_CALL_LIMITS } from '../../src/core/webhook/limits.js';
import { KEPT_AFTER_TRIM, MAX_REJECTIONS_KEPT } from '../../src/core/webhook/kept-rejections.js';
import { jsonAlert, manualClock, textAlert } from '../helpers/database.js';
import { STORE_KINDS, useStores } from '../helpers/stores.js';

describe.each(STORE_KINDS)('%s store: calls', (kind) => {
  const stores = useStores(kind);

  async function setUp(plan: 'free' | 'premium', start = '2026-11-10T12:00:00Z') {
    const clock = manualClock(start);
    const store = await (await stores.fresh()).open({ now: clock.now });
    const account = await store.accounts.create({ phone: '+14155550123', plan, smsBackup: false, name: '' });
    return { clock, store, userId: account.userId };
  }

  test('free plan: one a minute, three a month, the usage counted; a new month starts over', async () => {
    expect(PLAN_LIMITS.free).toEqual({ monthly: 3, perMinute: 1 });
    const { clock, store, userId } = await setUp('free');
    const first = await store.calls.accept(userId, 'free', textAlert('one'));
    expect(first).toMatchObject({ accepted: true, receivedAt: clock.now() });
    clock.advance(30_000);
    const burst = await store.calls.accept(userId, 'free', textAlert('too soon'));
    expect(burst).toEqual({
      accepted: false,
      // The rejection's own row in the history: the live history shows it (#38).
      callId: (await store.calls.list({ userId, limit: 1 }))[0]!.callId,
      decision: { allowed: false, limit: 'burst', perMinute: 1, retryAfterSeconds: 30 },
    });
    for (const m of ['two', 'three']) {
      clock.advance(61_000);
      expect((await store.calls.accept(userId, 'free', textAlert(m))).accepted).toBe(true);
    }
    clock.advance(61_000);
    const monthly = await store.calls.accept(userId, 'free', textAlert('four'));
    expect(monthly).toEqual({
      accepted: false,
      callId: expect.stringMatching(/^call_/),
      decision: {
        allowed: false,
        limit: 'monthly',
        allowance: 3,
        used: 3,
        resetsAt: Date.parse('2026-12-01T00:00:00Z'),
      },
    });
    expect(await store.calls.usage(userId)).toEqual({
      month: '2026-11',
      used: 3,
      resetsAt: Date.parse('2026-12-01T00:00:00Z'),
    });

    const history = await store.calls.list({ userId });
    expect(history.map((c) => [c.message, c.accepted, c.status])).toEqual([
      ['four', false, 'limit_exceeded'],
      ['three', true, 'queued'],
      ['two', true, 'queued'],
      ['too soon', false, 'rate_limited'],
      ['one', true, 'queued'],
    ]);
    expect(history[0]?.error).toBe('monthly call limit exceeded');
    expect(history[3]?.error).toBe('per-minute call limit exceeded');

    clock.set('2026-12-01T00:00:01Z');
    expect((await store.calls.accept(userId, 'free', textAlert('december'))).accepted).toBe(true);
    expect((await store.calls.usage(userId)).used).toBe(1);
  });

  test('premium: ten a minute, no monthly allowance', async () => {
    const { clock, store, userId } = await setUp('premium');
    for (let i = 0; i < 10; i++) {
      expect((await store.calls.accept(userId, 'premium', textAlert(`a${i}`))).accepted).toBe(true);
      clock.advance(1000);
    }
    const refused = await store.calls.accept(userId, 'premium', textAlert('eleventh'));
    expect(refused).toEqual({
      accepted: false,
      callId: expect.stringMatching(/^call_/),
      decision: { allowed: false, limit: 'burst', perMinute: 10, retryAfterSeconds: 50 },
    });
    clock.advance(50_000);
    expect((await store.calls.accept(userId, 'premium', textAlert('later'))).accepted).toBe(true);
    expect((await store.calls.usage(userId)).used).toBe(11);
  });

  test('an accepted alert keeps its fields; get and getForAccount', async () => {
    const { store, userId } = await setUp('premium');
    const alert = jsonAlert({
      message: 'AAPL up',
      ticker: 'AAPL',
      price: 187.2,
      action: 'buy',
      strategy: 's1',
      timestamp: '2026-11-10T12:00:00Z',
      note: 'x',
    });
    const result = await store.calls.accept(userId, 'premium', alert);
    if (!result.accepted) throw new Error('refused');
    const call = await store.calls.get(result.callId);
    expect(call).toMatchObject({
      callId: result.callId,
      userId,
      kind: 'alert',
      accepted: true,
      status: 'queued',
      message: 'AAPL up',
      messageTruncated: false,
      ticker: 'AAPL',
      price: 187.2,
      action: 'buy',
      strategy: 's1',
      alertTimestamp: '2026-11-10T12:00:00Z',
      extra: { note: 'x' },
      error: null,
      phone: null,
      smsStatus: null,
      carriedBy: null,
      trunk: null,
    });
    expect(typeof call?.id).toBe('number');
    expect(await store.calls.getForAccount(userId, result.callId)).toEqual(call);
    const other = await store.accounts.create({ phone: '+14155550124', plan: 'free', smsBackup: false, name: '' });
    expect(await store.calls.getForAccount(other.userId, result.callId)).toBeUndefined();
    expect(await store.calls.get('call_nope')).toBeUndefined();
  });

  // 1,000 refusals one after another (7 s at a load of 5): their deadline, not a measure (#53: over 30 s at a load of 20).
  test('rejections are recorded shortened, and only the newest are kept, at most MAX_REJECTIONS_KEPT', async () => {
    const { clock, store, userId } = await setUp('premium');
    await store.calls.recordRejection({ userId, status: 'invalid_payload', error: 'bad', excerpt: 'x'.repeat(300) });
    const [long] = await store.calls.list({ userId });
    expect(long).toMatchObject({ accepted: false, status: 'invalid_payload', error: 'bad', messageTruncated: true });
    expect(long?.message).toHaveLength(200);
    const total = MAX_REJECTIONS_KEPT + 4;
    for (let i = 1; i < total; i++) {
      clock.advance(1);
      await store.calls.recordRejection({
        userId,
        status: i % 2 ? 'suspended' : 'invalid_payload',
        error: 'no',
        excerpt: `r${i}`,
      });
    }
    const kept = await store.calls.page(userId, { limit: 2 * total });
    expect(kept.entries.length).toBeGreaterThanOrEqual(KEPT_AFTER_TRIM);
    expect(kept.entries.length).toBeLessThanOrEqual(MAX_REJECTIONS_KEPT);
    expect(kept.entries[0]?.message).toBe(`r${total - 1}`);
    expect(kept.entries.at(-1)?.message).toBe(`r${total - kept.entries.length}`);
  }, 90_000);

  test('history pages newest first on the id cursor, with a status filter', async () => {
    const { clock, store, userId } = await setUp('premium');
    const other = await store.accounts.create({ phone: '+14155550124', plan: 'premium', smsBackup: false, name: '' });
    for (let i = 0; i < 25; i++) {
      clock.advance(61_000);
      if (i % 5 === 4)
        await store.calls.recordRejection({ userId, status: 'invalid_payload', error: 'bad', excerpt: `bad${i}` });
      else await store.calls.accept(userId, 'premium', textAlert(`m${i}`));
      await store.calls.accept(other.userId, 'premium', textAlert(`other${i}`));
    }
    const seen: string[] = [];
    let before: number | undefined;
    const sizes: number[] = [];
    for (;;) {
      const page = await store.calls.page(userId, { before, limit: 10 });
      sizes.push(page.entries.length);
      seen.push(...page.entries.map((e) => e.message));
      for (const e of page.entries) expect(e.userId).toBe(userId);
      if (page.next === null) break;
      expect(page.next).toBe(page.entries.at(-1)?.id);
      before = page.next;
    }
    expect(sizes).toEqual([10, 10, 5]);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => (i % 5 === 4 ? `bad${i}` : `m${i}`)).reverse());

    const bad = await store.calls.page(userId, { limit: 3, statuses: ['invalid_payload'] });
    expect(bad.entries.map((e) => e.message)).toEqual(['bad24', 'bad19', 'bad14']);
    const rest = await store.calls.page(userId, { limit: 3, statuses: ['invalid_payload'], before: bad.next! });
    expect(rest).toMatchObject({ next: null });
    expect(rest.entries.map((e) => e.message)).toEqual(['bad9', 'bad4']);
    expect(
      (await store.calls.page(userId, { limit: 100, statuses: ['queued', 'invalid_payload'] })).entries,
    ).toHaveLength(25);
    expect((await store.calls.list({ limit: 7 })).length).toBe(7);
    expect((await store.calls.list()).length).toBe(50);
  });

  test('test calls: their own per-minute and per-hour limits, no monthly allowance', async () => {
    expect(TEST_CALL_LIMITS).toEqual({ perMinute: 2, perHour: 10 });
    const { clock, store, userId } = await setUp('free');
    for (let i = 0; i < 3; i++) await store.calls.accept(userId, 'free', textAlert(`x${(clock.advance(61_000), i)}`));
    expect((await store.calls.usage(userId)).used).toBe(3);
    expect(await store.calls.acceptTestCall(userId, 'test 1')).toMatchObject({ accepted: true });
    expect(await store.calls.acceptTestCall(userId, 'test 2')).toMatchObject({ accepted: true });
    expect(await store.calls.acceptTestCall(userId, 'test 3')).toMatchObject({
      accepted: false,
      decision: { limit: 'burst', perMinute: 2 },
    });
    for (let i = 0; i < 4; i++) {
      clock.advance(61_000);
      expect((await store.calls.acceptTestCall(userId, 'more')).accepted).toBe(true);
      expect((await store.calls.acceptTestCall(userId, 'more')).accepted).toBe(true);
    }
    clock.advance(61_000);
    const hourly = await store.calls.acceptTestCall(userId, 'eleventh this hour');
    expect(hourly).toMatchObject({ accepted: false, decision: { limit: 'burst', perMinute: 10 } });
    const [latest] = await store.calls.list({ userId, limit: 1 });
    expect(latest).toMatchObject({ kind: 'test', message: 'more', status: 'queued' });
    expect((await store.calls.usage(userId)).used).toBe(3);
  });
});
