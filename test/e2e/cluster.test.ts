// Two real `ringhook serve` nodes (node-a, node-b) on one real PostgreSQL, each with its own data
// dir and its own managed Asterisk, both trunked to ONE SIPp phone that counts the INVITEs, missed
// calls texted through one Perl SMSC. What must hold across nodes: the limits stay exact (one
// account's row is locked while an alert is accepted), each alert is dialed once by one node, and
// when a node dies (kill -9) the survivor ends its calls in progress `interrupted` (one SMS each),
// dials its queued alerts and keeps accepting.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import {
  clusterNodeEnv,
  type CallRow,
  createClusterAccounts,
  FINAL,
  IN_FLIGHT,
  inBatches,
  reapKilledNodes,
  type NodeHandle,
  nodeHandle,
  pollUntil,
  postAlert,
  readCalls,
  unsettled,
} from '../helpers/cluster.js';
import { request } from '../helpers/https-client.js';
import { type PgCluster, startPostgres } from '../helpers/postgres.js';
import { freeUdpPort } from '../helpers/ports.js';
import { type Smsc, startSmsc } from '../helpers/smpp-server.js';
import { buildOnce, type CountingPhone, type ServeProcess, startCountingPhone, startServe } from '../soak/peers.js';
import { reasonText } from '../../src/core/reasons.js';

/** Simultaneous calls per node: small, so that a stream of ringing calls leaves some queued. */
const MAX_CALLS = 8;
const NODE_IDS = ['node-a', 'node-b'] as const;
const MISSED = new Set(['busy', 'no_answer', 'unreachable', 'rejected', 'failed', 'interrupted', 'expired']);

let pg: PgCluster;
let dbUrl: string;
let smsc: Smsc;
let trunkPort: number;
let phone: CountingPhone | null = null;
const dataDirs: string[] = [];
const envs = new Map<string, Record<string, string>>();
const serves = new Map<string, ServeProcess>();
const nodes = new Map<string, NodeHandle>();

const node = (id: string) => nodes.get(id)!;
const phoneOf = (part: number, i: number) => `+1415${part}${String(i).padStart(6, '0')}`;
const invites = (m: Map<string, Set<string>>, phone: string) =>
  m.get(phone.replace(/^\+/, ''))?.size ?? m.get(phone)?.size ?? 0;

beforeAll(async () => {
  await provisionAsterisk();
  buildOnce();
  pg = await startPostgres();
  dbUrl = await pg.createDatabase('ringhook_cluster');
  smsc = await startSmsc({ receiptDelayS: 0 });
  trunkPort = await freeUdpPort();
  for (const id of NODE_IDS) {
    const env = await clusterNodeEnv({
      id,
      dbUrl,
      trunkPort,
      smsc,
      extra: { RINGHOOK_MAX_CALLS: String(MAX_CALLS), RINGHOOK_TRUNK_CPS: '25', RINGHOOK_RING_TIMEOUT: '20' },
    });
    dataDirs.push(env.RINGHOOK_DATA_DIR!);
    envs.set(id, env);
  }
  const a = envs.get('node-a')!;
  const b = envs.get('node-b')!;
  expect(new Set([a.RINGHOOK_SIP_PORT, b.RINGHOOK_SIP_PORT, trunkPort.toString()]).size).toBe(3);
  expect(a.RINGHOOK_ARI_PORT).not.toBe(b.RINGHOOK_ARI_PORT);
  expect(a.RINGHOOK_PORT).not.toBe(b.RINGHOOK_PORT);
  // The first node migrates the empty database; the second finds it done.
  serves.set('node-a', await startServe(a));
  serves.set('node-b', await startServe(b));
  for (const [k, id] of NODE_IDS.entries()) nodes.set(id, nodeHandle(id, dataDirs[k]!, envs.get(id)!.RINGHOOK_PORT!));
}, 300_000);

afterAll(async () => {
  await phone?.stop().catch(() => {});
  for (const s of serves.values()) await s.stop().catch(() => {});
  // node-b's Asterisk outlives its kill -9 (a serve on the same data dir would stop it).
  reapKilledNodes(dataDirs);
  await smsc?.stop().catch(() => {});
  await pg?.stop().catch(() => {});
  for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
}, 60_000);

function serveLogs(): string {
  return [...serves.entries()].map(([id, s]) => `--- ${id} ---\n${s.output().slice(-6000)}`).join('\n');
}

it('limits stay exact across nodes: 30 simultaneous alerts to one premium account over two nodes → exactly 10 accepted', async () => {
  phone = await startCountingPhone(trunkPort, 50, 400);
  const [account] = await createClusterAccounts(dbUrl, [{ phone: phoneOf(1, 0) }]);
  const replies = await Promise.all(
    Array.from({ length: 30 }, (_, i) => postAlert(node(NODE_IDS[i % 2]!), account!, `limit test alert ${i}`)),
  );
  const statuses = replies.map((r) => r.status);
  expect(statuses.filter((s) => s === 200).length, JSON.stringify(statuses)).toBe(10);
  expect(statuses.filter((s) => s === 429).length, JSON.stringify(statuses)).toBe(20);
  // Exactly the 10 accepted are in the history.
  const rows = [...(await readCalls(dbUrl)).values()].filter((c) => c.user_id === account!.userId);
  expect(rows.map((r) => r.call_id).sort()).toEqual(replies.flatMap((r) => (r.callId ? [r.callId] : [])).sort());
  // Both nodes accepted some.
  console.log('figures: limits', JSON.stringify({ accepted_by: countBy(rows, (r) => r.accepted_by ?? '?') }));
}, 60_000);

it('300 alerts over both nodes: every one answered 200, each dialed exactly once, by both nodes', async () => {
  const N = 300;
  const accounts = await createClusterAccounts(
    dbUrl,
    Array.from({ length: N }, (_, i) => ({ phone: phoneOf(2, i) })),
  );
  const started = Date.now();
  // The same message for all: the speech is made once per node.
  const replies = await inBatches(
    accounts.map((a, i) => () => postAlert(node(NODE_IDS[i % 2]!), a, 'cluster load alert')),
    20,
  );
  const postMs = Date.now() - started;
  expect(replies.filter((r) => r.status !== 200)).toEqual([]);
  const ids = new Set(replies.map((r) => r.callId!));
  expect(ids.size).toBe(N);

  const mine = async () => [...(await readCalls(dbUrl)).values()].filter((c) => ids.has(c.call_id));
  const rows = await pollUntil(mine, (rs) => rs.length === N && rs.every((c) => FINAL.has(c.status)), 120_000, 500);
  const finalMs = Date.now() - started;
  // Wait for the last 486's ACK to reach SIPp's log, then count.
  await new Promise((r) => setTimeout(r, 1000));
  const got = await phone!.stop();
  phone = null;

  expect(rows.length).toBe(N);
  expect(
    rows.filter((c) => !FINAL.has(c.status)),
    serveLogs(),
  ).toEqual([]);
  // The phone answers busy at once: every alert got its call, and only one.
  expect(countBy(rows, (r) => r.status)).toEqual({ busy: N });
  const wrong = accounts.filter((a) => invites(got, a.phone) !== 1).map((a) => `${a.phone}: ${invites(got, a.phone)}`);
  expect(wrong, 'phones not dialed exactly once').toEqual([]);
  const byNode = countBy(rows, (r) => r.node_id ?? '?');
  expect(Object.keys(byNode).sort()).toEqual([...NODE_IDS]);
  expect(byNode['node-a']).toBeGreaterThan(0);
  expect(byNode['node-b']).toBeGreaterThan(0);
  // The node that accepted an alert dialed it (both alive).
  expect(rows.filter((r) => r.node_id !== r.accepted_by)).toEqual([]);
  console.log(
    'figures: 300 alerts',
    JSON.stringify({
      post_ms: postMs,
      all_final_ms: finalMs,
      dialed_by: byNode,
      invites: [...got.values()].reduce((n, s) => n + s.size, 0),
    }),
  );
}, 180_000);

it('kill -9 of node-b with calls in progress: nothing lost or dialed twice, its calls interrupted with one SMS each, its queue dialed by node-a', async () => {
  // The phone rings 6 s, then busy: calls are in progress when node-b dies, and more wait in each
  // node's queue (MAX_CALLS a node).
  phone = await startCountingPhone(trunkPort, 6000, 400);
  const PRE = 2 * MAX_CALLS * 2; // per node: MAX_CALLS ringing, as many queued
  const POST = 10;
  const accounts = await createClusterAccounts(
    dbUrl,
    Array.from({ length: PRE + POST }, (_, i) => ({ phone: phoneOf(3, i), smsBackup: true })),
  );
  const messageOf = (i: number) => `crash alert number ${i}`;
  const smsBefore = smsc.events().length;

  const pre = await inBatches(
    accounts.slice(0, PRE).map((a, i) => () => postAlert(node(NODE_IDS[i % 2]!), a, messageOf(i))),
    4,
  );
  expect(pre.map((r) => r.status)).toEqual(pre.map(() => 200));
  const answered = new Map<string, string>(pre.map((r, i) => [r.callId!, messageOf(i)]));
  // Kill when node-b has calls ringing at the phone and others still queued.
  const ours = async () => [...(await readCalls(dbUrl)).values()].filter((c) => answered.has(c.call_id));
  const ready = await pollUntil(
    ours,
    (rs) => rs.filter((c) => c.accepted_by === 'node-b' && c.status === 'ringing').length >= MAX_CALLS / 2,
    20_000,
    100,
  );
  expect(ready.filter((c) => c.accepted_by === 'node-b' && c.status === 'ringing').length, serveLogs()).toBeGreaterThan(
    0,
  );
  const killedAt = Date.now();
  expect(await serves.get('node-b')!.stop('SIGKILL')).toBeNull();
  const atKill = await readCalls(dbUrl);
  const ofB = [...atKill.values()].filter((c) => answered.has(c.call_id) && c.accepted_by === 'node-b');
  const inFlightOfB = ofB.filter((c) => IN_FLIGHT.has(c.status));
  const queuedOfB = ofB.filter((c) => c.status === 'queued');
  expect(inFlightOfB.length).toBeGreaterThan(0);
  expect(queuedOfB.length, 'node-b had queued alerts at the kill').toBeGreaterThan(0);

  // The survivor keeps accepting.
  const post = await inBatches(
    accounts.slice(PRE).map((a, k) => () => postAlert(node('node-a'), a, messageOf(PRE + k))),
    4,
  );
  expect(post.map((r) => r.status)).toEqual(post.map(() => 200));
  for (const [k, r] of post.entries()) answered.set(r.callId!, messageOf(PRE + k));

  // Every call final, every missed one with its SMS settled (bounded).
  const rows = await pollUntil(
    ours,
    (rs) => rs.length === answered.size && unsettled(rs, MISSED).length === 0,
    120_000,
    500,
  );
  const settledMs = Date.now() - killedAt;
  await new Promise((r) => setTimeout(r, 1000));
  const got = await phone.stop();
  phone = null;
  const now = new Map(rows.map((r) => [r.call_id, r]));

  // 0 lost, all final.
  for (const [callId, message] of answered) expect(now.get(callId)?.message, callId).toBe(message);
  expect(unsettled(rows, MISSED), serveLogs()).toEqual([]);
  // node-b's calls in progress: interrupted, never redialed.
  for (const c of inFlightOfB) {
    expect(now.get(c.call_id)!.status, c.call_id).toBe('interrupted');
    // Said in words, with the technical detail beside it.
    expect(now.get(c.call_id), c.call_id).toMatchObject({
      error: reasonText('node_stopped', { node: 'node-b' }),
      reason_detail: expect.stringMatching(/node node-b stopped answering during the call/),
    });
  }
  // node-b's queued alerts: dialed by node-a.
  for (const c of queuedOfB) {
    expect(now.get(c.call_id)!.node_id, c.call_id).toBe('node-a');
    expect(now.get(c.call_id)!.status, c.call_id).toBe('busy');
  }
  // The rest (node-a's, and all after the kill): dialed by node-a, busy.
  // (a call of node-b's already over at the kill stays as it was).
  for (const r of rows) {
    const before = atKill.get(r.call_id);
    if (before && r.accepted_by === 'node-b' && FINAL.has(before.status))
      expect(r.status, r.call_id).toBe(before.status);
    else if (!inFlightOfB.some((c) => c.call_id === r.call_id))
      expect([r.call_id, r.node_id, r.status]).toEqual([r.call_id, 'node-a', 'busy']);
  }
  // None dialed twice: one INVITE per phone (one alert per phone); an interrupted call at most one
  // (node-b may have died before its Asterisk sent it).
  for (const [k, a] of accounts.entries()) {
    const row = rows.find((r) => r.user_id === a.userId)!;
    const n = invites(got, a.phone);
    if (row.status === 'interrupted') expect(n, `${a.phone} (${k}) interrupted`).toBeLessThanOrEqual(1);
    else expect(n, `${a.phone} (${k}) ${row.status}`).toBe(1);
  }
  // One SMS per missed call, none twice.
  const texts = smsc
    .events()
    .slice(smsBefore)
    .filter((e) => e.event === 'message')
    .map((e) => String(e.text));
  const missed = rows.filter((r) => MISSED.has(r.status));
  expect(missed.length).toBe(rows.length);
  for (const r of missed)
    expect(
      texts.filter((t) => t === `Missed call alert: ${r.message}`).length,
      `SMS of ${r.message} (${r.status})`,
    ).toBe(1);
  expect(texts.length).toBe(missed.length);

  // The survivor's /healthz: node-b is not alive.
  const health = await request(`${node('node-a').base}/healthz`, { method: 'GET', ca: node('node-a').ca });
  const view = health.json.cluster as {
    node: string;
    nodes: Array<{ node: string; alive: boolean; seen_ms_ago: number }>;
  };
  expect(view.node).toBe('node-a');
  expect(view.nodes.find((n) => n.node === 'node-a')?.alive).toBe(true);
  expect(view.nodes.find((n) => n.node === 'node-b')).toMatchObject({ alive: false });
  expect(view.nodes.find((n) => n.node === 'node-b')!.seen_ms_ago).toBeGreaterThanOrEqual(3000);
  console.log(
    'figures: kill -9',
    JSON.stringify({
      answered_200: answered.size,
      in_flight_of_b_at_kill: inFlightOfB.length,
      queued_of_b_at_kill: queuedOfB.length,
      statuses: countBy(rows, (r) => r.status),
      settled_ms_after_kill: settledMs,
      sms: texts.length,
      invites: [...got.values()].reduce((n, s) => n + s.size, 0),
    }),
  );
}, 180_000);

function countBy(rows: CallRow[], key: (r: CallRow) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) out[key(r)] = (out[key(r)] ?? 0) + 1;
  return out;
}
