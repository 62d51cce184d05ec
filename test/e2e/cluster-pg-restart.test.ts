// A real `ringhook serve` node (no telephony) on a real PostgreSQL that stops (fast shutdown) for a
// few seconds under a steady stream of alerts: while it is down the webhook answers 503 and records
// nothing (the sender tries again later), and once it is back alerts are accepted again. Every alert
// answered 200 is in the database, with its message; none answered 503 is.
import fs from 'node:fs';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CLUSTER_SECRET_KEY,
  type ClusterAccount,
  createClusterAccounts,
  type NodeHandle,
  nodeHandle,
  postAlert,
} from '../helpers/cluster.js';
import { type PgCluster, startPostgres } from '../helpers/postgres.js';
import { freeTcpPort } from '../helpers/ports.js';
import { makeDataDir } from '../helpers/service.js';
import { buildOnce, type ServeProcess, startServe } from '../soak/peers.js';

/** Premium accepts 10 alerts a minute an account: enough accounts that the limits never refuse one. */
const ACCOUNTS = 60;
/** An alert every EVERY_MS, at most MAX_ALERTS in all. */
const EVERY_MS = 100;
const MAX_ALERTS = 1000;
const DOWN_MS = 5_000;
/** After PostgreSQL answers again, the time the pool may take to notice. */
const GRACE_MS = 1_000;
/** The longest a refusal may take: senders (TradingView) give up after a few seconds. */
const ANSWER_MS = 3_000;

let pg: PgCluster;
let dbUrl: string;
let dataDir: string;
let serve: ServeProcess | null = null;

beforeAll(async () => {
  buildOnce();
  pg = await startPostgres();
  dbUrl = await pg.createDatabase('ringhook_restart');
  dataDir = makeDataDir('rh-pg-restart-');
}, 180_000);

afterAll(async () => {
  await serve?.stop().catch(() => {});
  await pg?.stop().catch(() => {});
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

interface Sent {
  seq: number;
  message: string;
  status: number;
  callId?: string;
  phase: 'up' | 'down' | 'back';
  /** When it was sent and answered (Date.now()). */
  at: number;
  doneAt: number;
  ms: number;
}

it('PostgreSQL stopped for a few seconds under a stream of alerts: 503 while down (nothing recorded), 200 again after, none lost', async () => {
  const port = String(await freeTcpPort());
  serve = await startServe({
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: port,
    RINGHOOK_TELEPHONY: 'off',
    RINGHOOK_DATABASE_URL: dbUrl,
    RINGHOOK_SECRET_KEY: CLUSTER_SECRET_KEY,
    RINGHOOK_NODE_ID: 'node-solo',
  });
  const node: NodeHandle = nodeHandle('node-solo', dataDir, port);
  const accounts: ClusterAccount[] = await createClusterAccounts(
    dbUrl,
    Array.from({ length: ACCOUNTS }, (_, i) => ({ phone: `+1415777${String(i).padStart(4, '0')}` })),
  );

  // The stream: an alert every EVERY_MS whatever the earlier ones are doing (as TradingView sends
  // them), over the accounts in turn.
  const sent: Sent[] = [];
  const pending = new Set<Promise<void>>();
  let phase: Sent['phase'] = 'up';
  let seq = 0;
  const send = () => {
    const n = seq++;
    const message = `pg restart alert ${n}`;
    const at = phase;
    const t0 = Date.now();
    const p: Promise<void> = postAlert(node, accounts[n % ACCOUNTS]!, message).then((r) => {
      const doneAt = Date.now();
      sent.push({
        seq: n,
        message,
        status: r.status,
        ...(r.callId && { callId: r.callId }),
        phase: at,
        at: t0,
        doneAt,
        ms: doneAt - t0,
      });
      pending.delete(p);
    });
    pending.add(p);
  };
  const timer = setInterval(() => seq < MAX_ALERTS && send(), EVERY_MS);
  // PostgreSQL is down from the end of its stop (downAt) to the start of its start (upAt); it
  // answers again from backAt.
  let downAt = Number.POSITIVE_INFINITY;
  let upAt = Number.POSITIVE_INFINITY;
  let backAt = Number.POSITIVE_INFINITY;
  const acceptedAfter = (t: number) => sent.filter((s) => s.at > t && s.status === 200).length;
  try {
    await new Promise((r) => setTimeout(r, 3_000));
    await pg.pause();
    downAt = Date.now();
    phase = 'down';
    await new Promise((r) => setTimeout(r, DOWN_MS));
    upAt = Date.now();
    await pg.restart();
    backAt = Date.now();
    phase = 'back';
    // Bounded: until 20 alerts sent after the grace are accepted.
    const deadline = Date.now() + 30_000;
    while (acceptedAfter(backAt + GRACE_MS) < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  } finally {
    clearInterval(timer);
    // Every request ends (the client has no timeout of its own; serve's answers are bounded by the
    // test's own timeout).
    await Promise.all([...pending]);
  }
  sent.sort((a, b) => a.seq - b.seq);
  const byStatus = countBy(sent.map((s) => String(s.status)));
  const sentWhileDown = sent.filter((s) => s.at > downAt && s.at < upAt);
  const figures = {
    sent: sent.length,
    by_status: byStatus,
    by_phase: Object.fromEntries(
      ['up', 'down', 'back'].map((p) => [p, countBy(sent.filter((s) => s.phase === p).map((s) => String(s.status)))]),
    ),
    down_ms: upAt - downAt,
    back_after_ms: backAt - upAt,
    sent_while_down: sentWhileDown.length,
    sent_while_down_answered: countBy(
      sentWhileDown.map((s) => `${s.status} after ${s.ms < ANSWER_MS ? 'less' : 'more'} than ${ANSWER_MS} ms`),
    ),
    slowest_while_down_ms: Math.max(0, ...sentWhileDown.map((s) => s.ms)),
    slowest_200_after_back_ms: Math.max(0, ...sent.filter((s) => s.at > backAt && s.status === 200).map((s) => s.ms)),
  };
  console.log('figures: pg restart', JSON.stringify(figures));
  expect(serve.child.exitCode, `serve is still running; its last output:\n${serve.output().slice(-4000)}`).toBeNull();

  // Every answer is 200 or 503, nothing else (500, a dropped connection).
  expect(Object.keys(byStatus).sort(), JSON.stringify(byStatus)).toEqual(['200', '503']);
  expect(sent.filter((s) => s.phase === 'up').length).toBeGreaterThan(10);

  // The database: every 200 there with its message, no 503 there.
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  let rows: Array<{ call_id: string; message: string; accepted: number }>;
  try {
    rows = await sql<
      Array<{ call_id: string; message: string; accepted: number }>
    >`SELECT call_id, message, accepted FROM calls`;
  } finally {
    await sql.end({ timeout: 1 });
  }
  const byMessage = new Map(rows.map((r) => [r.message, r]));
  const ok = sent.filter((s) => s.status === 200);
  const refused = sent.filter((s) => s.status === 503);
  const lost = ok.filter(
    (s) => byMessage.get(s.message)?.call_id !== s.callId || byMessage.get(s.message)?.accepted !== 1,
  );
  expect(
    lost.map((s) => s.message),
    'answered 200 and not in the database',
  ).toEqual([]);
  const recorded = refused.filter((s) => byMessage.has(s.message));
  expect(
    recorded.map((s) => s.message),
    'answered 503 and recorded anyway',
  ).toEqual([]);
  expect(rows.length).toBe(ok.length);
  // Accepted again once PostgreSQL is back: every alert sent after a short grace is a 200.
  const lateRefusals = sent
    .filter((s) => s.at > backAt + GRACE_MS && s.status !== 200)
    .map((s) => `${s.message}: ${s.status}`);
  expect(lateRefusals, 'refused once PostgreSQL was back').toEqual([]);
  expect(acceptedAfter(backAt + GRACE_MS)).toBeGreaterThanOrEqual(20);
  // While it is down: every alert answered 503, and promptly (a sender such as TradingView waits a
  // few seconds, then counts the alert as failed; one answered 200 much later may be sent again).
  expect(sentWhileDown.length).toBeGreaterThan(DOWN_MS / EVERY_MS / 2);
  const notPromptly503 = sentWhileDown
    .filter((s) => s.status !== 503 || s.ms > ANSWER_MS)
    .map((s) => `${s.message}: ${s.status} after ${s.ms} ms`);
  expect(notPromptly503, `sent while PostgreSQL was down, not answered 503 within ${ANSWER_MS} ms`).toEqual([]);
}, 120_000);

function countBy(keys: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
}
