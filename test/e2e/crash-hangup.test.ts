// kill -9 of a real `ringhook serve` while its call is talking to a real SIPp phone that holds the
// call until it gets a BYE. What the person on the phone lives through:
// - serve killed: its Asterisk's watchdog hangs the call up (BYE within seconds) and stops Asterisk;
//   the restarted serve ends the call `interrupted` with one SMS; a new alert for the same phone
//   rings only after the first call is over. Measured over several runs (p50/max in RELIABILITY.md).
// - the same in a PID namespace with tini as PID 1 and bin/ringhook-supervise, as the container runs.
// - serve and its watchdog both killed: Asterisk itself hangs the call up at RINGHOOK_MAX_CALL_SECONDS
//   (TIMEOUT(absolute) set at originate); or the next serve, finding the leftover Asterisk, hangs its
//   calls up before stopping it.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { asteriskCli, provisionAsterisk } from '../helpers/asterisk.js';
import { killLeftoverAsterisk, nodeHandle, postAlert } from '../helpers/cluster.js';
import { alive, asteriskPid, byeWatch, descendants, inviteCount, percentile, watchdogOf } from '../helpers/crash.js';
import { freeTcpPort, freeUdpPort } from '../helpers/ports.js';
import { startRtpSink } from '../helpers/rtp-sink.js';
import { makeDataDir, managedTelephonyEnv } from '../helpers/service.js';
import { type SippPhone, startSipp, stopAllSipp } from '../helpers/sipp.js';
import { type Smsc, startSmsc } from '../helpers/smpp-server.js';
import { buildOnce, REPO_ROOT, runCliJson, type ServeProcess, startServe } from '../soak/peers.js';

const RUNS = Number(process.env.RINGHOOK_CRASH_HANGUP_RUNS ?? 3);
/** The goal the README promises: a phone gets its BYE within this after serve's death. */
const BOUND_MS = 10_000;
// About 25 s of speech: the call is still talking when serve is killed.
const LONG_MESSAGE = `BTCUSD crossed 97,500 on the 15 minute chart. ${'Momentum is strong and volume is rising. '.repeat(8)}`;

let smsc: Smsc;
const serves: ServeProcess[] = [];
const dataDirs: string[] = [];
const killToBye: number[] = [];
/**
 * The serve a passing run restarted, handed to the next test as the serve it kills: each test still
 * kills a serve and starts the next, but the runs and the leftover-Asterisk test share one chain (a
 * serve and an Asterisk start fewer per test handed one, ~4.5 s of CPU each). The next test has its own
 * account, number and phone; a run that fails hands nothing on, and the next starts its own serve.
 */
let handedOn: { s: Setup; serve: ServeProcess } | undefined;

beforeAll(async () => {
  await provisionAsterisk();
  buildOnce();
  smsc = await startSmsc({ receiptDelayS: 0 });
}, 300_000);

afterEach(async () => {
  await stopAllSipp();
  const kept = handedOn?.serve;
  await Promise.all(serves.splice(0).map((s) => (s === kept ? undefined : s.stop())));
  if (kept) serves.push(kept);
});

afterAll(async () => {
  await Promise.all(serves.splice(0).map((s) => s.stop()));
  for (const dir of dataDirs) killLeftoverAsterisk(dir);
  await smsc?.stop();
  if (killToBye.length) {
    console.log(
      `figures: kill -9 → BYE over ${killToBye.length} runs: p50 ${percentile(killToBye, 50)} ms, max ${Math.max(...killToBye)} ms (${killToBye.join(', ')})`,
    );
  }
});

interface Setup {
  env: Record<string, string>;
  dataDir: string;
  trunkPort: number;
  phone: SippPhone;
  number: string;
  account: { userId: string; apiKey: string };
}

/** A data dir, an account and an answering phone; `on`: the running serve's data dir, env and trunk. */
async function setup(extra: Record<string, string> = {}, number = '+14155550170', on?: Setup): Promise<Setup> {
  const trunkPort = on?.trunkPort ?? (await freeUdpPort());
  const dataDir = on?.dataDir ?? makeDataDir('rh-hangup-');
  if (!on) dataDirs.push(dataDir);
  const env = on?.env ?? {
    ...(await managedTelephonyEnv(trunkPort)),
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(await freeTcpPort()),
    RINGHOOK_SMS_GATEWAY: 'smpp',
    RINGHOOK_SMPP_URL: smsc.url(),
    RINGHOOK_SMS_FROM: 'ringhook',
    ...extra,
  };
  const created = runCliJson(['account', 'create', '--phone', number, '--plan', 'premium', '--sms-backup', 'on'], env);
  const sink = await startRtpSink(await freeUdpPort());
  const phone = await startSipp({
    scenario: 'answer',
    port: trunkPort,
    calls: 2,
    timeoutSec: 300,
    keys: { rtp_sink_port: sink.port },
    traceMessages: true,
  });
  return { env, dataDir, trunkPort, phone, number, account: { userId: created.user_id, apiKey: created.api_key } };
}

function callRow(dataDir: string, callId: string): { status: string; sms_status: string | null } | undefined {
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT status, sms_status FROM calls WHERE call_id = ?').get(callId) as never;
  } finally {
    db.close();
  }
}

async function until<T>(read: () => T, done: (v: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function serve(s: Setup, inside: string[] = []): Promise<ServeProcess> {
  const p = await startServe(s.env, 90_000, inside);
  serves.push(p);
  return p;
}

/** Posts the long alert and waits until the phone has answered it. */
async function talkingCall(s: Setup): Promise<string> {
  const alert = await postAlert(
    nodeHandle('n', s.dataDir, s.env.RINGHOOK_PORT!),
    { ...s.account, phone: s.number },
    LONG_MESSAGE,
  );
  expect(alert.status).toBe(200);
  await until(
    () => callRow(s.dataDir, alert.callId!)?.status,
    (st) => st === 'answered',
    60_000,
    'the call is answered',
  );
  await new Promise((r) => setTimeout(r, 1_000)); // the message is being spoken
  return alert.callId!;
}

/**
 * After the kill: the restarted serve ends the call `interrupted` with one SMS, and a new alert rings
 * after the BYE. Returns that second call's id.
 */
async function afterRestart(s: Setup, callId: string, byeAt: number, restarted = false): Promise<string> {
  if (!restarted) {
    const smsBefore = smsc
      .events()
      .filter((e) => e.event === 'message' && String(e.destination_addr).endsWith(s.number.slice(1))).length;
    expect(smsBefore).toBe(0);
    await serve(s);
  }
  const row = await until(
    () => callRow(s.dataDir, callId),
    (r) => r?.status === 'interrupted' && r.sms_status !== null && r.sms_status !== 'sending',
    30_000,
    'interrupted with its SMS',
  );
  expect(row!.status).toBe('interrupted');
  // A status past `sending` may be `waiting` (a first try that found no gateway yet, tried again
  // soon): the SMS is waited for at the SMSC, then there must be exactly one.
  await smsc.waitForEvent((e) => e.event === 'message' && String(e.destination_addr).endsWith(s.number.slice(1)), {
    timeoutMs: 15_000,
  });
  const texts = smsc
    .events()
    .filter((e) => e.event === 'message' && String(e.destination_addr).endsWith(s.number.slice(1)));
  expect(texts).toHaveLength(1);
  // The same phone, again: it rings (a second INVITE) only after the first call got its BYE.
  const second = await postAlert(
    nodeHandle('n', s.dataDir, s.env.RINGHOOK_PORT!),
    { ...s.account, phone: s.number },
    'ETHUSD crossed 3,000',
  );
  expect(second.status).toBe(200);
  const end = Date.now() + 30_000;
  while (Date.now() < end && (await inviteCount(s.phone)) < 2) await new Promise((r) => setTimeout(r, 20));
  const invitedAt = Date.now();
  expect(await inviteCount(s.phone)).toBe(2);
  expect(invitedAt).toBeGreaterThan(byeAt);
  return second.callId!;
}

/**
 * Hands the restarted serve on to the next run once its second call is over (hung up here, so that
 * no BYE of it reaches the next run's phone on the same trunk port) and its phone has left.
 */
async function handOn(s: Setup, serve: ServeProcess, secondCallId: string): Promise<void> {
  const astPid = asteriskPid(s.dataDir);
  if (astPid === undefined) return;
  await asteriskCli({ pid: astPid, runDir: path.join(s.dataDir, 'asterisk') }, 'channel request hangup all');
  const over = await Promise.race([
    s.phone.done.then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), 10_000)),
  ]);
  const final = await until(
    () => callRow(s.dataDir, secondCallId)?.status,
    (st) => st !== undefined && !['queued', 'dialing', 'ringing', 'answered'].includes(st),
    10_000,
    'the second call ended',
  ).catch(() => undefined);
  if (over && final !== undefined) handedOn = { s, serve };
}

for (let run = 1; run <= RUNS; run++) {
  it(`run ${run}: kill -9 of serve during a talking call → BYE within ${BOUND_MS / 1000} s, Asterisk stopped, then interrupted with one SMS`, async () => {
    const handed = handedOn;
    handedOn = undefined;
    const s = await setup({}, `+1415555018${run}`, handed?.s);
    const first = handed?.serve ?? (await serve(s));
    const astPid = asteriskPid(s.dataDir)!;
    expect(watchdogOf(first.child.pid!)).toBeDefined();
    const callId = await talkingCall(s);
    const byes = byeWatch(s.phone);
    const killedAt = Date.now();
    await first.stop('SIGKILL');
    const byeAt = await byes.next(killedAt, 30_000);
    byes.stop();
    expect(byeAt, 'the phone got a BYE').toBeDefined();
    killToBye.push(byeAt! - killedAt);
    expect(byeAt! - killedAt).toBeLessThan(BOUND_MS);
    await until(
      () => alive(astPid),
      (a) => !a,
      10_000,
      'the orphaned Asterisk stops',
    );
    const second = await afterRestart(s, callId, byeAt!);
    // The last run's serve goes to the next test, which kills it too.
    await handOn(s, serves.at(-1)!, second);
  }, 240_000);
}

it('serve and its watchdog both killed: the next serve hangs up the leftover Asterisk’s calls before stopping it', async () => {
  const handed = handedOn;
  handedOn = undefined;
  const s = await setup({}, '+14155550192', handed?.s);
  const first = handed?.serve ?? (await serve(s));
  const astPid = asteriskPid(s.dataDir)!;
  const callId = await talkingCall(s);
  const byes = byeWatch(s.phone);
  process.kill(watchdogOf(first.child.pid!)!, 'SIGKILL');
  await first.stop('SIGKILL');
  await new Promise((r) => setTimeout(r, 3_000));
  expect(byes.times).toEqual([]);
  expect(alive(astPid)).toBe(true);
  const restartAt = Date.now();
  const second = await serve(s);
  const byeAt = await byes.next(restartAt, 5_000);
  byes.stop();
  expect(byeAt, 'the phone got a BYE').toBeDefined();
  console.log(`figures: leftover Asterisk: BYE ${byeAt! - restartAt} ms after the new serve was started`);
  expect(second.output()).toMatch(/leftover Asterisk stopped.*graceful/);
  expect(alive(astPid)).toBe(false);
  await afterRestart(s, callId, byeAt!, true);
}, 240_000);

it('in a PID namespace with tini as PID 1 (the container): kill -9 of serve → BYE within the bound, then the container ends with serve status', async () => {
  const s = await setup({}, '+14155550190');
  const container = await serve(s, [
    'unshare',
    '--pid',
    '--fork',
    '--mount-proc',
    'tini',
    '--',
    path.join(REPO_ROOT, 'bin', 'ringhook-supervise'),
  ]);
  const node = descendants(container.child.pid!).find(
    (p) => p.cmdline.includes('ringhook.js serve') && !p.cmdline.includes('supervise'),
  );
  expect(node).toBeDefined();
  const callId = await talkingCall(s);
  const byes = byeWatch(s.phone);
  const killedAt = Date.now();
  process.kill(node!.pid, 'SIGKILL');
  const byeAt = await byes.next(killedAt, 30_000);
  byes.stop();
  expect(byeAt, 'the phone got a BYE').toBeDefined();
  killToBye.push(byeAt! - killedAt);
  expect(byeAt! - killedAt).toBeLessThan(BOUND_MS);
  // The container (tini) ends once Asterisk has stopped, with serve's status (128 + 9): a restart policy starts it again.
  const code = await Promise.race([container.exited, new Promise((r) => setTimeout(() => r('still running'), 20_000))]);
  expect(code).toBe(137);
  serves.splice(serves.indexOf(container), 1);
  await afterRestart(s, callId, byeAt!);
}, 240_000);

it('serve and its watchdog both killed: Asterisk itself hangs the call up at RINGHOOK_MAX_CALL_SECONDS', async () => {
  const s = await setup({ RINGHOOK_MAX_CALL_SECONDS: '20', RINGHOOK_RING_TIMEOUT: '10' }, '+14155550191');
  const first = await serve(s);
  const postedAt = Date.now();
  const callId = await talkingCall(s);
  const byes = byeWatch(s.phone);
  process.kill(watchdogOf(first.child.pid!)!, 'SIGKILL');
  const killedAt = Date.now();
  await first.stop('SIGKILL');
  // Nobody but Asterisk is left to end the call: no BYE for a while, then one at the bound.
  const byeAt = await byes.next(killedAt, 40_000);
  byes.stop();
  expect(byeAt, 'the phone got a BYE').toBeDefined();
  expect(byeAt! - killedAt).toBeGreaterThan(5_000);
  expect(byeAt! - postedAt).toBeLessThan(20_000 + 3_000);
  console.log(
    `figures: bound 20 s; BYE ${byeAt! - postedAt} ms after the alert was sent, ${byeAt! - killedAt} ms after the kill`,
  );
  await afterRestart(s, callId, byeAt!);
}, 240_000);
