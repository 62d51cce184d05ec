// SqliteCallStore against a real SQLite file: accepting alerts within the limits, test calls, rejections and the history.
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_CALL_LIMITS } from '../../src/core/webhook/limits.js';
import type { SqliteAccountStore } from '../../src/store/sqlite/accounts.js';
import { SqliteCallStore } from '../../src/store/sqlite/calls.js';
import { KEPT_AFTER_TRIM, MAX_REJECTIONS_KEPT, REJECTIONS_TRIM_EVERY } from '../../src/core/webhook/kept-rejections.js';
import type { Db } from '../../src/store/sqlite/connect.js';
import { createAccount } from '../helpers/accounts.js';
import {
  useTempDatabases,
  openTracked,
  count,
  textAlert,
  jsonAlert,
  type manualClock,
  openStoresAt,
  tmp,
} from '../helpers/database.js';

useTempDatabases();

describe('SqliteCallStore', () => {
  let db: Db;
  let clock: ReturnType<typeof manualClock>;
  let accounts: SqliteAccountStore;
  let calls: SqliteCallStore;

  beforeEach(() => {
    ({ db, clock, accounts, calls } = openStoresAt('2026-11-10T10:00:00Z'));
  });

  const account = (plan: 'free' | 'premium') => createAccount(accounts, { plan });

  function mustAccept(userId: string, plan: 'free' | 'premium', alert = textAlert('alert')) {
    const result = calls.acceptNow(userId, plan, alert);
    if (!result.accepted)
      throw new Error(`refused at ${new Date(clock.now()).toISOString()}: ${JSON.stringify(result.decision)}`);
    return result;
  }

  it('records an accepted alert as a queued call with all its fields', () => {
    const a = account('premium');
    const alert = jsonAlert({
      message: '  BTC crossed 100000 ',
      ticker: 'BTCUSD',
      price: '100,012.5',
      action: 'buy',
      strategy: 'EMA',
      timestamp: '2026-11-10T09:59:00Z',
      exchange: 'BINANCE',
      nested: { a: [1, 2] },
    });
    const result = mustAccept(a.userId, 'premium', alert);
    expect(result).toEqual({
      accepted: true,
      callId: expect.stringMatching(/^call_[A-Za-z0-9_-]{30}$/),
      receivedAt: clock.now(),
    });
    expect(calls.get(result.callId)).toEqual({
      id: expect.any(Number),
      callId: result.callId,
      userId: a.userId,
      kind: 'alert',
      accepted: true,
      status: 'queued',
      message: 'BTC crossed 100000',
      messageTruncated: false,
      ticker: 'BTCUSD',
      price: 100012.5,
      action: 'buy',
      strategy: 'EMA',
      alertTimestamp: '2026-11-10T09:59:00Z',
      extra: { exchange: 'BINANCE', nested: { a: [1, 2] } },
      error: null,
      receivedAt: clock.now(),
      updatedAt: clock.now(),
      // Nothing is dialed yet: the telephony and SMS fields are empty.
      hangupCauseText: null,
      smsParts: null,
      phone: null,
      dialedAt: null,
      answeredAt: null,
      endedAt: null,
      ringMs: null,
      talkMs: null,
      hangupCause: null,
      sipCode: null,
      smsStatus: null,
      smsMessageId: null,
      smsAt: null,
      smsError: null,
      carriedBy: null,
      amdStatus: null,
      amdCause: null,
      trunk: null,
      heldUntil: null,
      reasonDetail: null,
      attempt: 1,
      retryAt: null,
      earlierAttempts: [],
      dialTo: null,
      // Decision keys (#56): none of its own, no Idempotency-Key, no decision yet.
      decisionKeys: null,
      idempotencyKey: null,
      decisionKey: null,
      decisionLabel: null,
      decidedAt: null,
      decisionRefused: null,
    });
    expect(calls.get('call_missing')).toBeUndefined();
  });

  it('records that a message was truncated', () => {
    const a = account('premium');
    const { callId } = mustAccept(a.userId, 'premium', textAlert('x'.repeat(700)));
    expect(calls.get(callId)).toMatchObject({ message: 'x'.repeat(500), messageTruncated: true });
  });

  it('free plan: one a minute, three a month, counted in usage, reset on the first of the next month', () => {
    const a = account('free');
    mustAccept(a.userId, 'free');
    expect(calls.usage(a.userId)).toEqual({ month: '2026-11', used: 1, resetsAt: Date.parse('2026-12-01T00:00:00Z') });

    clock.advance(30_000);
    const burst = calls.acceptNow(a.userId, 'free', textAlert('too soon'));
    expect(burst).toEqual({
      accepted: false,
      // The rejection's own row, which the live history shows.
      callId: calls.list({ userId: a.userId, limit: 1 })[0]!.callId,
      decision: { allowed: false, limit: 'burst', perMinute: 1, retryAfterSeconds: 30 },
    });
    expect(calls.usage(a.userId).used).toBe(1);

    clock.advance(30_000); // exactly one minute after the first
    mustAccept(a.userId, 'free');
    clock.advance(60_000);
    mustAccept(a.userId, 'free');
    expect(calls.usage(a.userId).used).toBe(3);

    clock.advance(3_600_000);
    const monthly = calls.acceptNow(a.userId, 'free', textAlert('fourth'));
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
    expect(calls.usage(a.userId).used).toBe(3);

    // The refusals are in the history, newest first, with their reason.
    const history = calls.list({ userId: a.userId });
    expect(history.map((c) => [c.accepted, c.status])).toEqual([
      [false, 'limit_exceeded'],
      [true, 'queued'],
      [true, 'queued'],
      [false, 'rate_limited'],
      [true, 'queued'],
    ]);
    expect(history[0]).toMatchObject({ message: 'fourth', error: 'monthly call limit exceeded' });
    expect(history[3]).toMatchObject({ message: 'too soon', error: 'per-minute call limit exceeded' });

    clock.set('2026-11-30T23:59:59.999Z');
    expect(calls.acceptNow(a.userId, 'free', textAlert('still November')).accepted).toBe(false);
    clock.set('2026-12-01T00:00:00.000Z');
    mustAccept(a.userId, 'free');
    expect(calls.usage(a.userId)).toEqual({ month: '2026-12', used: 1, resetsAt: Date.parse('2027-01-01T00:00:00Z') });
    expect(calls.usage(a.userId, Date.parse('2026-11-15T00:00:00Z')).used).toBe(3);
  });

  it('free plan: the allowance renews across the year end', () => {
    const a = account('free');
    clock.set('2026-12-31T23:50:00Z');
    for (let i = 0; i < 3; i++) {
      mustAccept(a.userId, 'free');
      clock.advance(60_000);
    }
    expect(calls.acceptNow(a.userId, 'free', textAlert('x'))).toMatchObject({
      accepted: false,
      decision: { limit: 'monthly', resetsAt: Date.parse('2027-01-01T00:00:00Z') },
    });
    clock.set('2027-01-01T00:00:00Z');
    mustAccept(a.userId, 'free');
    expect(calls.usage(a.userId).month).toBe('2027-01');
  });

  it('premium plan: ten a minute, the eleventh waits for the oldest to leave the window', () => {
    const a = account('premium');
    const start = clock.now();
    for (let i = 0; i < 10; i++) {
      mustAccept(a.userId, 'premium');
      clock.advance(1_000);
    }
    // now = start + 10 s; the oldest of the ten leaves the window at start + 60 s.
    expect(calls.acceptNow(a.userId, 'premium', textAlert('11th'))).toEqual({
      accepted: false,
      callId: expect.stringMatching(/^call_/),
      decision: { allowed: false, limit: 'burst', perMinute: 10, retryAfterSeconds: 50 },
    });
    clock.set(new Date(start + 59_999).toISOString());
    expect(calls.acceptNow(a.userId, 'premium', textAlert('11th')).accepted).toBe(false);
    clock.set(new Date(start + 60_000).toISOString());
    mustAccept(a.userId, 'premium');
    expect(calls.usage(a.userId).used).toBe(11);
  });

  it('premium plan: no monthly allowance', () => {
    const a = account('premium');
    for (let i = 0; i < 40; i++) {
      mustAccept(a.userId, 'premium');
      clock.advance(6_000);
    }
    expect(calls.usage(a.userId).used).toBe(40);
  });

  it('keeps the limits of each account apart', () => {
    const a = account('free');
    const b = account('free');
    mustAccept(a.userId, 'free');
    mustAccept(b.userId, 'free');
    expect(calls.acceptNow(a.userId, 'free', textAlert('x')).accepted).toBe(false);
  });

  it('keeps the limits exact across two connections to the same file', () => {
    const file = path.join(tmp, 'ringhook.db');
    const other = new SqliteCallStore(openTracked(file, { sync: 'normal' }), clock.now);
    const a = account('premium');
    let accepted = 0;
    for (let i = 0; i < 20; i++)
      if ((i % 2 === 0 ? calls : other).acceptNow(a.userId, 'premium', textAlert(`n${i}`)).accepted) accepted++;
    expect(accepted).toBe(10);
    expect(other.usage(a.userId).used).toBe(10);
  });

  describe('test calls', () => {
    it('do not use the monthly allowance and work when it is spent', () => {
      const a = account('free');
      for (let i = 0; i < 3; i++) {
        mustAccept(a.userId, 'free');
        clock.advance(60_000);
      }
      const test = calls.acceptTestCall(a.userId, 'This is a test call from ringhook.', TEST_CALL_LIMITS.perMinute);
      if (!test.accepted) throw new Error('test call refused');
      expect(calls.get(test.callId)).toMatchObject({
        kind: 'test',
        accepted: true,
        status: 'queued',
        message: 'This is a test call from ringhook.',
      });
      expect(calls.usage(a.userId).used).toBe(3);
    });

    it('have their own per-minute limit, apart from the alerts', () => {
      const a = account('free');
      expect(calls.acceptTestCall(a.userId, 't1', 2).accepted).toBe(true);
      clock.advance(10_000);
      expect(calls.acceptTestCall(a.userId, 't2', 2).accepted).toBe(true);
      clock.advance(10_000);
      expect(calls.acceptTestCall(a.userId, 't3', 2)).toEqual({
        accepted: false,
        decision: { allowed: false, limit: 'burst', perMinute: 2, retryAfterSeconds: 40 },
      });
      // Test calls do not hold back an alert, nor the other way round.
      mustAccept(a.userId, 'free');
      clock.advance(40_000);
      expect(calls.acceptTestCall(a.userId, 't4', 2).accepted).toBe(true);
      expect(calls.usage(a.userId).used).toBe(1);
      // A refused test call is not written to the history.
      expect(calls.list({ userId: a.userId }).map((c) => c.message)).toEqual(['t4', 'alert', 't2', 't1']);
    });

    // TEST_CALL_LIMITS declares perHour: 10 beside perMinute: 2 ("a small limit of its own").
    it(`are held to TEST_CALL_LIMITS.perHour (${TEST_CALL_LIMITS.perHour}) within an hour`, () => {
      const a = account('premium');
      let accepted = 0;
      for (let i = 0; i < TEST_CALL_LIMITS.perHour + 2; i++) {
        if (calls.acceptTestCall(a.userId, `t${i}`, TEST_CALL_LIMITS.perMinute).accepted) accepted++;
        clock.advance(4 * 60_000);
      }
      expect(accepted).toBe(TEST_CALL_LIMITS.perHour);
    });
  });

  describe('rejections', () => {
    it('are recorded with their reason, the alert fields and a shortened message', () => {
      const a = account('premium');
      calls.recordRejectionNow({
        userId: a.userId,
        status: 'suspended',
        error: 'account suspended',
        alert: jsonAlert({ message: 'm'.repeat(300), ticker: 'T', extra: 1 }),
      });
      calls.recordRejectionNow({
        userId: a.userId,
        status: 'invalid_payload',
        error: 'not valid JSON',
        excerpt: '{"message": {{close}}',
      });
      calls.recordRejectionNow({ userId: a.userId, status: 'invalid_payload', error: 'empty' });
      const [empty, excerpt, suspended] = calls.list({ userId: a.userId });
      expect(suspended).toMatchObject({
        accepted: false,
        status: 'suspended',
        error: 'account suspended',
        message: 'm'.repeat(200),
        messageTruncated: true,
        ticker: 'T',
        extra: { extra: 1 },
      });
      expect(excerpt).toMatchObject({
        accepted: false,
        status: 'invalid_payload',
        message: '{"message": {{close}}',
        messageTruncated: false,
        ticker: null,
      });
      expect(empty).toMatchObject({ message: '', messageTruncated: false });
      expect(calls.usage(a.userId).used).toBe(0);
    });

    it('shorten by code points, never splitting a surrogate pair', () => {
      const a = account('premium');
      calls.recordRejectionNow({
        userId: a.userId,
        status: 'invalid_payload',
        error: 'x',
        excerpt: '\u{1F680}'.repeat(250),
      });
      expect(calls.list({ userId: a.userId })[0]!.message).toBe('\u{1F680}'.repeat(200));
    });

    it(`keep at most ${MAX_REJECTIONS_KEPT} per account, the newest, and never touch accepted calls`, () => {
      const a = account('premium');
      const b = account('premium');
      const kept = mustAccept(a.userId, 'premium', textAlert('accepted'));
      calls.recordRejectionNow({ userId: b.userId, status: 'invalid_payload', error: 'x', excerpt: 'b0' });
      const total = MAX_REJECTIONS_KEPT + 25;
      for (let i = 0; i < total; i++) {
        calls.recordRejectionNow({ userId: a.userId, status: 'invalid_payload', error: 'x', excerpt: `r${i}` });
      }
      const keptNow = count(db, 'SELECT count(*) FROM calls WHERE user_id = ? AND accepted = 0', a.userId);
      expect(keptNow).toBeGreaterThanOrEqual(KEPT_AFTER_TRIM);
      expect(keptNow).toBeLessThanOrEqual(MAX_REJECTIONS_KEPT);
      const history = calls.list({ userId: a.userId, limit: 1000 }).filter((c) => !c.accepted);
      expect(history).toHaveLength(keptNow);
      expect(history[0]!.message).toBe(`r${total - 1}`);
      expect(history.at(-1)!.message).toBe(`r${total - keptNow}`);
      expect(calls.get(kept.callId)).toMatchObject({ accepted: true, message: 'accepted' });
      expect(calls.list({ userId: b.userId }).map((c) => c.message)).toEqual(['b0']);
    });

    it(`are trimmed back to ${KEPT_AFTER_TRIM} once every ${REJECTIONS_TRIM_EVERY}, not at each refusal (a flood's refusals do not each walk the thousand kept)`, () => {
      const a = account('premium');
      const kept = () => count(db, 'SELECT count(*) FROM calls WHERE user_id = ? AND accepted = 0', a.userId);
      const refuse = (i: number) =>
        calls.recordRejectionNow({ userId: a.userId, status: 'invalid_payload', error: 'x', excerpt: `r${i}` });
      let i = 0;
      while (kept() < MAX_REJECTIONS_KEPT - 1 || i < MAX_REJECTIONS_KEPT) refuse(i++);
      const seen: number[] = [];
      for (let n = 0; n < 3 * REJECTIONS_TRIM_EVERY; n++) {
        refuse(i++);
        seen.push(kept());
      }
      expect(Math.max(...seen)).toBe(MAX_REJECTIONS_KEPT);
      expect(Math.min(...seen)).toBe(KEPT_AFTER_TRIM);
      // A trim every REJECTIONS_TRIM_EVERY refusals: the count falls back 3 times in 300.
      expect(seen.filter((k, n) => n > 0 && k < seen[n - 1]!)).toHaveLength(3);
    });

    it('from the limits are trimmed too', () => {
      const a = account('free');
      mustAccept(a.userId, 'free');
      for (let i = 0; i < MAX_REJECTIONS_KEPT + 5; i++) calls.acceptNow(a.userId, 'free', textAlert(`flood ${i}`));
      const keptNow = count(db, 'SELECT count(*) FROM calls WHERE user_id = ? AND accepted = 0', a.userId);
      expect(keptNow).toBeGreaterThanOrEqual(KEPT_AFTER_TRIM);
      expect(keptNow).toBeLessThanOrEqual(MAX_REJECTIONS_KEPT);
      expect(count(db, 'SELECT count(*) FROM calls WHERE user_id = ? AND accepted = 1', a.userId)).toBe(1);
    });
  });

  describe('list', () => {
    it('returns the newest first, for one account or all, with a limit', () => {
      const a = account('premium');
      const b = account('premium');
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        ids.push(mustAccept(i % 2 === 0 ? a.userId : b.userId, 'premium', textAlert(`m${i}`)).callId);
        clock.advance(1_000);
      }
      expect(calls.list().map((c) => c.callId)).toEqual([...ids].reverse());
      expect(calls.list({ userId: a.userId }).map((c) => c.message)).toEqual(['m4', 'm2', 'm0']);
      expect(calls.list({ userId: b.userId, limit: 2 }).map((c) => c.message)).toEqual(['m5', 'm3']);
      expect(calls.list({ limit: 1 }).map((c) => c.message)).toEqual(['m5']);
      expect(calls.list({ userId: 'f'.repeat(32) })).toEqual([]);
    });

    it('orders by insertion even when the clock goes backwards', () => {
      const a = account('premium');
      mustAccept(a.userId, 'premium', textAlert('first'));
      clock.advance(-3_600_000);
      mustAccept(a.userId, 'premium', textAlert('second'));
      expect(calls.list({ userId: a.userId }).map((c) => c.message)).toEqual(['second', 'first']);
    });

    it('returns 50 by default and at most 1000', () => {
      const a = account('premium');
      for (let i = 0; i < 1005; i++)
        calls.recordRejectionNow({ userId: a.userId, status: 'invalid_payload', error: 'x', excerpt: `r${i}` });
      const b = account('premium');
      for (let i = 0; i < 60; i++)
        calls.recordRejectionNow({ userId: b.userId, status: 'invalid_payload', error: 'x', excerpt: `s${i}` });
      expect(calls.list({ userId: b.userId })).toHaveLength(50);
      expect(calls.list({ limit: 5000 })).toHaveLength(1000);
    });
  });
});
