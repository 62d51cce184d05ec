// The webhook contract (SPEC sections 2, 4, 5, 7, 8) over real HTTPS, the same tests against each
// store: a real SQLite file, and a real PostgreSQL (a throwaway cluster).
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import type { Awaitable } from '../../src/store/contract/index.js';
import { openStores } from '../../src/app/open-stores.js';
import { holdWriteLock } from '../helpers/db-lock.js';
import { machineLoad } from '../helpers/machine-load.js';
import { request, type Reply } from '../helpers/https-client.js';
import { startTestServiceOn, type TestService } from '../helpers/service.js';
import type { PgCluster } from '../helpers/postgres.js';
import { STORE_KINDS, type StoreKind } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';
import { createAccount as makeAccount } from '../helpers/accounts.js';

interface Fixture {
  content_type: string;
  body: string;
  note: string;
}

const fixtures: Fixture[] = fs
  .readFileSync(path.resolve(__dirname, '../fixtures/tradingview-alerts.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Fixture);

const fixture = (note: string) => {
  const found = fixtures.find((f) => f.note.startsWith(note));
  if (!found) throw new Error(`no fixture "${note}"`);
  return found;
};

let t: TestService;

async function createAccount(plan: 'free' | 'premium' = 'premium', smsBackup = false): Promise<Account> {
  return makeAccount(t.service.stores.accounts, { plan, smsBackup });
}

const hookPath = (a: Pick<Account, 'userId' | 'apiKey'>) => `/webhook/${a.userId}/${a.apiKey}`;

async function historyOf(userId: string) {
  return await t.service.stores.calls.list({ userId, limit: 1000 });
}

let kind: StoreKind;
let pg: PgCluster | undefined;

for (const storeKind of STORE_KINDS) {
  describe(`over ${storeKind}`, () => {
    beforeAll(async () => {
      kind = storeKind;
      ({ t, pg } = await startTestServiceOn(storeKind, 'webhook_contract'));
    });

    afterAll(async () => {
      await t?.stop();
      await pg?.stop();
      pg = undefined;
    });

    afterEach(() => {
      // No request may have ended in an unexpected server error.
      expect(t.takeErrorLogs()).toEqual([]);
    });

    describe('accepted alerts', () => {
      it('accepts the plain-text form and speaks the whole body', async () => {
        const a = await createAccount();
        const f = fixture('plain-text template');
        const res = await t.post(hookPath(a), f.body, {
          'content-type': f.content_type,
          'user-agent': 'ChartingPlatform-Webhook',
        });
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.json).toEqual({
          success: true,
          message: expect.stringContaining('Alert received'),
          call_id: expect.stringMatching(/^call_[A-Za-z0-9_-]{30}$/),
          timestamp: new Date(t.clock.now()).toISOString(),
          truncated: false,
        });
        const call = (await t.service.stores.calls.get(res.json.call_id))!;
        expect(call).toMatchObject({
          status: 'queued',
          accepted: true,
          kind: 'alert',
          message: f.body,
          userId: a.userId,
        });
      });

      it('accepts the full JSON form and keeps every field', async () => {
        const a = await createAccount();
        const res = await t.post(hookPath(a), fixture('full JSON form').body, { 'content-type': 'application/json' });
        expect(res.status).toBe(200);
        const call = (await t.service.stores.calls.get(res.json.call_id))!;
        expect(call).toMatchObject({
          message: 'BTCUSD crossed 100000 on the 1h chart',
          ticker: 'BTCUSD',
          price: 100012.5,
          action: 'buy',
          strategy: 'EMA cross',
          alertTimestamp: '2026-11-22T14:00:00Z',
          extra: {},
        });
      });

      it('stores a quoted numeric price as a number', async () => {
        const a = await createAccount();
        const res = await t.post(hookPath(a), fixture('price placeholder quoted').body, {
          'content-type': 'application/json',
        });
        expect(res.status).toBe(200);
        expect((await t.service.stores.calls.get(res.json.call_id))!.price).toBe(131.07);
      });

      it('keeps fields the sender added beyond the known ones', async () => {
        const a = await createAccount();
        const res = await t.post(hookPath(a), fixture('extra fields').body, { 'content-type': 'application/json' });
        expect(res.status).toBe(200);
        const call = (await t.service.stores.calls.get(res.json.call_id))!;
        expect(call.extra).toEqual({ exchange: 'CME_MINI', interval: '5', position_size: 2 });
        expect(call.ticker).toBe('ES1!');
      });

      it('treats a JSON object labelled text/plain as the JSON form', async () => {
        const a = await createAccount();
        const res = await t.post(hookPath(a), fixture('JSON object labelled text/plain').body, {
          'content-type': 'text/plain',
        });
        expect(res.status).toBe(200);
        const call = (await t.service.stores.calls.get(res.json.call_id))!;
        expect(call.message).toBe('ETH alert from a sender that labels JSON as text');
        expect(call.ticker).toBe('ETHUSD');
      });

      it.each(['non-ASCII text', 'French'])('keeps %s intact', async (note) => {
        const a = await createAccount();
        const f = fixture(note);
        const res = await t.post(hookPath(a), f.body, { 'content-type': `${f.content_type}; charset=utf-8` });
        expect(res.status).toBe(200);
        expect((await t.service.stores.calls.get(res.json.call_id))!.message).toBe(f.body);
      });

      it('accepts a timestamp with milliseconds', async () => {
        const a = await createAccount();
        const res = await t.post(hookPath(a), fixture('timestamp with milliseconds').body, {
          'content-type': 'application/json',
        });
        expect(res.status).toBe(200);
        expect((await t.service.stores.calls.get(res.json.call_id))!.alertTimestamp).toBe('2026-11-22T14:00:00.000Z');
      });

      it('truncates a message over 500 characters to 500 and says so', async () => {
        const a = await createAccount();
        const res = await t.post(hookPath(a), fixture('over 500 characters').body, {
          'content-type': 'application/json',
        });
        expect(res.status).toBe(200);
        expect(res.json.truncated).toBe(true);
        expect(res.json.message).toContain('truncated');
        const call = (await t.service.stores.calls.get(res.json.call_id))!;
        expect(call.message).toBe('x'.repeat(500));
        expect(call.messageTruncated).toBe(true);
        // As the dialer reads it for its call, which says it was cut, and its SMS (#57).
        const forDialing = (await t.service.stores.progress.get(res.json.call_id))!;
        expect(forDialing.message).toBe('x'.repeat(500));
        expect(Number(forDialing.messageTruncated)).toBe(1);
      });

      it('counts emoji as one character each at the 500 boundary and never splits one', async () => {
        const a = await createAccount();
        const exactly500 = '🚀'.repeat(500);
        let res = await t.post(hookPath(a), exactly500, { 'content-type': 'text/plain' });
        expect(res.status).toBe(200);
        expect(res.json.truncated).toBe(false);
        expect((await t.service.stores.calls.get(res.json.call_id))!.message).toBe(exactly500);

        // 499 rockets then a family emoji (7 code points): the family does not fit whole, so it is dropped.
        const family = '👨‍👩‍👧‍👦';
        res = await t.post(hookPath(a), JSON.stringify({ message: '🚀'.repeat(499) + family }), {
          'content-type': 'application/json',
        });
        expect(res.status).toBe(200);
        expect(res.json.truncated).toBe(true);
        expect((await t.service.stores.calls.get(res.json.call_id))!.message).toBe('🚀'.repeat(499));
      });

      it('accepts a trailing slash and percent-encoded credentials', async () => {
        const a = await createAccount();
        expect((await t.post(`${hookPath(a)}/`, 'hello', { 'content-type': 'text/plain' })).status).toBe(200);
        const encoded = `/webhook/${a.userId}/${encodeURIComponent(a.apiKey).replace(/_/g, '%5F')}`;
        expect((await t.post(encoded, 'hello', { 'content-type': 'text/plain' })).status).toBe(200);
      });

      it('does not deduplicate identical alerts', async () => {
        const a = await createAccount();
        const first = await t.post(hookPath(a), 'same', { 'content-type': 'text/plain' });
        const second = await t.post(hookPath(a), 'same', { 'content-type': 'text/plain' });
        expect([first.status, second.status]).toEqual([200, 200]);
        expect(first.json.call_id).not.toBe(second.json.call_id);
      });
    });

    describe('bad payloads: 400 naming the problem, no call placed', () => {
      const cases: Array<[string, string | Buffer, string, RegExp, string?]> = [
        [
          'an unsubstituted template (invalid JSON)',
          fixture('template sent unsubstituted').body,
          'application/json',
          /not valid JSON/,
          undefined,
        ],
        [
          'a timestamp that is not ISO 8601',
          fixture('timestamp not ISO 8601').body,
          'application/json',
          /"timestamp"/,
          'timestamp',
        ],
        ['an empty body', '', 'text/plain', /empty/, undefined],
        ['a whitespace-only body', ' \n\t ', 'text/plain', /empty/, undefined],
        ['JSON without a message', '{"ticker":"AAPL"}', 'application/json', /"message"/, 'message'],
        ['an empty message', '{"message":"   "}', 'application/json', /"message" must not be empty/, 'message'],
        ['a message that is not a string', '{"message":42}', 'application/json', /"message"/, 'message'],
        ['a price that is not numeric', '{"message":"m","price":"abc"}', 'application/json', /"price"/, 'price'],
        ['a price of the wrong type', '{"message":"m","price":true}', 'application/json', /"price"/, 'price'],
        ['a ticker of the wrong type', '{"message":"m","ticker":5}', 'application/json', /"ticker"/, 'ticker'],
        ['a JSON array declared as JSON', '[{"message":"m"}]', 'application/json', /must be an object/, undefined],
        ['a JSON string declared as JSON', '"hello"', 'application/json', /must be an object/, undefined],
        ['invalid UTF-8', Buffer.from([0x41, 0xff, 0xfe, 0x42]), 'text/plain', /UTF-8/, undefined],
        ['a NUL byte in the message', 'AAPL\u0000 up', 'text/plain', /control characters/, 'message'],
        [
          'JSON nested too deep',
          `{"message":"m","x":${'['.repeat(40)}${']'.repeat(40)}}`,
          'application/json',
          /nested/,
          undefined,
        ],
        ['a huge number as price', '{"message":"m","price":1e400}', 'application/json', /"price"/, 'price'],
      ];

      it.each(cases)('refuses %s', async (_name, body, contentType, pattern, field) => {
        const a = await createAccount();
        const res = await t.post(hookPath(a), body, { 'content-type': contentType });
        expect(res.status).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.json.success).toBe(false);
        expect(res.json.error).toMatch(pattern);
        expect(typeof res.json.code).toBe('string');
        if (field) expect(res.json.field).toBe(field);
        const history = await historyOf(a.userId);
        expect(history).toHaveLength(1);
        expect(history[0]).toMatchObject({ accepted: false, status: 'invalid_payload' });
        expect((await t.service.stores.calls.usage(a.userId)).used).toBe(0);
      });

      it('refuses a body over 64 KiB without reading it all', async () => {
        const a = await createAccount();
        const res = await t.post(hookPath(a), 'x'.repeat(64 * 1024 + 1), { 'content-type': 'text/plain' });
        expect(res.status).toBe(400);
        expect(res.json.code).toBe('body_too_large');
      });

      it('refuses a 5 MB body, streamed or with Content-Length, and keeps serving', async () => {
        const a = await createAccount();
        const big = Buffer.alloc(5 * 1024 * 1024, 0x61);
        const streamed = await t.post(hookPath(a), big, { 'content-type': 'text/plain' });
        expect(streamed.status).toBe(400);
        const declared = await t.post(hookPath(a), big, {
          'content-type': 'text/plain',
          'content-length': String(big.length),
        });
        expect(declared.status).toBe(400);
        expect((await t.post(hookPath(a), 'still here', { 'content-type': 'text/plain' })).status).toBe(200);
      });

      it('accepts a body of exactly 64 KiB (the message is truncated)', async () => {
        const a = await createAccount();
        const res = await t.post(hookPath(a), 'y'.repeat(64 * 1024), { 'content-type': 'text/plain' });
        expect(res.status).toBe(200);
        expect(res.json.truncated).toBe(true);
      });

      it('keeps __proto__ and constructor keys as plain data', async () => {
        const a = await createAccount();
        const res = await t.post(hookPath(a), '{"message":"m","__proto__":{"polluted":1},"constructor":"c"}', {
          'content-type': 'application/json',
        });
        expect(res.status).toBe(200);
        expect((await t.service.stores.calls.get(res.json.call_id))!.extra).toEqual(
          JSON.parse('{"__proto__":{"polluted":1},"constructor":"c"}'),
        );
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });
    });

    describe('credentials', () => {
      it('answers 401 for an unknown user_id, a wrong key, and odd paths, without telling which', async () => {
        const a = await createAccount();
        const otherKey = (await createAccount()).apiKey;
        const paths = [
          `/webhook/${'0'.repeat(32)}/${a.apiKey}`,
          `/webhook/${a.userId}/${otherKey}`,
          `/webhook/${a.userId}/${a.apiKey.slice(0, -1)}`,
          `/webhook/${a.userId}`,
          `/webhook/${a.userId}/${a.apiKey}/extra`,
          `/webhook/${a.userId}/${'k'.repeat(5000)}`,
        ];
        const bodies = new Set<string>();
        for (const p of paths) {
          const res = await t.post(p, 'hello', { 'content-type': 'text/plain' });
          expect(res.status, p).toBe(401);
          bodies.add(res.text);
        }
        expect(bodies.size).toBe(1);
        expect(JSON.parse([...bodies][0]!)).toMatchObject({ success: false, code: 'unauthorized' });
        expect(await historyOf(a.userId)).toHaveLength(0);
      });

      it('answers 400 for a malformed percent-encoding in the path', async () => {
        const a = await createAccount();
        const res = await t.post(`/webhook/${a.userId}/%E0%A4%A`, 'hello', { 'content-type': 'text/plain' });
        expect(res.status).toBe(400);
        expect(res.json).toMatchObject({ success: false, code: 'bad_request' });
        expect(await historyOf(a.userId)).toHaveLength(0);
      });

      it('answers 405 with Allow: POST for other methods on the webhook, and 404 elsewhere', async () => {
        const a = await createAccount();
        for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
          const res = await request(t.baseUrl + hookPath(a), { method, ca: t.ca });
          expect(res.status, method).toBe(405);
          expect(res.headers.allow).toBe('POST');
          expect(res.json.code).toBe('method_not_allowed');
        }
        const missing = await request(`${t.baseUrl}/nothing-here`, { method: 'GET', ca: t.ca });
        expect(missing.status).toBe(404);
        expect(missing.json).toMatchObject({ success: false, code: 'not_found' });
        expect(await historyOf(a.userId)).toHaveLength(0);
      });

      it('answers 403 for a suspended account and records the refusal', async () => {
        const a = await createAccount();
        await t.service.stores.accounts.update(a.userId, { status: 'suspended' });
        const res = await t.post(hookPath(a), 'hello', { 'content-type': 'text/plain' });
        expect(res.status).toBe(403);
        expect(res.json).toMatchObject({ success: false, code: 'account_suspended' });
        expect((await historyOf(a.userId))[0]).toMatchObject({ accepted: false, status: 'suspended' });
        await t.service.stores.accounts.update(a.userId, { status: 'active' });
        expect((await t.post(hookPath(a), 'hello', { 'content-type': 'text/plain' })).status).toBe(200);
      });

      it('regenerating the key while serving makes the old URL answer 401 at once', async () => {
        const a = await createAccount();
        expect((await t.post(hookPath(a), 'before', { 'content-type': 'text/plain' })).status).toBe(200);
        // Regenerate through a second connection to the same database file, as the CLI does.
        const other = await openStores(t.config);
        const renewed = (await other.accounts.regenerateKey(a.userId))!;
        await other.close();
        expect(renewed.apiKey).not.toBe(a.apiKey);
        expect((await t.post(hookPath(a), 'old url', { 'content-type': 'text/plain' })).status).toBe(401);
        expect((await t.post(hookPath(renewed), 'new url', { 'content-type': 'text/plain' })).status).toBe(200);
        expect((await t.service.stores.accounts.get(a.userId))!.apiKey).toBe(renewed.apiKey);
      });

      it('never writes the api_key into a log line', async () => {
        const a = await createAccount();
        await t.post(hookPath(a), 'hello', { 'content-type': 'text/plain' });
        await t.post(`/webhook/${a.userId}/${a.apiKey}x`, 'hello', { 'content-type': 'text/plain' });
        expect(JSON.stringify(t.logs)).not.toContain(a.apiKey);
      });
    });

    describe('plan limits', () => {
      it('free plan: 1 call a minute (429 with Retry-After), 3 a month (403 with the spec body)', async () => {
        const a = await createAccount('free');
        t.clock.set('2026-11-30T23:55:00Z');
        expect((await t.post(hookPath(a), 'one', { 'content-type': 'text/plain' })).status).toBe(200);

        t.clock.advance(20_000);
        const burst = await t.post(hookPath(a), 'too soon', { 'content-type': 'text/plain' });
        expect(burst.status).toBe(429);
        expect(burst.headers['retry-after']).toBe('40');
        expect(burst.json).toMatchObject({ success: false, code: 'rate_limited', retry_after: 40 });

        t.clock.advance(40_000);
        expect((await t.post(hookPath(a), 'two', { 'content-type': 'text/plain' })).status).toBe(200);
        t.clock.advance(60_000);
        expect((await t.post(hookPath(a), 'three', { 'content-type': 'text/plain' })).status).toBe(200);
        t.clock.advance(60_000);
        const monthly = await t.post(hookPath(a), 'four', { 'content-type': 'text/plain' });
        expect(monthly.status).toBe(403);
        expect(monthly.json).toEqual({
          success: false,
          error: expect.stringMatching(/monthly call limit exceeded/i),
          code: 'monthly_limit_exceeded',
          limit: 3,
          used: 3,
          resets_at: '2026-12-01T00:00:00.000Z',
        });

        // The month boundary (UTC): the allowance resets.
        t.clock.set('2026-12-01T00:00:00Z');
        expect((await t.post(hookPath(a), 'december', { 'content-type': 'text/plain' })).status).toBe(200);
        expect((await t.service.stores.calls.usage(a.userId)).used).toBe(1);

        const statuses = (await historyOf(a.userId)).map((c) => c.status).reverse();
        expect(statuses).toEqual(['queued', 'rate_limited', 'queued', 'queued', 'limit_exceeded', 'queued']);
        t.clock.set('2026-11-22T14:00:00Z');
      });

      it('premium plan: exactly 10 of 30 simultaneous requests are accepted, the rest get 429', async () => {
        const a = await createAccount('premium');
        const replies = await Promise.all(
          Array.from({ length: 30 }, (_, i) => t.post(hookPath(a), `burst ${i}`, { 'content-type': 'text/plain' })),
        );
        const statuses = replies.map((r) => r.status);
        expect(statuses.filter((s) => s === 200)).toHaveLength(10);
        expect(statuses.filter((s) => s === 429)).toHaveLength(20);
        expect((await t.service.stores.calls.usage(a.userId)).used).toBe(10);
        expect((await historyOf(a.userId)).filter((c) => c.accepted)).toHaveLength(10);
        // No monthly limit on premium: a minute later, 10 more.
        t.clock.advance(60_000);
        const later = await Promise.all(
          Array.from({ length: 10 }, () => t.post(hookPath(a), 'later', { 'content-type': 'text/plain' })),
        );
        expect(later.every((r) => r.status === 200)).toBe(true);
      });

      it('free plan: 5 simultaneous requests give exactly 1 accepted', async () => {
        const a = await createAccount('free');
        t.clock.advance(3_600_000);
        const replies = await Promise.all(
          Array.from({ length: 5 }, () => t.post(hookPath(a), 'x', { 'content-type': 'text/plain' })),
        );
        expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      });

      it('a refused alert with large extra fields is kept readable, cut to 4 KiB like an accepted one', async () => {
        const a = await createAccount('free');
        t.clock.advance(3_600_000);
        expect((await t.post(hookPath(a), 'first', { 'content-type': 'text/plain' })).status).toBe(200);
        const big = JSON.stringify({ message: 'second', notes: 'n'.repeat(10_000) });
        expect((await t.post(hookPath(a), big, { 'content-type': 'application/json' })).status).toBe(429);
        const [refused] = await historyOf(a.userId);
        expect(refused).toMatchObject({
          status: 'rate_limited',
          message: 'second',
          extra: { notes: expect.stringMatching(/^n+…$/), _truncated: expect.any(String) },
        });
      });

      // 1,000 refusals one after another (7 s at a load of 5): their deadline, not a measure (#53: over 30 s at a load of 20).
      it('keeps at most 1000 rejections per account', async () => {
        const a = await createAccount('free');
        for (let i = 0; i < 1005; i++) {
          await t.service.stores.calls.recordRejection({
            userId: a.userId,
            status: 'invalid_payload',
            error: 'bad',
            excerpt: String(i),
          });
        }
        // The newest are kept, 900-1000 of them (SQLite trims back to 900 once every 100 refusals).
        const history = await historyOf(a.userId);
        expect(history.length).toBeGreaterThanOrEqual(900);
        expect(history.length).toBeLessThanOrEqual(1000);
        expect(history[0]!.message).toBe('1004');
        expect(history.at(-1)!.message).toBe(String(1005 - history.length));
      }, 90_000);
    });

    describe('health', () => {
      it('GET /healthz answers', async () => {
        const res = await request(`${t.baseUrl}/healthz`, { method: 'GET', ca: t.ca });
        expect(res.status).toBe(200);
        expect(res.json).toMatchObject({ ok: true });
      });
    });

    // The webhook's Node fast path (a plain POST /webhook/{user_id}/{api_key}, answered before h3)
    // answers exactly as the h3 route does: each request is sent both ways (a query string sends it
    // through h3, with the same pathname), and status, body and headers are compared. The framing
    // proves which path answered: Content-Length on the fast path, chunked from h3.
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

    /** Makes the store refuse writes for a while: another process's write lock on SQLite, a killed PostgreSQL. */
    async function makeStoreUnavailable(): Promise<() => Promise<void>> {
      if (kind === 'sqlite') {
        const lock = await holdWriteLock(t.config.dbFile, 3000);
        return async () => void (await lock.released);
      }
      await pg!.kill();
      return async () => {
        await pg!.restart();
        // The pool's connections died with the server: wait until it answers again.
        await waitFor(
          'PostgreSQL answers again',
          async () =>
            (await t.service.stores.ping().then(
              () => true,
              () => false,
            ))
              ? true
              : undefined,
          20_000,
        );
      };
    }

    /** Sends the same request on both paths, each to its own account made by `account` when given. */
    async function both(
      body: string | Buffer,
      headers: Record<string, string>,
      account: () => Awaitable<Pick<Account, 'userId' | 'apiKey'>> = () => createAccount(),
      options: { localAddress?: string } = {},
    ): Promise<[Reply, Reply]> {
      const fast = await t.post(hookPath(await account()), body, headers, options);
      const viaH3 = await t.post(`${hookPath(await account())}?via=h3`, body, headers, options);
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
          expect(await t.service.stores.calls.get(fast.json.call_id)).toMatchObject({
            accepted: true,
            status: 'queued',
          });
          expect(await t.service.stores.calls.get(viaH3.json.call_id)).toMatchObject({
            accepted: true,
            status: 'queued',
          });
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
        const a = await createAccount();
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
        const suspended = async () => {
          const a = await createAccount();
          await t.service.stores.accounts.update(a.userId, { status: 'suspended' });
          return a;
        };
        const [fast, viaH3] = await both('hello', { 'content-type': 'text/plain' }, suspended);
        expect([fast.status, fast.json.code]).toEqual([403, 'account_suspended']);
        expectSame(fast, viaH3);

        const free = [await createAccount('free'), await createAccount('free')];
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

      it('503 when the database cannot take the alert (SQLite locked by another process, PostgreSQL down), with nothing recorded', async () => {
        const accounts = [await createAccount(), await createAccount()];
        const restore = await makeStoreUnavailable();
        let i = 0;
        try {
          const [fast, viaH3] = await both('hello', { 'content-type': 'text/plain' }, () => accounts[i++]!);
          expect([fast.status, fast.json.code]).toEqual([503, 'unavailable']);
          expect(fast.headers['retry-after']).toBe('5');
          expectSame(fast, viaH3);
        } finally {
          await restore();
        }
        for (const a of accounts) expect(await t.service.stores.calls.list({ userId: a.userId })).toEqual([]);
        // A node says once that it cannot reach PostgreSQL (its heartbeat), as an operator must know.
        const errors = t.takeErrorLogs().map((l) => l.msg);
        expect(errors.length).toBeLessThanOrEqual(1);
        for (const msg of errors) expect(msg).toBe('could not reach the database to say this node is alive');
        // Back: the next alert is taken.
        expect((await t.post(hookPath(accounts[0]!), 'after', { 'content-type': 'text/plain' })).status).toBe(200);
      }, 60_000);

      it("a refusal waits for no commit: 403 and 429 while another process holds SQLite's write lock, an accept 503", async () => {
        if (kind !== 'sqlite') return; // PostgreSQL decides every alert in its one round trip.
        const suspended = await createAccount();
        await t.service.stores.accounts.update(suspended.userId, { status: 'suspended' });
        const busy = await createAccount();
        t.clock.set('2026-11-10T10:00:00Z');
        for (let i = 0; i < 10; i++)
          expect((await t.post(hookPath(busy), `alert ${i}`, { 'content-type': 'text/plain' })).status).toBe(200);
        const fresh = await createAccount();
        const lock = await holdWriteLock(t.config.dbFile, 6000);
        try {
          const refused = await t.post(hookPath(suspended), 'hello', { 'content-type': 'text/plain' });
          expect([refused.status, refused.json.code]).toEqual([403, 'account_suspended']);
          const limited = await t.post(hookPath(busy), 'one too many', { 'content-type': 'text/plain' });
          expect([limited.status, limited.json.code]).toEqual([429, 'rate_limited']);
          const accept = await t.post(hookPath(fresh), 'hello', { 'content-type': 'text/plain' });
          expect([accept.status, accept.json.code]).toEqual([503, 'unavailable']);
        } finally {
          await lock.released;
        }
        // The refusals' rows could not be written while the lock was held: said at warn, nothing at error.
        expect(t.takeErrorLogs()).toEqual([]);
        t.clock.set('2026-11-22T14:00:00Z');
      }, 30_000);

      it('500 when the store fails otherwise, logged without the api_key', async () => {
        const calls = t.service.stores.calls;
        const original = { accept: calls.accept, receiveAlert: calls.receiveAlert };
        // PostgreSQL's webhook asks receiveAlert (one round trip), SQLite's accept: both fail.
        calls.accept = () => Promise.reject(new Error('disk I/O error'));
        if (original.receiveAlert) calls.receiveAlert = () => Promise.reject(new Error('disk I/O error'));
        try {
          const [fast, viaH3] = await both('hello', { 'content-type': 'text/plain' });
          expect([fast.status, fast.json.code]).toEqual([500, 'internal']);
          expectSame(fast, viaH3);
        } finally {
          Object.assign(calls, original);
        }
        const errors = t.takeErrorLogs();
        expect(errors.map((l) => [l.msg, l.method, l.path])).toEqual([
          ['request failed', 'POST', 'webhook'],
          ['request failed', 'POST', 'webhook'],
        ]);
        expect(JSON.stringify(errors)).not.toMatch(/rk_/);
      });
    });

    describe('input no store can hold, and input meant to stall the service', () => {
      const json = { 'content-type': 'application/json' };

      it('control characters or half a surrogate pair in any text field: 400 naming the field, nothing accepted', async () => {
        const a = await createAccount();
        for (const [field, body] of [
          ['ticker', '{"message":"hi","ticker":"A\\u0000B"}'],
          ['action', '{"message":"hi","action":"buy\\u0007"}'],
          ['message', '{"message":"hi \\ud800"}'],
        ] as const) {
          const res = await t.post(hookPath(a), body, json);
          expect(res.status, res.text).toBe(400);
          expect(res.json).toMatchObject({ code: 'invalid_field', field });
        }
        expect((await t.service.stores.calls.usage(a.userId)).used).toBe(0);
      });

      it('invalid JSON quoting a NUL: 400 invalid_json, the NUL written as an escape', async () => {
        const a = await createAccount();
        const res = await t.post(hookPath(a), 'x\u0000', json);
        expect(res.status, res.text).toBe(400);
        expect(res.json.code).toBe('invalid_json');
        expect(res.text).not.toContain('\u0000');
        expect((await historyOf(a.userId))[0]).toMatchObject({ status: 'invalid_payload' });
      });

      it('a NUL in the URL is a wrong URL: 401', async () => {
        const res = await t.post('/webhook/%00/x', 'hi', { 'content-type': 'text/plain' });
        expect(res.status, res.text).toBe(401);
        expect(res.json.code).toBe('unauthorized');
      });

      it('a price of 60,000 digits is refused at once, and alerts from others are answered meanwhile', async () => {
        const a = await createAccount();
        const b = await createAccount();
        const started = performance.now();
        const cpu = process.cpuUsage();
        const [hostile, other] = await Promise.all([
          t.post(hookPath(a), JSON.stringify({ message: 'm', price: `${'1'.repeat(60_000)}x` }), json),
          t.post(hookPath(b), 'another account', { 'content-type': 'text/plain' }),
        ]);
        const { user, system } = process.cpuUsage(cpu);
        expect(hostile.status).toBe(400);
        expect(hostile.json).toMatchObject({ code: 'invalid_field', field: 'price' });
        expect(other.status).toBe(200);
        // The CPU this process (serve in it) spent on both, whatever the load: a pattern that backtracked over
        // the digits would take seconds of it. The wall clock waits for a core too: held to 1 s on a quiet
        // machine only (1,238 ms was seen in a fresh-clone run with six files beside it, #53).
        expect((user + system) / 1000).toBeLessThan(1_000);
        if (machineLoad().quiet) expect(performance.now() - started).toBeLessThan(1_000);
      });

      /** A raw HTTPS connection, to send what no client library would. */
      async function rawConnection(): Promise<tls.TLSSocket> {
        const socket = tls.connect({
          host: '127.0.0.1',
          port: Number(new URL(t.baseUrl).port),
          ca: t.ca,
          servername: 'localhost',
        });
        await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
        return socket;
      }

      it('a sender that goes on sending past the limit is answered 400 and its connection closed', async () => {
        const a = await createAccount();
        const socket = await rawConnection();
        let answer = '';
        socket.on('data', (d) => (answer += d));
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        socket.on('error', () => {});
        socket.write(
          `POST ${hookPath(a)} HTTP/1.1\r\nhost: localhost\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n`,
        );
        const chunk = `${(64 * 1024).toString(16)}\r\n${'a'.repeat(64 * 1024)}\r\n`;
        const sending = setInterval(() => socket.writable && socket.write(chunk), 5);
        try {
          await Promise.race([
            closed,
            new Promise((_, reject) =>
              setTimeout(() => reject(new Error(`still open: ${answer.slice(0, 80)}`)), 5_000),
            ),
          ]);
        } finally {
          clearInterval(sending);
          socket.destroy();
        }
        expect(answer).toMatch(/^HTTP\/1\.1 400 /);
        expect(answer).toContain('"code":"body_too_large"');
      });

      it("Node's own refusals are JSON too: headers over 16 KiB (431), a malformed request (400)", async () => {
        const exchange = async (request: string) => {
          const socket = await rawConnection();
          let answer = '';
          socket.on('data', (d) => (answer += d));
          socket.on('error', () => {});
          const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
          socket.write(request);
          await closed;
          return answer;
        };
        const big = await exchange(`GET /health HTTP/1.1\r\nhost: localhost\r\nx-big: ${'b'.repeat(20_000)}\r\n\r\n`);
        expect(big).toMatch(/^HTTP\/1\.1 431 /);
        expect(JSON.parse(big.split('\r\n\r\n')[1]!)).toMatchObject({ success: false, code: 'headers_too_large' });
        const malformed = await exchange('NOT A REQUEST\r\n\r\n');
        expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
        expect(JSON.parse(malformed.split('\r\n\r\n')[1]!)).toMatchObject({ success: false, code: 'bad_request' });
      });
    });

    describe('the fast path and a client that goes away', () => {
      it('a client that disconnects mid-body places no call, and the service keeps answering', async () => {
        const a = await createAccount();
        const socket = tls.connect({
          host: '127.0.0.1',
          port: Number(new URL(t.baseUrl).port),
          ca: t.ca,
          servername: 'localhost',
        });
        await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
        socket.write(
          `POST ${hookPath(a)} HTTP/1.1\r\nhost: localhost\r\ncontent-type: text/plain\r\ncontent-length: 1000\r\n\r\nhalf of the`,
        );
        await new Promise((r) => setTimeout(r, 100));
        socket.destroy();
        // The read ends with the connection: the request is refused (recorded as unreadable), never accepted.
        const deadline = Date.now() + 5000;
        while ((await t.service.stores.calls.list({ userId: a.userId })).length === 0 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 20));
        expect(await t.service.stores.calls.list({ userId: a.userId })).toMatchObject([
          { accepted: false, status: 'invalid_payload' },
        ]);
        expect((await t.service.stores.calls.usage(a.userId)).used).toBe(0);
        expect((await t.post(hookPath(a), 'still here', { 'content-type': 'text/plain' })).status).toBe(200);
      });
    });
  });
}
