// Two real `ringhook serve` nodes on one real PostgreSQL, each with its managed Asterisk, trunked to
// one SIPp phone that answers and holds each call until it gets a BYE. node-b is killed (kill -9)
// while its call talks: the phone gets its BYE within seconds (node-b's Asterisk watchdog), the
// survivor ends the call `interrupted` with one SMS, and a new alert for the same phone, sent to the
// survivor right after the kill, rings only once the first call is certainly over: its line stays
// held until RINGHOOK_MAX_CALL_SECONDS have passed since it was dialed.
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import {
  clusterNodeEnv,
  createClusterAccounts,
  reapKilledNodes,
  nodeHandle,
  pollUntil,
  postAlert,
  readCalls,
} from '../helpers/cluster.js';
import { byeWatch, inviteCount } from '../helpers/crash.js';
import { type PgCluster, startPostgres } from '../helpers/postgres.js';
import { freeUdpPort } from '../helpers/ports.js';
import { startRtpSink } from '../helpers/rtp-sink.js';
import { type SippPhone, startSipp } from '../helpers/sipp.js';
import { type Smsc, startSmsc } from '../helpers/smpp-server.js';
import { buildOnce, type ServeProcess, startServe } from '../soak/peers.js';

const MAX_CALL_S = 30;
const NODE_TIMEOUT_S = 3;
const LONG_MESSAGE = `BTCUSD crossed 97,500 on the 15 minute chart. ${'Momentum is strong and volume is rising. '.repeat(8)}`;

let pg: PgCluster;
let dbUrl: string;
let smsc: Smsc;
let phone: SippPhone;
const serves = new Map<string, ServeProcess>();
const envs = new Map<string, Record<string, string>>();
const dataDirs: string[] = [];

beforeAll(async () => {
  await provisionAsterisk();
  buildOnce();
  pg = await startPostgres();
  dbUrl = await pg.createDatabase('ringhook_crash');
  smsc = await startSmsc({ receiptDelayS: 0 });
  const trunkPort = await freeUdpPort();
  for (const id of ['node-a', 'node-b']) {
    const env = await clusterNodeEnv({
      id,
      dbUrl,
      trunkPort,
      smsc,
      extra: {
        RINGHOOK_NODE_TIMEOUT: String(NODE_TIMEOUT_S),
        RINGHOOK_MAX_CALL_SECONDS: String(MAX_CALL_S),
        RINGHOOK_RING_TIMEOUT: '15',
      },
    });
    dataDirs.push(env.RINGHOOK_DATA_DIR!);
    envs.set(id, env);
  }
  const sink = await startRtpSink(await freeUdpPort());
  phone = await startSipp({
    scenario: 'answer',
    port: trunkPort,
    calls: 2,
    timeoutSec: 300,
    keys: { rtp_sink_port: sink.port },
    traceMessages: true,
  });
  serves.set('node-a', await startServe(envs.get('node-a')!));
  serves.set('node-b', await startServe(envs.get('node-b')!));
}, 300_000);

afterAll(async () => {
  await phone?.stop().catch(() => {});
  for (const s of serves.values()) await s.stop().catch(() => {});
  reapKilledNodes(dataDirs);
  await smsc?.stop().catch(() => {});
  await pg?.stop().catch(() => {});
}, 60_000);

async function dialedAt(callId: string): Promise<number> {
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<Array<{ dialed_at: string }>>`SELECT dialed_at FROM calls WHERE call_id = ${callId}`;
    return Number(row!.dialed_at);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

it('kill -9 of one node during a talking call: BYE within seconds, interrupted with one SMS, the same phone rung again only once the call is certainly over', async () => {
  const [account] = await createClusterAccounts(dbUrl, [{ phone: '+14155550230', smsBackup: true }]);
  const a = nodeHandle('node-a', dataDirs[0]!, envs.get('node-a')!.RINGHOOK_PORT!);
  const b = nodeHandle('node-b', dataDirs[1]!, envs.get('node-b')!.RINGHOOK_PORT!);
  const first = await postAlert(b, account!, LONG_MESSAGE);
  expect(first.status).toBe(200);
  await pollUntil(
    () => readCalls(dbUrl),
    (calls) => calls.get(first.callId!)?.status === 'answered',
    60_000,
  );
  expect((await readCalls(dbUrl)).get(first.callId!)?.node_id).toBe('node-b');
  await new Promise((r) => setTimeout(r, 1_000));

  const byes = byeWatch(phone);
  const killedAt = Date.now();
  await serves.get('node-b')!.stop('SIGKILL');
  // The same phone, again, through the survivor, right after the kill.
  const second = await postAlert(a, account!, 'ETHUSD crossed 3,000');
  expect(second.status).toBe(200);
  const byeAt = await byes.next(killedAt, 30_000);
  expect(byeAt, 'the phone got a BYE').toBeDefined();
  console.log(`figures: node-b killed → BYE in ${byeAt! - killedAt} ms`);
  expect(byeAt! - killedAt).toBeLessThan((NODE_TIMEOUT_S + 3) * 1000);

  // The survivor ends the dead node's call interrupted, with one SMS.
  const calls = await pollUntil(
    () => readCalls(dbUrl),
    (c) =>
      c.get(first.callId!)?.status === 'interrupted' && !['sending', null].includes(c.get(first.callId!)!.sms_status),
    30_000,
  );
  expect(calls.get(first.callId!)?.status).toBe('interrupted');
  expect(
    smsc.events().filter((e) => e.event === 'message' && String(e.destination_addr).endsWith('4155550230')),
  ).toHaveLength(1);

  // The second call rings only once the first is certainly over: the bound has passed since it was dialed.
  const firstDialedAt = await dialedAt(first.callId!);
  const end = Date.now() + (MAX_CALL_S + 30) * 1000;
  while (Date.now() < end && (await inviteCount(phone)) < 2) await new Promise((r) => setTimeout(r, 50));
  const invitedAt = Date.now();
  byes.stop();
  expect(await inviteCount(phone)).toBe(2);
  console.log(
    `figures: second INVITE ${invitedAt - firstDialedAt} ms after the first call was dialed (bound ${MAX_CALL_S} s)`,
  );
  expect(invitedAt).toBeGreaterThan(byeAt!);
  expect(invitedAt - firstDialedAt).toBeGreaterThanOrEqual(MAX_CALL_S * 1000);
  const row = (await readCalls(dbUrl)).get(second.callId!);
  expect(row?.node_id).toBe('node-a');
}, 300_000);
