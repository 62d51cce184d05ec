// PostgreSQL's webhook step (migration 014's function): credentials, suspension, payload, both
// limits and the row, in one statement per alert, fewer when alerts arrive together, and exact
// across nodes. The server counts the statements (pg_stat_statements), not the driver.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AlertToReceive } from '../../src/core/records.js';
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
  const url = await cluster.createDatabase(`receive_${++counter}`);
  const secrets = testSecrets();
  const stores: Store[] = [];
  for (const nodeId of nodes) {
    const store = await openPostgresStore({ url, nodeId, secrets, poolSize: 5, ...(now && { now }) });
    opened.push(store);
    stores.push(store);
  }
  return { url, stores };
}

function alert(userId: string, apiKey: string, message = 'hello'): AlertToReceive {
  return { userId, apiKey, payload: { ok: true, alert: textAlert(message) } };
}

async function receive(store: Store, request: AlertToReceive) {
  return store.calls.receiveAlert!(request);
}

/** The statements the server ran for the store's database since the last reset (the watcher's own left out). */
async function statementsRun(url: string, run: () => Promise<unknown>): Promise<{ total: number; texts: string[] }> {
  const watcher = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await watcher`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
    await watcher`SELECT pg_stat_statements_reset()`;
    await run();
    const rows = await watcher<Array<{ query: string; calls: string }>>`
      SELECT query, calls FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'`;
    return { total: rows.reduce((n, r) => n + Number(r.calls), 0), texts: rows.map((r) => r.query) };
  } finally {
    await watcher.end({ timeout: 1 });
  }
}

describe('postgres: the webhook in one round trip', () => {
  test('one statement per accepted alert, and a refusal (401, 403, 400, 429) in the same single statement', async () => {
    const { url, stores } = await database(['node-a']);
    const store = stores[0]!;
    const premium = await store.accounts.create({ phone: '+14155550101', plan: 'premium', smsBackup: false, name: '' });
    const free = await store.accounts.create({ phone: '+14155550102', plan: 'free', smsBackup: false, name: '' });
    const suspended = await store.accounts.create({ phone: '+14155550103', plan: 'free', smsBackup: false, name: '' });
    await store.accounts.update(suspended.userId, { status: 'suspended' });
    // Every connection of the pool has prepared the statement once.
    await Promise.all(Array.from({ length: 5 }, () => receive(store, alert(premium.userId, premium.apiKey))));

    const accepted = await statementsRun(url, async () => {
      for (let i = 0; i < 5; i++)
        expect((await receive(store, alert(premium.userId, premium.apiKey, `m${i}`))).outcome).toBe('accepted');
    });
    expect(accepted.total).toBe(5);
    expect(accepted.texts.join('\n')).toContain('ringhook_receive_v20');

    const refusals = await statementsRun(url, async () => {
      expect((await receive(store, alert(premium.userId, 'wrong-key'))).outcome).toBe('unauthorized');
      expect((await receive(store, alert('no-such-user', premium.apiKey))).outcome).toBe('unauthorized');
      expect((await receive(store, alert(suspended.userId, suspended.apiKey))).outcome).toBe('suspended');
      const invalid = await receive(store, {
        userId: free.userId,
        apiKey: free.apiKey,
        payload: { ok: false, error: 'The request body is empty.', excerpt: '' },
      });
      expect(invalid.outcome).toBe('invalid');
      expect((await receive(store, alert(free.userId, free.apiKey))).outcome).toBe('accepted');
      const limited = await receive(store, alert(free.userId, free.apiKey));
      expect(limited.outcome).toBe('refused');
      if (limited.outcome === 'refused') expect(limited.decision.limit).toBe('burst');
    });
    expect(refusals.total).toBe(6);

    // What was recorded: the refusals as the step-by-step path records them, nothing for a wrong key.
    const history = await store.calls.list({ limit: 100 });
    const statuses = (userId: string) => history.filter((c) => c.userId === userId).map((c) => c.status);
    expect(statuses(suspended.userId)).toEqual(['suspended']);
    expect(statuses(free.userId)).toEqual(['rate_limited', 'queued', 'invalid_payload']);
    expect(statuses(premium.userId)).toHaveLength(10);
    expect((await store.calls.usage(premium.userId)).used).toBe(10);
  }, 60_000);

  test("an accepted alert's call.queued status callback in the same statement, only for an account with a callback URL (#55)", async () => {
    const { url, stores } = await database(['node-a']);
    const store = stores[0]!;
    const withUrl = await store.accounts.create({ phone: '+14155550111', plan: 'premium', smsBackup: false, name: '' });
    const without = await store.accounts.create({ phone: '+14155550112', plan: 'premium', smsBackup: false, name: '' });
    await store.callbacks.configure(withUrl.userId, { url: 'https://a.example/hook' });
    await Promise.all(Array.from({ length: 5 }, () => receive(store, alert(without.userId, without.apiKey))));

    let queued = '';
    const run = await statementsRun(url, async () => {
      const accepted = await receive(store, alert(withUrl.userId, withUrl.apiKey, 'with a receiver'));
      expect(accepted).toMatchObject({ outcome: 'accepted', outboxed: true });
      if (accepted.outcome === 'accepted') queued = accepted.callId;
      const other = await receive(store, alert(without.userId, without.apiKey, 'without'));
      expect(other.outcome).toBe('accepted');
      expect('outboxed' in other).toBe(false);
    });
    // Nothing after the function: no feed, no second statement (the event is on disk with the row).
    expect(run.total).toBe(2);
    const [delivery, ...more] = await store.callbacks.recent(withUrl.userId, 10);
    expect(more).toEqual([]);
    expect(delivery).toMatchObject({
      type: 'call.queued',
      callId: queued,
      eventKey: `${queued}:call.queued`,
      status: 'pending',
    });
    const call = (await store.calls.list({ limit: 100 })).find((c) => c.callId === queued)!;
    // The event as the other paths make it from the row (store/outbox.ts deliveriesFor).
    expect(JSON.parse(delivery!.body)).toEqual({
      type: 'call.queued',
      timestamp: new Date(call.receivedAt).toISOString(),
      data: {
        call_id: queued,
        user_id: withUrl.userId,
        kind: 'alert',
        attempt: 1,
        received_at: new Date(call.receivedAt).toISOString(),
      },
    });
    expect(await store.callbacks.recent(without.userId, 10)).toEqual([]);
  }, 60_000);

  test('alerts that arrive together share a statement (group commit), each answered after it committed', async () => {
    const { url, stores } = await database(['node-a']);
    const store = stores[0]!;
    const accounts = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.accounts.create({ phone: `+1415555${String(1000 + i)}`, plan: 'premium', smsBackup: false, name: '' }),
      ),
    );
    await Promise.all(Array.from({ length: 5 }, () => receive(store, alert(accounts[0]!.userId, accounts[0]!.apiKey))));
    const results: string[] = [];
    const together = await statementsRun(url, async () => {
      await Promise.all(
        accounts.map(async (a) => {
          const received = await receive(store, alert(a.userId, a.apiKey));
          // Answered only once the row is there for anyone to read.
          if (received.outcome === 'accepted') expect(await store.calls.get(received.callId)).toBeDefined();
          results.push(received.outcome);
        }),
      );
    });
    expect(results.filter((r) => r === 'accepted')).toHaveLength(40);
    // 40 alerts; the receive statements are fewer than the alerts (the get() above are 40 more).
    const receives = together.total - 40;
    expect(receives).toBeGreaterThan(0);
    expect(receives).toBeLessThan(40);
  }, 60_000);

  test('limits stay exact across nodes: 30 alerts at once through two nodes, exactly 10 a minute and 3 a month', async () => {
    const clock = manualClock('2026-11-10T12:00:00Z');
    const { stores } = await database(['node-a', 'node-b'], clock.now);
    const [a, b] = stores as [Store, Store];
    const premium = await a.accounts.create({ phone: '+14155550111', plan: 'premium', smsBackup: false, name: '' });
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) => receive(i % 2 ? a : b, alert(premium.userId, premium.apiKey, `m${i}`))),
    );
    expect(burst.filter((r) => r.outcome === 'accepted')).toHaveLength(10);
    expect(burst.filter((r) => r.outcome === 'refused')).toHaveLength(20);

    const free = await a.accounts.create({ phone: '+14155550112', plan: 'free', smsBackup: false, name: '' });
    const perRound: number[] = [];
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => receive(i % 2 ? a : b, alert(free.userId, free.apiKey))),
      );
      perRound.push(results.filter((r) => r.outcome === 'accepted').length);
      clock.advance(61_000);
    }
    expect(perRound).toEqual([1, 1, 1, 0, 0]);
    expect((await a.calls.usage(free.userId)).used).toBe(3);
    const refusals = (await a.calls.list({ userId: free.userId, limit: 100 })).filter((c) => !c.accepted);
    // The monthly allowance is looked at first: the third round's five after its accept, and every later one.
    expect(refusals.filter((c) => c.status === 'limit_exceeded')).toHaveLength(17);
    expect(refusals.filter((c) => c.status === 'rate_limited')).toHaveLength(10);
  }, 60_000);

  test('an alert the server cannot store does not fail those sent with it', async () => {
    const { stores } = await database(['node-a']);
    const store = stores[0]!;
    const a = await store.accounts.create({ phone: '+14155550121', plan: 'premium', smsBackup: false, name: '' });
    const bad = alert(a.userId, a.apiKey);
    // A NUL, which PostgreSQL's text cannot hold (the payload parser refuses it before; here it is forced in).
    if (bad.payload.ok) bad.payload.alert.message = 'nul \u0000 here';
    const results = await Promise.allSettled([
      receive(store, alert(a.userId, a.apiKey, 'one')),
      receive(store, bad),
      receive(store, alert(a.userId, a.apiKey, 'two')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await store.calls.usage(a.userId)).used).toBe(2);
  }, 60_000);

  test("a call's steps on PostgreSQL: one statement each (claim, ringing, answered, final, SMS)", async () => {
    const { url, stores } = await database(['node-a']);
    const store = stores[0]!;
    const a = await store.accounts.create({ phone: '+14155550131', plan: 'premium', smsBackup: true, name: '' });
    const b = await store.accounts.create({ phone: '+14155550132', plan: 'premium', smsBackup: true, name: '' });
    const answered = await receive(store, alert(a.userId, a.apiKey, 'answered'));
    const missed = await receive(store, alert(b.userId, b.apiKey, 'missed'));
    if (answered.outcome !== 'accepted' || missed.outcome !== 'accepted') throw new Error('not accepted');
    const p = store.progress;
    // Prepared once on the pool's connection first (a statement's first run is counted like any).
    const counted = await statementsRun(url, async () => {
      expect(await p.transition(answered.callId, 'dialing', { phone: a.phone, channelId: 'ch-1', dialedAt: 1 })).toBe(
        true,
      );
      expect(await p.transition(answered.callId, 'ringing', { ringingAt: 2 })).toBe(true);
      expect(await p.transition(answered.callId, 'answered', { answeredAt: 3 })).toBe(true);
      expect(await p.transition(answered.callId, 'completed', { endedAt: 4, talkMs: 1 })).toBe(true);
      await store.sms.markSmsSkipped(answered.callId, 'not_needed');
    });
    expect(counted.total).toBe(5);
    const missedCall = await statementsRun(url, async () => {
      expect(await p.transition(missed.callId, 'dialing', { phone: b.phone, channelId: 'ch-2', dialedAt: 1 })).toBe(
        true,
      );
      expect(await p.transition(missed.callId, 'ringing', { ringingAt: 2 })).toBe(true);
      expect(await p.transition(missed.callId, 'no_answer', { endedAt: 4 })).toBe(true);
      expect(await store.sms.claimSms(missed.callId)).toBe(true);
      await store.sms.setSmsResult(missed.callId, { status: 'sent', messageId: 'm-1', parts: 1 });
    });
    expect(missedCall.total).toBe(5);
    // The steps, their timeline and the lines: as the transaction of several statements wrote them.
    expect((await p.timeline(answered.callId)).map((e) => e.event)).toEqual([
      'dialing',
      'ringing',
      'answered',
      'completed',
    ]);
    expect((await p.timeline(missed.callId)).map((e) => e.event)).toEqual([
      'dialing',
      'ringing',
      'no_answer',
      'sms_sent',
    ]);
    const lines = postgres(url, { max: 1, onnotice: () => {} });
    try {
      expect(await lines`SELECT * FROM phone_lines`).toHaveLength(0);
    } finally {
      await lines.end({ timeout: 1 });
    }
    // A second dialing of a call already dialing is refused, and a step from a final state too.
    expect(await p.transition(answered.callId, 'answered')).toBe(false);
  }, 60_000);

  test("the other nodes hear of a batch's queued calls (one notice for the batch), the accepting node not", async () => {
    const { stores } = await database(['node-a', 'node-b']);
    const [a, b] = stores as [Store, Store];
    const accounts = await Promise.all(
      [1, 2, 3].map((i) =>
        a.accounts.create({ phone: `+1415555014${i}`, plan: 'premium', smsBackup: false, name: '' }),
      ),
    );
    const heardByA: string[] = [];
    const heardByB: Array<{ callId: string; userId: string; status: string }> = [];
    const stopA = await a.changes!.subscribe((c) => heardByA.push(c.callId));
    const stopB = await b.changes!.subscribe((c) =>
      heardByB.push({ callId: c.callId, userId: c.userId, status: c.status }),
    );
    const received = await Promise.all(accounts.map((x) => receive(a, alert(x.userId, x.apiKey))));
    const deadline = Date.now() + 5000;
    while (heardByB.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    expect(heardByB).toEqual(
      received.map((r, i) => ({
        callId: r.outcome === 'accepted' ? r.callId : '?',
        userId: accounts[i]!.userId,
        status: 'queued',
      })),
    );
    expect(heardByA).toEqual([]);
    await stopA();
    await stopB();
  }, 60_000);
});

describe("postgres: an alert's own decision keys (#56)", () => {
  test('its keys and Idempotency-Key are kept with its row in the one statement; the PIN hash never leaves the database', async () => {
    const { url, stores } = await database(['node-a']);
    const store = stores[0]!;
    const account = await store.accounts.create({ phone: '+14155550104', plan: 'premium', smsBackup: false, name: '' });
    await store.accounts.update(account.userId, { decisionPinHash: 'scrypt$1$1$1$c2FsdA$a2V5' });
    await receive(store, alert(account.userId, account.apiKey));
    const own = jsonAlert({ message: 'BTC', keys: { '7': 'buy', '8': 'skip' } });
    let received: Awaited<ReturnType<typeof receive>> | undefined;
    const run = await statementsRun(url, async () => {
      received = await receive(store, {
        userId: account.userId,
        apiKey: account.apiKey,
        idempotencyKey: 'order-77',
        payload: { ok: true, alert: { ...own, idempotencyKey: 'order-77' } },
      });
    });
    expect(run.total).toBe(1);
    if (received?.outcome !== 'accepted') throw new Error(`not accepted: ${received?.outcome}`);
    expect(JSON.stringify(received.account)).not.toContain('scrypt');
    expect(await store.calls.get(received.callId)).toMatchObject({
      decisionKeys: '7=buy,8=skip',
      idempotencyKey: 'order-77',
    });
  }, 60_000);
});
