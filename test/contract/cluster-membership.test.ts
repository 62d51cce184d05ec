// The cluster module (src/app/cluster.ts) over a real PostgreSQL, two nodes in one process: each says
// it is alive; a node that goes silent is taken over by exactly one survivor, which is handed its
// calls in progress; a node that stops cleanly is not waited for; call changes made on one node
// reach the other's live listeners (LISTEN/NOTIFY) and are never echoed back; /healthz's view.
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../src/app/cluster.js';
import type { CallForDialing } from '../../src/core/records.js';
import type { Store } from '../../src/store/contract/index.js';
import { CallEvents, type CallChange } from '../../src/core/calls/call-events.js';
import { silentLogger } from '../../src/lib/log.js';
import { parseAlertBody } from '../../src/core/webhook/payload.js';
import { useStores } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

const stores = useStores('postgres');

interface Node {
  store: Store;
  events: CallEvents;
  cluster: Cluster;
  adopted: Array<{ nodeId: string; calls: CallForDialing[] }>;
}

async function startNode(open: (nodeId: string) => Promise<Store>, nodeId: string, timeoutMs = 3_000): Promise<Node> {
  const store = await open(nodeId);
  const events = new CallEvents();
  const adopted: Node['adopted'] = [];
  const cluster = await startCluster({
    store,
    events,
    logger: silentLogger,
    nodeTimeoutMs: timeoutMs,
    now: Date.now,
    smsWindowMs: 300_000,
    adopt: (gone) => adopted.push({ nodeId: gone.nodeId, calls: gone.calls }),
  });
  return { store, events, cluster, adopted };
}

async function answeredCall(store: Store, userId: string): Promise<string> {
  const alert = parseAlertBody(new TextEncoder().encode('BTC above 100k'), 'text/plain');
  if (!alert.ok) throw new Error(alert.error);
  const accepted = await store.calls.accept(userId, 'premium', alert.alert);
  if (!accepted.accepted) throw new Error('not accepted');
  for (const to of ['dialing', 'ringing', 'answered'] as const) {
    expect(
      await store.progress.transition(
        accepted.callId,
        to,
        to === 'dialing' ? { phone: '+14155550123', dialedAt: Date.now() } : {},
      ),
    ).toBe(true);
  }
  return accepted.callId;
}

/** Three nodes on a fresh database. */
async function threeNodes() {
  const db = await stores.fresh();
  const open = (nodeId: string) => db.open({ nodeId });
  return {
    db,
    a: await startNode(open, 'node-a'),
    b: await startNode(open, 'node-b'),
    c: await startNode(open, 'node-c'),
  };
}

/** node-a dies without a word: its timer stops, its row is not updated any more. */
async function crashNodeA(a: Node, location: string): Promise<void> {
  await a.cluster.stop().catch(() => {});
  await a.store.close();
  // stop() said goodbye: make it look like a crash instead (last seen 10 s ago, never gone).
  const sql = postgres(location, { max: 1, onnotice: () => {} });
  await sql`UPDATE nodes SET gone_at = NULL, seen_at = ${Date.now() - 10_000} WHERE node_id = 'node-a'`;
  await sql.end();
}

describe('nodes sharing PostgreSQL', () => {
  it('a silent node is taken over once: its call in progress goes to one survivor; the nodes list shows it gone', async () => {
    const { db, a, b, c } = await threeNodes();
    try {
      const account = await a.store.accounts.create({
        phone: '+14155550123',
        plan: 'premium',
        smsBackup: true,
        name: 'x',
      });
      const callId = await answeredCall(a.store, account.userId);
      await crashNodeA(a, db.location);

      await waitFor(
        'a survivor takes node-a over',
        () => (b.adopted.length + c.adopted.length > 0 ? true : undefined),
        8_000,
      );
      await new Promise((r) => setTimeout(r, 2_500));
      const all = [...b.adopted, ...c.adopted];
      expect(all).toHaveLength(1);
      expect(all[0]!.nodeId).toBe('node-a');
      expect(all[0]!.calls.map((x) => x.callId)).toEqual([callId]);
      expect(all[0]!.calls[0]!.status).toBe('answered');

      const view = await b.cluster.nodes!();
      expect(view.node).toBe('node-b');
      const byId = Object.fromEntries(view.nodes.map((n) => [n.node, n]));
      expect(byId['node-a']!.alive).toBe(false);
      expect(byId['node-b']!.alive).toBe(true);
      expect(byId['node-c']!.alive).toBe(true);
      expect(byId['node-c']!.seen_ms_ago).toBeLessThan(3_000);
    } finally {
      await b.cluster.stop();
      await c.cluster.stop();
    }
  }, 30_000);

  it('a node that is stopping takes no silent node over (it could not finish their calls and SMS); the others do', async () => {
    const { db, a, b, c } = await threeNodes();
    try {
      await b.cluster.stopTakingOver();
      await crashNodeA(a, db.location);
      await waitFor('node-c takes node-a over', () => (c.adopted.length > 0 ? true : undefined), 8_000);
      expect(b.adopted).toEqual([]);
      expect(c.adopted.map((g) => g.nodeId)).toEqual(['node-a']);
    } finally {
      await b.cluster.stop();
      await c.cluster.stop();
    }
  }, 30_000);

  it('a node stopped cleanly is gone at once: nothing of its is taken over', async () => {
    const db = await stores.fresh();
    const open = (nodeId: string) => db.open({ nodeId });
    const a = await startNode(open, 'node-a');
    const b = await startNode(open, 'node-b');
    try {
      await a.cluster.stop();
      const nodes = await b.cluster.nodes!();
      // Its last heartbeat was a moment ago, yet it is not alive: it said it left.
      expect(nodes.nodes.find((n) => n.node === 'node-a')).toMatchObject({
        alive: false,
        seen_ms_ago: expect.any(Number),
      });
      expect(nodes.nodes.find((n) => n.node === 'node-a')!.seen_ms_ago).toBeLessThan(2_000);
      await new Promise((r) => setTimeout(r, 4_000));
      expect(b.adopted).toEqual([]);
    } finally {
      await b.cluster.stop();
    }
  }, 30_000);

  it("a call change on one node reaches the other's listeners, once, and is not echoed back", async () => {
    const db = await stores.fresh();
    const open = (nodeId: string) => db.open({ nodeId });
    const a = await startNode(open, 'node-a');
    const b = await startNode(open, 'node-b');
    try {
      const seenA: CallChange[] = [];
      const seenB: CallChange[] = [];
      a.events.subscribe((change) => seenA.push(change));
      b.events.subscribe((change) => seenB.push(change));
      const change = {
        callId: 'call_test123',
        userId: 'f'.repeat(32),
        status: 'ringing' as const,
        at: 1_700_000_000_000,
      };
      a.events.emit(change);
      await waitFor('the change on node-b', () => seenB[0], 5_000);
      await new Promise((r) => setTimeout(r, 500));
      expect(seenB).toEqual([{ ...change, remote: true }]);
      // node-a saw its own emit only, not a copy relayed back by node-b.
      expect(seenA).toEqual([change]);
    } finally {
      await a.cluster.stop();
      await b.cluster.stop();
    }
  }, 30_000);
});
