// The webhook's Node fast path (a plain POST /webhook/{user_id}/{api_key}, answered before h3)
// answers exactly as the h3 route does: each request is sent both ways (a query string sends it
// through h3, with the same pathname), and status, body and headers are compared. The framing
// proves which path answered: Content-Length on the fast path, chunked from h3.
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import { createAccount } from '../helpers/accounts.js';
import { holdWriteLock } from '../helpers/db-lock.js';
import type { Reply } from '../helpers/https-client.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;

beforeAll(async () => {
  t = await startTestService();
});

afterAll(async () => {
  await t.stop();
});

afterEach(() => {
  expect(t.takeErrorLogs()).toEqual([]);
});

const hookPath = (a: Pick<Account, 'userId' | 'apiKey'>) => `/webhook/${a.userId}/${a.apiKey}`;
const FRAMING = ['content-length', 'transfer-encoding', 'date', 'connection', 'keep-alive'];

/** What must match between the two paths: status, headers but the framing, body without the fresh call_id. */
function comparable(reply: Reply) {
  const headers = Object.fromEntries(Object.entries(reply.headers).filter(([k]) => !FRAMING.includes(k)));
  const body = reply.json?.call_id ? { ...reply.json, call_id: 'call_…' } : reply.text;
  return { status: reply.status, headers, body };
}

function expectSame(fast: Reply, viaH3: Reply): void {
  expect(fast.headers['content-length'], 'the fast path answered').toBe(String(Buffer.byteLength(fast.text)));
  expect(fast.headers['transfer-encoding']).toBeUndefined();
  expect(viaH3.headers['transfer-encoding'], 'h3 answered').toBe('chunked');
  expect(comparable(fast)).toEqual(comparable(viaH3));
}

/** Sends the same request on both paths, each to its own account made by `account` when given. */
async function both(
  body: string | Buffer,
  headers: Record<string, string>,
  account: () => Pick<Account, 'userId' | 'apiKey'> = () => createAccount(t.service.stores.accounts),
  options: { localAddress?: string } = {},
): Promise<[Reply, Reply]> {
  const fast = await t.post(hookPath(account()), body, headers, options);
  const viaH3 = await t.post(`${hookPath(account())}?via=h3`, body, headers, options);
  return [fast, viaH3];
}

describe('the fast path answers as the h3 route does', () => {
  it('200 accepted, plain text and JSON, and a truncated message', async () => {
    for (const [body, type] of [
      ['AAPL broke 187.20', 'text/plain'],
      ['{"message":"BTC up","ticker":"BTCUSD","price":"64,012.5","extra":1}', 'application/json'],
      ['x'.repeat(600), 'text/plain; charset=utf-8'],
    ] as const) {
      const [fast, viaH3] = await both(body, { 'content-type': type });
      expect(fast.status).toBe(200);
      expectSame(fast, viaH3);
      expect(t.service.stores.calls.get(fast.json.call_id)).toMatchObject({ accepted: true, status: 'queued' });
      expect(t.service.stores.calls.get(viaH3.json.call_id)).toMatchObject({ accepted: true, status: 'queued' });
    }
  });

  it('400 for every payload error, bodies over the limit (declared or streamed) included', async () => {
    const big = Buffer.alloc(64 * 1024 + 1, 0x61);
    const cases: Array<[string | Buffer, Record<string, string>, string]> = [
      ['', { 'content-type': 'text/plain' }, 'empty_body'],
      ['{"message":"{{close}}', { 'content-type': 'application/json' }, 'invalid_json'],
      ['[1]', { 'content-type': 'application/json' }, 'not_an_object'],
      ['{"message":"m","price":"abc"}', { 'content-type': 'application/json' }, 'invalid_field'],
      [Buffer.from([0x41, 0xff]), { 'content-type': 'text/plain' }, 'invalid_encoding'],
      [big, { 'content-type': 'text/plain' }, 'body_too_large'],
      [big, { 'content-type': 'text/plain', 'content-length': String(big.length) }, 'body_too_large'],
    ];
    for (const [body, headers, code] of cases) {
      const [fast, viaH3] = await both(body, headers);
      expect([fast.status, fast.json.code], code).toEqual([400, code]);
      expectSame(fast, viaH3);
    }
  });

  it('401 for wrong credentials, then 429 too_many_failures from the same address', async () => {
    const a = createAccount(t.service.stores.accounts);
    const wrong = () => ({ userId: a.userId, apiKey: `${a.apiKey.slice(0, -1)}x` });
    const from = { localAddress: '127.0.0.9' };
    const [fast, viaH3] = await both('hello', { 'content-type': 'text/plain' }, wrong, from);
    expect(fast.status).toBe(401);
    expectSame(fast, viaH3);
    // Both paths count into the same throttle: 28 more failures reach its 30.
    for (let i = 0; i < 28; i++) await t.post(hookPath(wrong()), 'hello', { 'content-type': 'text/plain' }, from);
    const [fastThrottled, h3Throttled] = await both('hello', { 'content-type': 'text/plain' }, wrong, from);
    expect([fastThrottled.status, fastThrottled.json.code]).toEqual([429, 'too_many_failures']);
    expectSame(fastThrottled, h3Throttled);
  });

  it('403 suspended, 429 rate_limited and 403 monthly_limit_exceeded', async () => {
    const suspended = () => {
      const a = createAccount(t.service.stores.accounts);
      t.service.stores.accounts.update(a.userId, { status: 'suspended' });
      return a;
    };
    const [fast, viaH3] = await both('hello', { 'content-type': 'text/plain' }, suspended);
    expect([fast.status, fast.json.code]).toEqual([403, 'account_suspended']);
    expectSame(fast, viaH3);

    const free = [createAccount(t.service.stores.accounts, { plan: 'free' }), createAccount(t.service.stores.accounts, { plan: 'free' })];
    const pair = () => {
      let i = 0;
      return () => free[i++ % 2]!;
    };
    t.clock.set('2026-11-10T10:00:00Z');
    expect((await both('one', { 'content-type': 'text/plain' }, pair())).map((r) => r.status)).toEqual([200, 200]);
    const [fastLimited, h3Limited] = await both('too soon', { 'content-type': 'text/plain' }, pair());
    expect([fastLimited.status, fastLimited.json.code]).toEqual([429, 'rate_limited']);
    expectSame(fastLimited, h3Limited);
    for (const m of ['two', 'three']) {
      t.clock.advance(60_000);
      expect((await both(m, { 'content-type': 'text/plain' }, pair())).map((r) => r.status)).toEqual([200, 200]);
    }
    t.clock.advance(60_000);
    const [fastMonthly, h3Monthly] = await both('four', { 'content-type': 'text/plain' }, pair());
    expect([fastMonthly.status, fastMonthly.json.code]).toEqual([403, 'monthly_limit_exceeded']);
    expectSame(fastMonthly, h3Monthly);
    t.clock.set('2026-11-22T14:00:00Z');
  });

  it('503 when the database stays locked, with nothing recorded', async () => {
    const accounts = [createAccount(t.service.stores.accounts), createAccount(t.service.stores.accounts)];
    const lock = await holdWriteLock(t.config.dbFile, 3000);
    let i = 0;
    try {
      const [fast, viaH3] = await both('hello', { 'content-type': 'text/plain' }, () => accounts[i++]!);
      expect([fast.status, fast.json.code]).toEqual([503, 'unavailable']);
      expectSame(fast, viaH3);
    } finally {
      await lock.released;
    }
    for (const a of accounts) expect(t.service.stores.calls.list({ userId: a.userId })).toEqual([]);
  });

  it('500 when the store fails otherwise, logged without the api_key', async () => {
    const calls = t.service.stores.calls;
    const original = calls.acceptGrouped;
    calls.acceptGrouped = () => Promise.reject(new Error('disk I/O error'));
    try {
      const [fast, viaH3] = await both('hello', { 'content-type': 'text/plain' });
      expect([fast.status, fast.json.code]).toEqual([500, 'internal']);
      expectSame(fast, viaH3);
    } finally {
      calls.acceptGrouped = original;
    }
    const errors = t.takeErrorLogs();
    expect(errors.map((l) => [l.msg, l.method, l.path])).toEqual([
      ['request failed', 'POST', 'webhook'],
      ['request failed', 'POST', 'webhook'],
    ]);
    expect(JSON.stringify(errors)).not.toMatch(/rk_/);
  });
});

describe('the fast path and a client that goes away', () => {
  it('a client that disconnects mid-body places no call, and the service keeps answering', async () => {
    const a = createAccount(t.service.stores.accounts);
    const socket = tls.connect({ host: '127.0.0.1', port: Number(new URL(t.baseUrl).port), ca: t.ca, servername: 'localhost' });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    socket.write(`POST ${hookPath(a)} HTTP/1.1\r\nhost: localhost\r\ncontent-type: text/plain\r\ncontent-length: 1000\r\n\r\nhalf of the`);
    await new Promise((r) => setTimeout(r, 100));
    socket.destroy();
    // The read ends with the connection: the request is refused (recorded as unreadable), never accepted.
    const deadline = Date.now() + 5000;
    while (t.service.stores.calls.list({ userId: a.userId }).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(t.service.stores.calls.list({ userId: a.userId })).toMatchObject([{ accepted: false, status: 'invalid_payload' }]);
    expect(t.service.stores.calls.usage(a.userId).used).toBe(0);
    expect((await t.post(hookPath(a), 'still here', { 'content-type': 'text/plain' })).status).toBe(200);
  });
});
