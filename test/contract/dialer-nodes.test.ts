// Two dialers (two nodes) on one real PostgreSQL, each with a stand-in Asterisk: alerts that both
// nodes see queued (the CLI queued them, or a dead node left them) are each placed by exactly one
// node, and a phone is never rung by both nodes at once (one line per phone across nodes). The
// stand-in Asterisk is there because what is tested is the store's claim and release across nodes;
// test/e2e/quiet-hours.test.ts and test/e2e/cluster.test.ts call through a real Asterisk.
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/index.js';
import type { Store } from '../../src/store/contract/index.js';
import { CallEvents } from '../../src/core/calls/call-events.js';
import { silentLogger } from '../../src/lib/log.js';
import { Dialer, type FinalCall } from '../../src/calls/index.js';
import { throughTrunk } from '../../src/pbx/endpoint.js';
import { StandInAri } from '../helpers/stand-in-ari.js';
import { useStores } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';
import { textAlert } from '../helpers/database.js';

const stores = useStores('postgres');
const dialers: Dialer[] = [];
const opened: Store[] = [];

afterEach(async () => {
  for (const d of dialers.splice(0)) await d.stop(0);
  for (const s of opened.splice(0)) await s.close();
});

function node(store: Store, finals: FinalCall[]) {
  const ari = new StandInAri();
  const dialer = new Dialer({
    ari,
    store,
    tts: {
      synthesize: async (text) => ({
        path: `/speech/${text}.wav`,
        media: `sound:/speech/${text.slice(0, 12)}`,
        durationMs: 1000,
        cached: true,
      }),
    },
    events: new CallEvents(),
    logger: silentLogger,
    now: Date.now,
    onFinal: (call) => finals.push(call),
    endpointFor: throughTrunk,
    ringTimeoutSec: 30,
    maxConcurrent: 50,
    freshnessMs: 300_000,
    pollMs: 20,
  });
  dialers.push(dialer);
  return { ari, dialer };
}

describe('two nodes dialing from one PostgreSQL', () => {
  it('alerts queued for anyone are placed once, by one node or the other; a phone is never rung by both', async () => {
    const db = await stores.fresh();
    // The CLI is no node: what it queues, any node may dial.
    const cli = await openPostgresStore({ url: db.location, nodeId: null, secrets: db.secrets, poolSize: 2 });
    opened.push(cli);
    const storeA = await db.open({ nodeId: 'node-a' });
    const storeB = await db.open({ nodeId: 'node-b' });
    const finals: FinalCall[] = [];
    const a = node(storeA, finals);
    const b = node(storeB, finals);

    // 20 accounts with a phone each, and 2 more sharing one phone.
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const account = await cli.accounts.create({
        phone: `+1415555${String(1000 + i)}`,
        plan: 'premium',
        smsBackup: false,
        name: `a${i}`,
        requireConfirm: false,
      });
      const r = await cli.calls.acceptTestCall(account.userId, `alert ${i}`);
      if (!r.accepted) throw new Error('not accepted');
      ids.push(r.callId);
    }
    const shared = [];
    for (let i = 0; i < 2; i++) {
      const account = await cli.accounts.create({
        phone: '+14155559999',
        plan: 'premium',
        smsBackup: false,
        name: `s${i}`,
        requireConfirm: false,
      });
      const r = await cli.calls.acceptTestCall(account.userId, `shared ${i}`);
      if (!r.accepted) throw new Error('not accepted');
      shared.push(r.callId);
    }
    await Promise.all([a.dialer.start(), b.dialer.start()]);
    const originated = () => [...a.ari.originated, ...b.ari.originated];
    await waitFor(
      'every alert with its own phone placed',
      () => (originated().length >= 21 ? true : undefined),
      10_000,
    );
    // Let a slower node try too: nothing more may be placed while the shared phone's line is held.
    await new Promise((r) => setTimeout(r, 500));
    const placed = originated().map((o) => o.appArgs?.[0]);
    expect(placed.filter((id) => ids.includes(id!)).sort()).toEqual([...ids].sort());
    expect(new Set(placed).size).toBe(placed.length);
    // Both nodes took a share.
    expect(a.ari.originated.length).toBeGreaterThan(0);
    expect(b.ari.originated.length).toBeGreaterThan(0);
    // The shared phone: one call now, on either node.
    const onShared = originated().filter((o) => o.endpoint.includes('+14155559999'));
    expect(onShared).toHaveLength(1);

    // That call ends: the line is free, and the other alert for the phone is placed, once.
    const first = onShared[0]!;
    const owner = a.ari.originated.includes(first) ? a.ari : b.ari;
    owner.send({
      type: 'ChannelDestroyed',
      channel: { id: first.channelId, name: first.endpoint, state: 'Down' },
      cause: 17,
      cause_txt: 'User busy',
    });
    await waitFor(
      'the second alert for the shared phone',
      () => (originated().filter((o) => o.endpoint.includes('+14155559999')).length === 2 ? true : undefined),
      10_000,
    );
    await new Promise((r) => setTimeout(r, 500));
    const sharedPlaced = originated()
      .filter((o) => o.endpoint.includes('+14155559999'))
      .map((o) => o.appArgs?.[0]);
    expect(sharedPlaced.sort()).toEqual([...shared].sort());
  }, 30_000);

  it('held alerts whose quiet hours end are released by one node and called once: one call for the whole batch', async () => {
    const db = await stores.fresh();
    const cli = await openPostgresStore({ url: db.location, nodeId: null, secrets: db.secrets, poolSize: 2 });
    opened.push(cli);
    const storeA = await db.open({ nodeId: 'node-a' });
    const storeB = await db.open({ nodeId: 'node-b' });
    const finals: FinalCall[] = [];
    const a = node(storeA, finals);
    const b = node(storeB, finals);
    const account = await cli.accounts.create({
      phone: '+14155558888',
      plan: 'premium',
      smsBackup: false,
      name: 'quiet',
      requireConfirm: false,
    });
    // Fourteen alerts held until 2 s from now (more than the ten a merged call otherwise carries),
    // received 7 s apart in the last two minutes (inside the plan's 10 a minute).
    let receivedAt = Date.now() - 120_000;
    const sender = await openPostgresStore({
      url: db.location,
      nodeId: null,
      secrets: db.secrets,
      poolSize: 2,
      now: () => receivedAt,
    });
    opened.push(sender);
    const ids: string[] = [];
    for (let i = 0; i < 14; i++) {
      receivedAt += 7_000;
      const r = await sender.calls.accept(account.userId, 'premium', textAlert(`held ${i}`));
      if (!r.accepted || 'duplicate' in r) throw new Error('not accepted');
      ids.push(r.callId);
    }
    const until = Date.now() + 2_000;
    expect((await cli.held.hold(ids, until, 'quiet hours')).sort()).toEqual([...ids].sort());
    await Promise.all([a.dialer.start(), b.dialer.start()]);
    const originated = () => [...a.ari.originated, ...b.ari.originated];
    await new Promise((r) => setTimeout(r, until - Date.now() - 300));
    expect(originated()).toHaveLength(0);
    await waitFor('the held batch called', () => (originated().length > 0 ? true : undefined), 10_000);
    // Both nodes keep looking: nothing more is placed.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(originated()).toHaveLength(1);
    const carried = (await Promise.all(ids.map((id) => cli.progress.get(id)))).map((c) => [c?.status, c?.carriedBy]);
    const carrier = originated()[0]!.appArgs?.[0];
    expect(carried.filter(([status]) => status === 'dialing')).toHaveLength(14);
    expect(carried.filter(([, by]) => by === carrier)).toHaveLength(13);
  }, 30_000);
});
