// The owner controls (#41) in PostgreSQL's one round trip (migration 014's function, against a real
// PostgreSQL): a duplicate and a source refusal cost no statement more, two identical alerts at two
// nodes at once are one call, the database's address matching agrees with core/connections/address-match, and
// the function of the previous release (v12) is still there for its nodes during a rolling upgrade.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AlertToReceive } from '../../src/core/records.js';
import { parseSourceRule } from '../../src/core/webhook/webhook-sources.js';
import { normalizeAddress } from '../../src/core/connections/address-match.js';
import { TRADINGVIEW_WEBHOOK_ADDRESSES } from '../../src/core/webhook/tradingview-sources.js';
import type { Store } from '../../src/store/contract/index.js';
import { openPostgresStore } from '../../src/store/postgres/index.js';
import { jsonAlert, manualClock, textAlert } from '../helpers/database.js';
import { type PgCluster, startPostgres } from '../helpers/postgres.js';
import { testSecrets } from '../helpers/secrets.js';

let cluster: PgCluster;
let counter = 0;
const opened: Store[] = [];

beforeAll(async () => {
  cluster = await startPostgres(['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=top']);
}, 60_000);
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close().catch(() => {})));
  await cluster?.stop();
});

async function database(nodes: string[], now?: () => number) {
  const url = await cluster.createDatabase(`owner_controls_${++counter}`);
  const secrets = testSecrets();
  const stores: Store[] = [];
  for (const nodeId of nodes) {
    const store = await openPostgresStore({ url, nodeId, secrets, poolSize: 5, ...(now && { now }) });
    opened.push(store);
    stores.push(store);
  }
  return { url, stores };
}

const receive = (store: Store, request: AlertToReceive) => store.calls.receiveAlert!(request);

function alert(
  account: { userId: string; apiKey: string },
  message: string,
  more: Partial<AlertToReceive> = {},
): AlertToReceive {
  return { userId: account.userId, apiKey: account.apiKey, payload: { ok: true, alert: textAlert(message) }, ...more };
}

/** The statements the server ran for the database during `run` (the watcher's own left out). */
async function statementsRun(url: string, run: () => Promise<unknown>): Promise<number> {
  const watcher = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await watcher`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
    await watcher`SELECT pg_stat_statements_reset()`;
    await run();
    const rows = await watcher<Array<{ calls: string }>>`
      SELECT calls FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'`;
    return rows.reduce((n, r) => n + Number(r.calls), 0);
  } finally {
    await watcher.end({ timeout: 1 });
  }
}

describe('postgres: the owner controls in the one round trip', () => {
  test('two identical alerts at two nodes at once are exactly one call; 20 more at once through both are duplicates of it', async () => {
    const clock = manualClock('2026-11-29T02:00:00Z');
    const { stores } = await database(['node-a', 'node-b'], clock.now);
    const [a, b] = stores as [Store, Store];
    const account = await a.accounts.create({
      phone: '+14155550201',
      plan: 'premium',
      smsBackup: false,
      name: '',
      dedupeSeconds: 60,
    });
    const pair = await Promise.all([receive(a, alert(account, 'BTC up')), receive(b, alert(account, 'BTC up'))]);
    const accepted = pair.filter((r) => r.outcome === 'accepted');
    const duplicates = pair.filter((r) => r.outcome === 'duplicate');
    expect(accepted).toHaveLength(1);
    expect(duplicates).toHaveLength(1);
    const first = accepted[0]!.outcome === 'accepted' ? accepted[0]!.callId : '';
    expect(duplicates[0]).toMatchObject({ callId: first });

    clock.advance(1000);
    const more = await Promise.all(
      Array.from({ length: 20 }, (_, i) => receive(i % 2 ? a : b, alert(account, 'BTC up'))),
    );
    expect(more.every((r) => r.outcome === 'duplicate' && r.callId === first)).toBe(true);
    expect((await a.calls.usage(account.userId)).used).toBe(1);
    const history = await a.calls.list({ userId: account.userId, limit: 100 });
    expect(history.filter((c) => c.accepted)).toHaveLength(1);
    const dupRows = history.filter((c) => c.status === 'duplicate');
    expect(dupRows).toHaveLength(21);
    expect(new Set(dupRows.map((c) => c.error))).toEqual(new Set([`duplicate of ${first}`]));
    // Each duplicate's own row is the one the answer named (the live history shows it).
    expect(new Set(dupRows.map((c) => c.callId))).toEqual(
      new Set([...duplicates, ...more].map((r) => (r.outcome === 'duplicate' ? r.rowId : ''))),
    );

    // Past the window the same alert rings again; an Idempotency-Key decides instead of the body.
    clock.advance(60_000);
    expect((await receive(a, alert(account, 'BTC up'))).outcome).toBe('accepted');
    const keyed = await Promise.all(
      ['one', 'two', 'three'].map((m, i) => receive(i % 2 ? a : b, alert(account, m, { idempotencyKey: 'K-1' }))),
    );
    expect(keyed.map((r) => r.outcome).sort()).toEqual(['accepted', 'duplicate', 'duplicate']);
    // A JSON id decides too.
    const withId = (message: string): AlertToReceive => ({
      userId: account.userId,
      apiKey: account.apiKey,
      payload: { ok: true, alert: jsonAlert({ id: 'alert-7', message }) },
    });
    expect((await receive(a, withId('first'))).outcome).toBe('accepted');
    expect((await receive(b, withId('changed'))).outcome).toBe('duplicate');
  }, 60_000);

  test('off (the default): identical alerts are each a call, and keep no key to match later', async () => {
    const { stores } = await database(['node-a']);
    const [a] = stores as [Store];
    const account = await a.accounts.create({ phone: '+14155550202', plan: 'premium', smsBackup: false, name: '' });
    const pair = await Promise.all([receive(a, alert(account, 'same')), receive(a, alert(account, 'same'))]);
    expect(pair.map((r) => r.outcome)).toEqual(['accepted', 'accepted']);
    // Turned on afterwards: the alerts received while it was off are no firsts.
    await a.accounts.update(account.userId, { dedupeSeconds: 60 });
    expect((await receive(a, alert(account, 'same'))).outcome).toBe('accepted');
    expect((await a.calls.usage(account.userId)).used).toBe(3);
  }, 60_000);

  test('sources: the account refuses an outside address (403, recorded), the server refuses first; neither costs a statement more', async () => {
    const { url, stores } = await database(['node-a']);
    const [a] = stores as [Store];
    const listed = await a.accounts.create({
      phone: '+14155550203',
      plan: 'premium',
      smsBackup: false,
      name: '',
      webhookSources: '198.51.100.0/24',
    });
    const tv = await a.accounts.create({
      phone: '+14155550204',
      plan: 'premium',
      smsBackup: false,
      name: '',
      webhookSources: 'tradingview',
    });
    // Every connection of the pool has prepared the statement once.
    await Promise.all(Array.from({ length: 5 }, () => receive(a, alert(listed, 'warm', { address: '198.51.100.1' }))));
    const results: string[] = [];
    const statements = await statementsRun(url, async () => {
      for (const [account, address] of [
        [listed, '198.51.100.7'],
        [listed, '::ffff:198.51.100.8'],
        [listed, '203.0.113.9'],
        [listed, undefined],
        [tv, '52.89.214.238'],
        [tv, '198.51.100.7'],
      ] as const) {
        const r = await receive(a, alert(account, 'hello', { address }));
        results.push(r.outcome === 'source_not_allowed' ? `refused by ${r.setBy}` : r.outcome);
      }
      const server = await receive(
        a,
        alert(listed, 'hello', { address: '198.51.100.7', serverRefusal: 'from 198.51.100.7: not in tradingview' }),
      );
      results.push(server.outcome === 'source_not_allowed' ? `refused by ${server.setBy}` : server.outcome);
      // Wrong credentials are still a 401 first, whatever the address.
      results.push((await receive(a, { ...alert(listed, 'x', { address: '203.0.113.9' }), apiKey: 'wrong' })).outcome);
    });
    expect(results).toEqual([
      'accepted',
      'accepted',
      'refused by account',
      'refused by account',
      'accepted',
      'refused by account',
      'refused by server',
      'unauthorized',
    ]);
    expect(statements).toBe(8);
    const reasons = (await a.calls.list({ limit: 100 }))
      .filter((c) => c.status === 'source_not_allowed')
      .map((c) => c.error)
      .reverse();
    expect(reasons).toEqual([
      'from 203.0.113.9: not in 198.51.100.0/24',
      'from an unknown address: not in 198.51.100.0/24',
      'from 198.51.100.7: not in tradingview',
      'from 198.51.100.7: not in tradingview',
    ]);
    expect((await a.calls.usage(listed.userId)).used).toBe(7);
  }, 60_000);

  test('the database matches addresses as core/connections/address-match does (IPv4-mapped forms, host bits, families)', async () => {
    const { url } = await database(['node-a']);
    const rules = [
      TRADINGVIEW_WEBHOOK_ADDRESSES.join(','),
      '198.51.100.0/24',
      '198.51.100.7',
      '198.51.100.7/24',
      '::ffff:198.51.100.7',
      '::ffff:198.51.100.7/24',
      '::FFFF:198.51.100.0/120',
      '::/0',
      '0.0.0.0/0',
      '2001:db8::/32',
      '2001:db8::1, 203.0.113.0/28',
      '10.0.0.0/8,192.168.1.1',
    ];
    const addresses = [
      ...TRADINGVIEW_WEBHOOK_ADDRESSES,
      '::ffff:52.89.214.238',
      '198.51.100.7',
      '198.51.100.200',
      '198.51.101.7',
      '::ffff:198.51.100.7',
      '203.0.113.5',
      '203.0.113.16',
      '2001:db8::1',
      '2001:db8:1::5',
      '2001:db9::1',
      '::1',
      '10.1.2.3',
      '192.168.1.1',
      'not-an-address',
    ];
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const disagreements: string[] = [];
      for (const rule of rules) {
        const text = parseSourceRule(rule).text;
        for (const address of addresses) {
          const expected = parseSourceRule(rule).allows(address);
          const normalized = normalizeAddress(address)?.address ?? null;
          const [row] = await sql<Array<{ allowed: boolean }>>`
            SELECT ringhook_sources_allow_v14(${text}, ${normalized}) AS allowed`;
          if (row!.allowed !== expected) disagreements.push(`${rule} ${address}: ${row!.allowed} vs ${expected}`);
        }
      }
      expect(disagreements).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  }, 60_000);

  // Was: v12 still there for the previous release's nodes. #55 drops it (migration 019, a contract
  // step): no release ever called it (v0.1.0 has no function), so only v14 (kept for the previous release's nodes), v18 (#54), v20 (#56) and
  // the helper remain.
  test("the webhook's functions: v14, v18, v20 and their helper; v12, which no release called, is dropped (019)", async () => {
    const { url } = await database(['node-a']);
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<Array<{ name: string }>>`
        SELECT proname AS name FROM pg_proc WHERE proname LIKE 'ringhook_%' ORDER BY proname`;
      expect(rows.map((r) => r.name)).toEqual([
        'ringhook_receive_v14',
        'ringhook_receive_v18',
        'ringhook_receive_v20',
        'ringhook_sources_allow_v14',
      ]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  }, 60_000);
});
