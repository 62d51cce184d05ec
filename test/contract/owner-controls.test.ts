// Owner controls (#41) over real HTTPS: duplicate alerts and the allowed sources through the
// webhook, the same tests on each store (a real SQLite file; a real PostgreSQL, where the webhook
// takes the one-round-trip function), and PostgreSQL's step-by-step accept (the CLI's and the
// tools') with 10 identical alerts at once through two nodes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import { dedupeKey } from '../../src/core/webhook/dedupe.js';
import { parseAlertBody } from '../../src/core/webhook/payload.js';
import { openPostgresStore } from '../../src/store/postgres/index.js';
import { createAccount } from '../helpers/accounts.js';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';
import { testSecrets } from '../helpers/secrets.js';
import { startTestServiceOn, type TestService } from '../helpers/service.js';
import { STORE_KINDS } from '../helpers/stores.js';

const hookPath = (a: Pick<Account, 'userId' | 'apiKey'>) => `/webhook/${a.userId}/${a.apiKey}`;
const JSON_TYPE = { 'content-type': 'application/json' };

/** A service on `kind`: SQLite in its data dir, or a fresh database of a PostgreSQL cluster started for it. */
for (const kind of STORE_KINDS) {
  describe(`over HTTPS and ${kind}`, () => {
    let t: TestService;
    let pg: PgCluster | undefined;
    beforeAll(async () => {
      ({ t, pg } = await startTestServiceOn(kind, 'owner_controls_http'));
    });
    afterAll(async () => {
      await t?.stop();
      await pg?.stop();
    });
    afterEach(() => {
      expect(t.takeErrorLogs()).toEqual([]);
    });

    const account = async (changes: Partial<Account> = {}) => {
      const a = await createAccount(t.service.stores.accounts, { plan: 'premium', smsBackup: false });
      return (await t.service.stores.accounts.update(a.userId, changes))!;
    };
    const history = async (userId: string) => await t.service.stores.calls.list({ userId, limit: 100 });
    const usage = async (userId: string) => (await t.service.stores.calls.usage(userId, t.clock.now())).used;

    it('off (the default): two identical alerts 1 s apart are two calls', async () => {
      const a = await account();
      const one = await t.post(hookPath(a), 'BTC crossed 100k');
      t.clock.advance(1000);
      const two = await t.post(hookPath(a), 'BTC crossed 100k');
      expect([one.status, two.status]).toEqual([200, 200]);
      expect(two.json.call_id).not.toBe(one.json.call_id);
      expect(two.json.duplicate).toBeUndefined();
      expect(await usage(a.userId)).toBe(2);
    });

    it('on: the second identical alert 1 s later answers the first call_id, places and counts nothing, and is in the history', async () => {
      const a = await account({ dedupeSeconds: 30 });
      const one = await t.post(hookPath(a), JSON.stringify({ message: 'BTC up', ticker: 'BTCUSD', x: 1 }), JSON_TYPE);
      t.clock.advance(1000);
      const two = await t.post(hookPath(a), JSON.stringify({ x: 1, ticker: 'BTCUSD', message: 'BTC up' }), JSON_TYPE);
      expect(one.status).toBe(200);
      expect(two.status).toBe(200);
      expect(two.json).toMatchObject({ success: true, duplicate: true, call_id: one.json.call_id });
      expect(await usage(a.userId)).toBe(1);
      const rows = await history(a.userId);
      expect(rows.filter((r) => r.accepted)).toHaveLength(1);
      const dup = rows.find((r) => r.status === 'duplicate');
      expect(dup?.error).toBe(`duplicate of ${one.json.call_id}`);
      // serve's log says what the sender was told: taken, as the first alert's call (not refused).
      const logged = t.logs.filter((l) => l.user_id === a.userId && String(l.msg).startsWith('alert '));
      expect(logged.map((l) => [l.msg, l.status, l.call_id])).toEqual([
        ['alert accepted', 200, one.json.call_id],
        ['alert accepted as a duplicate: no new call', 200, one.json.call_id],
      ]);
      // Another extra field is another alert; past the window the same alert rings again.
      const other = await t.post(hookPath(a), JSON.stringify({ message: 'BTC up', ticker: 'BTCUSD', x: 2 }), JSON_TYPE);
      expect(other.json.duplicate).toBeUndefined();
      t.clock.advance(31_000);
      const later = await t.post(hookPath(a), JSON.stringify({ message: 'BTC up', ticker: 'BTCUSD', x: 1 }), JSON_TYPE);
      expect(later.json.duplicate).toBeUndefined();
      expect(later.json.call_id).not.toBe(one.json.call_id);
    });

    it('three alerts with one Idempotency-Key are one call, whatever their bodies', async () => {
      const a = await account({ dedupeSeconds: 60 });
      const key = { 'idempotency-key': 'BTCUSD-2026-11-22T14:00:00Z' };
      const replies = [];
      for (const body of ['first', 'second', 'third']) {
        replies.push(await t.post(hookPath(a), body, key));
        t.clock.advance(500);
      }
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(new Set(replies.map((r) => r.json.call_id)).size).toBe(1);
      expect(replies.map((r) => r.json.duplicate ?? false)).toEqual([false, true, true]);
      expect(await usage(a.userId)).toBe(1);
    });

    it('a JSON id decides instead of the body', async () => {
      const a = await account({ dedupeSeconds: 60 });
      const one = await t.post(hookPath(a), JSON.stringify({ id: 'alert-7', message: 'first' }), JSON_TYPE);
      const two = await t.post(hookPath(a), JSON.stringify({ id: 'alert-7', message: 'changed' }), JSON_TYPE);
      const three = await t.post(hookPath(a), JSON.stringify({ id: 'alert-8', message: 'first' }), JSON_TYPE);
      expect(two.json).toMatchObject({ duplicate: true, call_id: one.json.call_id });
      expect(three.json.duplicate).toBeUndefined();
    });

    it('10 identical alerts at once are one call', async () => {
      const a = await account({ dedupeSeconds: 60 });
      const replies = await Promise.all(Array.from({ length: 10 }, () => t.post(hookPath(a), 'ETH down 5%')));
      expect(replies.every((r) => r.status === 200)).toBe(true);
      expect(new Set(replies.map((r) => r.json.call_id)).size).toBe(1);
      expect(replies.filter((r) => r.json.duplicate !== true)).toHaveLength(1);
      expect((await history(a.userId)).filter((r) => r.accepted)).toHaveLength(1);
      expect(await usage(a.userId)).toBe(1);
    });

    it('an account allowing only 127.0.0.1/32 refuses a client bound to 127.0.0.2 with 403 source_not_allowed, recorded', async () => {
      const a = await account({ webhookSources: '127.0.0.1/32' });
      const url = `${t.baseUrl.replace('localhost', '127.0.0.1')}${hookPath(a)}`;
      const refused = await t.post(url, 'from elsewhere', {}, { localAddress: '127.0.0.2' });
      expect(refused.status).toBe(403);
      expect(refused.json.code).toBe('source_not_allowed');
      expect(refused.json.error).toMatch(/127\.0\.0\.1\/32.*--sources/);
      const allowed = await t.post(url, 'from here', {}, { localAddress: '127.0.0.1' });
      expect(allowed.status).toBe(200);
      const rows = await history(a.userId);
      expect(rows.find((r) => r.status === 'source_not_allowed')?.error).toBe('from 127.0.0.2: not in 127.0.0.1/32');
      expect(await usage(a.userId)).toBe(1);
    });
  });

  describe(`the whole server on ${kind}: RINGHOOK_WEBHOOK_SOURCES=tradingview behind a trusted proxy`, () => {
    let t: TestService;
    let pg: PgCluster | undefined;
    beforeAll(async () => {
      ({ t, pg } = await startTestServiceOn(kind, 'owner_controls_http', {
        RINGHOOK_WEBHOOK_SOURCES: 'tradingview',
        RINGHOOK_TRUST_PROXY: '127.0.0.1',
      }));
    });
    afterAll(async () => {
      await t?.stop();
      await pg?.stop();
    });

    it("refuses an address the proxy names that is not TradingView's, and takes one that is", async () => {
      const a = await createAccount(t.service.stores.accounts, { plan: 'premium', smsBackup: false });
      const url = `${t.baseUrl.replace('localhost', '127.0.0.1')}${hookPath(a)}`;
      const refused = await t.post(url, 'leaked URL', { 'x-forwarded-for': '203.0.113.9' });
      expect(refused.status).toBe(403);
      expect(refused.json.code).toBe('source_not_allowed');
      expect(refused.json.error).toMatch(/TradingView's webhook addresses.*RINGHOOK_WEBHOOK_SOURCES/);
      const tv = await t.post(url, 'from TradingView', { 'x-forwarded-for': '203.0.113.9, 52.89.214.238' });
      expect(tv.status).toBe(200);
      // Without the trusted proxy in between, the header names nobody: the peer itself is refused.
      const direct = await t.post(
        url,
        'spoofed',
        { 'x-forwarded-for': '52.89.214.238' },
        { localAddress: '127.0.0.2' },
      );
      expect(direct.status).toBe(403);
      expect(t.takeErrorLogs()).toEqual([]);
    });
  });
}

describe("PostgreSQL's accept with a duplicate check (a real PostgreSQL)", () => {
  let pg: PgCluster;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(async () => {
    await pg?.stop();
  });

  it('10 identical alerts at once are one call, across two stores (two nodes)', async () => {
    const url = await pg.createDatabase('owner_controls');
    const secrets = testSecrets();
    const nodeA = await openPostgresStore({ url, secrets, nodeId: 'node-a' });
    const nodeB = await openPostgresStore({ url, secrets, nodeId: 'node-b' });
    try {
      const a = await nodeA.accounts.create({
        phone: '+14155550123',
        plan: 'premium',
        smsBackup: false,
        name: '',
        dedupeSeconds: 60,
      });
      expect((await nodeB.accounts.get(a.userId))?.dedupeSeconds).toBe(60);
      const parsed = parseAlertBody(new TextEncoder().encode('SOL up'), 'text/plain');
      if (!parsed.ok) throw new Error(parsed.error);
      const key = dedupeKey(60, { alert: parsed.alert })!;
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? nodeB : nodeA).calls.accept(a.userId, 'premium', parsed.alert, { key, since: Date.now() - 60_000 }),
        ),
      );
      const first = results.filter((r) => r.accepted && !('duplicate' in r));
      expect(first).toHaveLength(1);
      expect(new Set(results.map((r) => (r.accepted ? r.callId : 'refused'))).size).toBe(1);
      expect((await nodeA.calls.usage(a.userId)).used).toBe(1);
      const rows = await nodeA.calls.list({ userId: a.userId, limit: 50 });
      expect(rows.filter((r) => r.status === 'duplicate')).toHaveLength(9);
    } finally {
      await nodeA.close();
      await nodeB.close();
    }
  });
});
