// Several `ringhook serve` nodes on one throwaway PostgreSQL, for the cluster tests: accounts made
// straight in the shared store (the same secret key as the nodes), the calls read back from
// PostgreSQL, and the webhook posted to one node or another.
import fs from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import type { Account } from '../../src/core/account.js';
import type { NewAccount } from '../../src/core/records.js';
import { openPostgresStore } from '../../src/store/postgres/index.js';
import { SecretBox } from '../../src/store/secret-box.js';
import { type Reply, request } from './https-client.js';
import { serveChildEnv } from './service.js';

/** The key every node and the test share (RINGHOOK_SECRET_KEY). */
export const CLUSTER_SECRET_KEY = 'c1'.repeat(32);

/**
 * A cluster node's `ringhook serve` environment: its own data dir, ports and Asterisk, the shared
 * database and trunk, a node timeout of 3 s (the tests kill nodes); with `smsc`, SMS backup through it.
 */
export function clusterNodeEnv(options: {
  id: string;
  dbUrl: string;
  trunkPort: number;
  smsc?: { url(): string };
  extra?: Record<string, string>;
}): Promise<Record<string, string>> {
  return serveChildEnv({
    dataDirPrefix: `rh-${options.id}-`,
    trunkPort: options.trunkPort,
    smsc: options.smsc,
    extra: {
      RINGHOOK_DATABASE_URL: options.dbUrl,
      RINGHOOK_SECRET_KEY: CLUSTER_SECRET_KEY,
      RINGHOOK_NODE_ID: options.id,
      RINGHOOK_NODE_TIMEOUT: '3',
      ...options.extra,
    },
  });
}

/** After the nodes' stop: the Asterisk a killed node left running is killed too, and said. */
export function reapKilledNodes(dataDirs: string[]): void {
  for (const dir of dataDirs) {
    const pids = killLeftoverAsterisk(dir);
    if (pids.length > 0) console.log(`a killed node left its Asterisk running (${dir}): SIGKILL to ${pids.join(', ')}`);
  }
}

export const IN_FLIGHT = new Set(['dialing', 'ringing', 'answered']);
export const FINAL = new Set([
  'completed',
  'acknowledged',
  'unconfirmed',
  'voicemail',
  'busy',
  'no_answer',
  'unreachable',
  'rejected',
  'failed',
  'interrupted',
  'expired',
]);

export interface ClusterAccount {
  userId: string;
  apiKey: string;
  phone: string;
}

/** Makes accounts in the PostgreSQL database at `url` (as the CLI would: no node). */
export async function createClusterAccounts(
  url: string,
  specs: Array<
    { phone: string; plan?: 'free' | 'premium'; smsBackup?: boolean } & Pick<NewAccount, 'ringAgain' | 'ringAgainAfter'>
  >,
): Promise<ClusterAccount[]> {
  const store = await openPostgresStore({
    url,
    nodeId: null,
    secrets: new SecretBox(Buffer.from(CLUSTER_SECRET_KEY, 'hex'), 'the cluster test key'),
    poolSize: 4,
  });
  try {
    const out: ClusterAccount[] = [];
    for (const s of specs) {
      const a: Account = await store.accounts.create({
        ...s,
        phone: s.phone,
        plan: s.plan ?? 'premium',
        smsBackup: s.smsBackup ?? false,
        name: '',
      });
      out.push({ userId: a.userId, apiKey: a.apiKey, phone: a.phone });
    }
    return out;
  } finally {
    await store.close();
  }
}

export interface CallRow {
  call_id: string;
  status: string;
  user_id: string;
  message: string;
  phone: string | null;
  sms_status: string | null;
  carrier: string;
  node_id: string | null;
  accepted_by: string | null;
  /** The reason in words, and its technical detail. */
  error: string | null;
  reason_detail: string | null;
}

/**
 * Every accepted call, straight from PostgreSQL. The test's own connection waits as long as
 * postgres.js does by default (30 s): beside a loaded run a new connection once took over 5 s.
 */
export async function readCalls(url: string): Promise<Map<string, CallRow>> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 30 });
  try {
    const rows = await sql.unsafe<CallRow[]>(
      'SELECT call_id, status, user_id, message, phone, sms_status, coalesce(carried_by, call_id) AS carrier, node_id, accepted_by, error, reason_detail FROM calls WHERE accepted = 1 ORDER BY id',
    );
    return new Map(rows.map((r) => [r.call_id, { ...r }]));
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Every call with an SMS outcome still to come: not final, or missed (busy, interrupted…) without a settled SMS. */
export function unsettled(rows: Iterable<CallRow>, missed: Set<string>): CallRow[] {
  return [...rows].filter(
    (c) =>
      !FINAL.has(c.status) ||
      (missed.has(c.status) && (c.sms_status === null || c.sms_status === 'sending' || c.sms_status === 'waiting')),
  );
}

/** Polls `read` until `done` (bounded); returns the last value read. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, everyMs));
    value = await read();
  }
  return value;
}

export interface NodeHandle {
  id: string;
  base: string;
  ca: string;
}

export function nodeHandle(id: string, dataDir: string, port: string): NodeHandle {
  return {
    id,
    base: `https://127.0.0.1:${port}`,
    ca: fs.readFileSync(path.join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8'),
  };
}

/** POSTs an alert to a node's webhook; a failed request (the node is gone) is status 0. */
export async function postAlert(
  node: NodeHandle,
  account: ClusterAccount,
  message: string,
): Promise<{ status: number; callId?: string }> {
  try {
    const res: Reply = await request(`${node.base}/webhook/${account.userId}/${account.apiKey}`, {
      method: 'POST',
      body: message,
      headers: { 'content-type': 'text/plain' },
      ca: node.ca,
    });
    return { status: res.status, ...(res.status === 200 && { callId: String(res.json.call_id) }) };
  } catch {
    return { status: 0 };
  }
}

/** Runs `tasks` with at most `width` at once. */
export async function inBatches<T>(tasks: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]!();
      }
    }),
  );
  return results;
}

/**
 * A `ringhook serve` killed with SIGKILL leaves its managed Asterisk running (the next serve on the
 * same data dir stops it; a node that stays dead never does): SIGKILL to the Asterisk processes
 * whose command line names this data dir, by pid. Returns the pids killed.
 */
export function killLeftoverAsterisk(dataDir: string): number[] {
  const killed: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    let stat: string;
    try {
      cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // A zombie (its parent, init in a container, does not reap it) holds nothing any more.
    if (/^\d+ \(.*\) Z/.test(stat)) continue;
    if (!cmdline.includes('asterisk') || !cmdline.includes(`${dataDir}/`)) continue;
    try {
      process.kill(Number(entry), 'SIGKILL');
      killed.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return killed;
}
