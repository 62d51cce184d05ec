// A rolling upgrade of two nodes on one real PostgreSQL, as an operator would do it: both run the
// previous release (built from git history), alerts go to both the whole time; this version's CLI
// is run beside them (it migrates the shared database: 009 is an expand migration), then one node
// at a time is stopped and started on this version. No 500 is ever answered, every alert answered
// 200 is kept, and the old code goes on working on the newer schema. An old node started again on
// it afterwards is refused with one clear line (it predates the rule).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  CLUSTER_SECRET_KEY,
  type ClusterAccount,
  nodeHandle,
  type NodeHandle,
  postAlert,
  readCalls,
} from '../helpers/cluster.js';
import { request } from '../helpers/https-client.js';
import { type PgCluster, startPostgres } from '../helpers/postgres.js';
import { freeTcpPort } from '../helpers/ports.js';
import { buildPreviousRelease, hasPreviousRelease } from '../helpers/previous-release.js';
import { makeDataDir } from '../helpers/service.js';
import { buildOnce, type ServeProcess, startServe } from '../soak/peers.js';
import { PG_SCHEMA_VERSION } from '../../src/store/postgres/migrations.js';
/** The previous release (0830518) is at schema 8. */
const PREVIOUS_RELEASE_SCHEMA = 8;

let pg: PgCluster;
let dbUrl: string;
let previousBin: string;
const envs = new Map<string, Record<string, string>>();
const serves = new Map<string, ServeProcess>();

const available = hasPreviousRelease();

beforeAll(async () => {
  if (!available) return;
  buildOnce();
  previousBin = path.join(buildPreviousRelease(), 'bin', 'ringhook.js');
  pg = await startPostgres();
  dbUrl = await pg.createDatabase('ringhook_upgrade');
  for (const id of ['node-a', 'node-b']) {
    envs.set(id, {
      RINGHOOK_DATA_DIR: makeDataDir(`rh-up-${id}-`),
      RINGHOOK_HOST: '127.0.0.1',
      RINGHOOK_PORT: String(await freeTcpPort()),
      RINGHOOK_TELEPHONY: 'off',
      RINGHOOK_DATABASE_URL: dbUrl,
      RINGHOOK_SECRET_KEY: CLUSTER_SECRET_KEY,
      RINGHOOK_NODE_ID: id,
    });
  }
}, 600_000);

afterAll(async () => {
  for (const s of serves.values()) await s.stop().catch(() => {});
  await pg?.stop().catch(() => {});
}, 60_000);

async function schema(): Promise<{ version: number; nodes: Array<{ node_id: string; version: string | null }> }> {
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<Array<{ version: number }>>`SELECT version FROM schema_version`;
    const columns =
      await sql`SELECT 1 FROM information_schema.columns WHERE table_name = 'nodes' AND column_name = 'version'`;
    const nodes = columns.length
      ? await sql<
          Array<{ node_id: string; version: string | null }>
        >`SELECT node_id, version FROM nodes ORDER BY node_id`
      : [];
    return { version: row!.version, nodes: [...nodes] };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

it.skipIf(!available)(
  'two nodes upgraded one at a time under a stream of alerts: the old code works on the migrated schema, no 500, nothing lost',
  async () => {
    const a = envs.get('node-a')!;
    const b = envs.get('node-b')!;
    serves.set('node-a', await startServe(a, 60_000, [], previousBin));
    serves.set('node-b', await startServe(b, 60_000, [], previousBin));
    expect((await schema()).version).toBe(PREVIOUS_RELEASE_SCHEMA);
    // Accounts made with the previous release's CLI (this version's would migrate the database).
    const accounts: ClusterAccount[] = [0, 1, 2, 3].map((i) => {
      const r = spawnSync(
        process.execPath,
        [previousBin, 'account', 'create', '--phone', `+1415666000${i}`, '--plan', 'premium', '--json'],
        {
          env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...a },
          encoding: 'utf8',
        },
      );
      expect(r.status, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      return { userId: j.user_id, apiKey: j.api_key, phone: j.phone };
    });
    const handle = (id: string): NodeHandle =>
      nodeHandle(id, envs.get(id)!.RINGHOOK_DATA_DIR!, envs.get(id)!.RINGHOOK_PORT!);

    // The stream: both nodes, in turn, every 0.4 s (premium: 10 a minute per account, 4 accounts).
    const statuses: Array<{ node: string; status: number }> = [];
    const answered = new Map<string, string>();
    let sending = true;
    let n = 0;
    const load = (async () => {
      while (sending) {
        const node = n % 2 === 0 ? 'node-a' : 'node-b';
        const message = `rolling alert ${n}`;
        const res = await postAlert(handle(node), accounts[Math.floor(n / 2) % accounts.length]!, message);
        statuses.push({ node, status: res.status });
        if (res.status === 200) answered.set(res.callId!, message);
        n++;
        await new Promise((r) => setTimeout(r, 400));
      }
    })();
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await pause(2_000);

    // This version's CLI first, beside the two old nodes: it migrates the shared database (009 is an
    // expand migration, which the old code works on), and both old nodes keep answering 200.
    const listed = runCli(['account', 'list', '--json'], a);
    expect(listed.code, listed.stderr).toBe(0);
    expect((listed.json as unknown[]).length).toBe(accounts.length);
    expect((await schema()).version).toBe(PG_SCHEMA_VERSION);
    const migratedAt = statuses.length;
    await pause(3_000);
    // Then node-b: stopped, started on this version.
    await serves.get('node-b')!.stop();
    serves.set('node-b', await startServe(b));
    await pause(3_000);
    // The new node's /healthz says which node is still to be upgraded.
    const health = await request(`${handle('node-b').base}/healthz`, { method: 'GET', ca: handle('node-b').ca });
    expect(health.status).toBe(200);
    const versions = (
      health.json.cluster.nodes as Array<{ node: string; version: string | null; schema: number | null }>
    ).map((x) => [x.node, x.version, x.schema]);
    expect(versions).toEqual([
      ['node-a', null, null],
      ['node-b', '0.1.0', PG_SCHEMA_VERSION],
    ]);
    // node-a still runs the previous release, on the migrated schema: it kept answering 200.
    const oldOnNew = statuses.slice(migratedAt).filter((s) => s.node === 'node-a');
    expect(oldOnNew.length).toBeGreaterThan(4);
    expect(oldOnNew.every((s) => s.status === 200)).toBe(true);

    // Then node-a.
    await serves.get('node-a')!.stop();
    serves.set('node-a', await startServe(a));
    await pause(3_000);
    sending = false;
    await load;

    const count = (code: number) => statuses.filter((s) => s.status === code).length;
    console.log(
      `figures: ${statuses.length} alerts over two nodes: ${count(200)} × 200 (${oldOnNew.length} to an old node on the migrated schema), ${count(0)} refused connections during restarts, ${statuses.filter((s) => s.status >= 500).length} × 5xx`,
    );
    expect(statuses.filter((s) => s.status >= 500)).toEqual([]);
    expect(statuses.filter((s) => ![200, 0].includes(s.status))).toEqual([]);
    const rows = await readCalls(dbUrl);
    for (const [callId, message] of answered) expect(rows.get(callId)?.message, callId).toBe(message);
    // Both nodes say which version and schema they run.
    expect((await schema()).nodes.map((x) => [x.node_id, x.version])).toEqual([
      ['node-a', '0.1.0'],
      ['node-b', '0.1.0'],
    ]);

    // The previous release started again on the migrated schema: refused with one line, nothing changed.
    await serves.get('node-a')!.stop();
    serves.delete('node-a');
    const old = spawnSync(process.execPath, [previousBin, 'serve'], {
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...a },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(old.status).toBe(1);
    expect(old.stderr).toContain(
      `has schema version ${PG_SCHEMA_VERSION}, newer than this ringhook understands (${PREVIOUS_RELEASE_SCHEMA})`,
    );
    expect((await schema()).version).toBe(PG_SCHEMA_VERSION);
  },
  300_000,
);
