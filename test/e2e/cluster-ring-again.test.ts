// Ring again (#54) across two real `ringhook serve` nodes (node-a, node-b) on one real PostgreSQL,
// each with its own managed Asterisk, both trunked to one SIPp phone: kill -9 of the node that placed
// an alert's first call, between its two attempts, neither loses nor doubles the second: the
// survivor places it once, when due.
import fs from 'node:fs';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import {
  clusterNodeEnv,
  createClusterAccounts,
  reapKilledNodes,
  type NodeHandle,
  nodeHandle,
  pollUntil,
  postAlert,
} from '../helpers/cluster.js';
import { type PgCluster, startPostgres } from '../helpers/postgres.js';
import { freeUdpPort } from '../helpers/ports.js';
import { sipDialogs } from '../helpers/sip-trace.js';
import { type SippPhone, startSipp, stopAllSipp } from '../helpers/sipp.js';
import { buildOnce, type ServeProcess, startServe } from '../soak/peers.js';

const NODE_IDS = ['node-a', 'node-b'] as const;
const PHONE = '+14155550401';

let pg: PgCluster;
let dbUrl: string;
let trunkPort: number;
const dataDirs: string[] = [];
const serves = new Map<string, ServeProcess>();
const nodes = new Map<string, NodeHandle>();

beforeAll(async () => {
  await provisionAsterisk();
  buildOnce();
  pg = await startPostgres();
  dbUrl = await pg.createDatabase('ringhook_cluster_ring_again');
  trunkPort = await freeUdpPort();
  for (const id of NODE_IDS) {
    const env = await clusterNodeEnv({ id, dbUrl, trunkPort, extra: { RINGHOOK_RING_TIMEOUT: '6' } });
    const dataDir = env.RINGHOOK_DATA_DIR!;
    dataDirs.push(dataDir);
    serves.set(id, await startServe(env));
    nodes.set(id, nodeHandle(id, dataDir, env.RINGHOOK_PORT!));
  }
}, 300_000);

afterAll(async () => {
  await stopAllSipp();
  for (const s of serves.values()) await s.stop().catch(() => {});
  reapKilledNodes(dataDirs);
  await pg?.stop().catch(() => {});
  for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
}, 60_000);

interface Row {
  status: string;
  attempt: number;
  retry_at: string | null;
  node_id: string | null;
  attempts: string | null;
}

async function row(callId: string): Promise<Row | undefined> {
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {}, connect_timeout: 30 });
  try {
    const [r] = await sql.unsafe<Row[]>(
      'SELECT status, attempt, retry_at::text, node_id, attempts FROM calls WHERE call_id = $1',
      [callId],
    );
    return r;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

const phone = (scenario: 'ring-forever' | 'dtmf-1', calls: number): Promise<SippPhone> =>
  startSipp({ scenario, port: trunkPort, calls, timeoutSec: 240, traceMessages: true });

it('kill -9 of the node that placed the first call, between two attempts: the second happens exactly once, on the survivor, when due', async () => {
  const [account] = await createClusterAccounts(dbUrl, [{ phone: PHONE, ringAgain: 1, ringAgainAfter: 40 }]);
  const first = await phone('ring-forever', 1);
  const reply = await postAlert(nodes.get('node-b')!, account!, 'PL1! platinum crossed 1000');
  expect(reply.status).toBe(200);
  const callId = reply.callId!;
  const scheduled = await pollUntil(
    () => row(callId),
    (r) => r?.status === 'queued' && r.attempt === 2,
    60_000,
    200,
  );
  const atFirst = await first.stop();
  expect(sipDialogs(atFirst.messages).map((d) => d.to)).toEqual([PHONE]);
  // The first call was node-b's (it accepted the alert): it dies with the retry's timer.
  expect(scheduled!.node_id).toBe('node-b');
  expect(await serves.get('node-b')!.stop('SIGKILL')).toBeNull();
  serves.delete('node-b');
  // Two calls may come in: the second would be the double.
  const second = await phone('dtmf-1', 2);
  const done = await pollUntil(
    () => row(callId),
    (r) => r?.status === 'acknowledged',
    120_000,
    500,
  );
  // Nothing else is due for this alert; a double would have come within these seconds.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const atSecond = await second.stop();
  const dialogs = sipDialogs(atSecond.messages);
  expect(dialogs.map((d) => d.to)).toEqual([PHONE]);
  expect(dialogs[0]!.startedAt).toBeGreaterThanOrEqual(Number(scheduled!.retry_at) - 1_000);
  expect(done).toMatchObject({ attempt: 2, node_id: 'node-a' });
  expect(JSON.parse(done!.attempts!)).toEqual([{ at: expect.any(Number), outcome: 'no_answer' }]);
  console.log(
    `figures: ring again across nodes: second INVITE ${dialogs[0]!.startedAt - Number(scheduled!.retry_at)} ms after its due time, by node-a`,
  );
}, 300_000);
