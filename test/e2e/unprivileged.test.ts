// serve as the shipped systemd unit runs it: an unprivileged user (User=), no capabilities
// (CapabilityBoundingSet=), NoNewPrivileges. The same settings are applied here with setpriv, no
// systemd needed. serve is not uid 0, and its managed Asterisk still runs from the root file system,
// inside a user namespace, and places a call to a SIPp phone.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { request } from '../helpers/https-client.js';
import { freeTcpPort, freeUdpPort } from '../helpers/ports.js';
import { managedTelephonyEnv } from '../helpers/service.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';
import { waitFor } from '../helpers/wait.js';
import { alive, byeWatch } from '../helpers/crash.js';
import { startRtpSink } from '../helpers/rtp-sink.js';

// The unit's User= in this test: a user every Debian machine has.
const USER = 'nobody';
const GROUP = 'nogroup';
const UNIT_SETTINGS = [
  '--reuid',
  USER,
  '--regid',
  GROUP,
  '--clear-groups',
  '--inh-caps=-all',
  '--bounding-set=-all',
  '--no-new-privs',
];

let work: string;
let serve: ChildProcess | undefined;
let output = '';

/** A uid line of /proc/PID/status: real, effective, saved, filesystem. */
function uids(pid: number): number[] {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Uid:'))!;
  return line.split(/\s+/).slice(1).map(Number);
}

function descendants(pid: number): number[] {
  const children = fs
    .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  return children.flatMap((c) => [c, ...descendants(c)]);
}

beforeAll(async () => {
  const runtime = await provisionAsterisk();
  if (runtime.kind !== 'rootfs') throw new Error('this test runs Asterisk from the provisioned root file system');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-unpriv-'));
  fs.chmodSync(work, 0o755);
  // An installation the user can read, wherever the checkout is (as /opt/ringhook in the unit).
  const install = path.join(work, 'opt');
  fs.mkdirSync(install);
  for (const part of ['bin', 'dist', 'asterisk', 'scripts', 'package.json', 'node_modules'])
    execFileSync('cp', ['-a', path.join(REPO_ROOT, part), install]);
  // Provisioned for the user, as the unit's install steps say (a copy of the cached tree, so the
  // build is not repeated): provision-asterisk.sh finds it complete and gives it to the user.
  const cache = path.join(work, 'cache');
  fs.mkdirSync(cache);
  execFileSync('cp', ['-a', runtime.rootfs, path.join(cache, 'asterisk-rootfs')]);
  const printed = execFileSync('bash', [path.join(REPO_ROOT, 'scripts/provision-asterisk.sh')], {
    env: { ...process.env, RINGHOOK_CACHE_DIR: cache, RINGHOOK_ASTERISK_MODE: 'rootfs', RINGHOOK_ASTERISK_OWNER: USER },
    encoding: 'utf8',
  });
  expect(printed.trim()).toBe(path.join(cache, 'asterisk-rootfs'));
  // The unit's StateDirectory=: the data dir belongs to the user.
  const dataDir = path.join(work, 'data');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  execFileSync('chown', [`${USER}:${GROUP}`, dataDir]);

  const trunkPort = await freeUdpPort();
  const env = {
    ...(await managedTelephonyEnv(trunkPort)),
    RINGHOOK_CACHE_DIR: cache,
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(await freeTcpPort()),
    RINGHOOK_RING_TIMEOUT: '5',
  };
  serve = spawn(
    'setpriv',
    [...UNIT_SETTINGS, '--', process.execPath, path.join(install, 'bin', 'ringhook.js'), 'serve'],
    {
      env: { PATH: process.env.PATH!, HOME: dataDir, ...env },
      cwd: dataDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  serve.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  serve.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  await waitFor(
    'serve to listen',
    () => {
      if (serve!.exitCode !== null) throw new Error(`serve exited ${serve!.exitCode}:\n${output}`);
      return output.includes('ringhook is listening') ? true : undefined;
    },
    60_000,
  );
  Object.assign(state, { env, trunkPort, dataDir });
}, 300_000);

const state = {} as { env: Record<string, string>; trunkPort: number; dataDir: string };

afterAll(async () => {
  await stopAllSipp();
  if (serve && serve.exitCode === null && serve.signalCode === null) {
    const exited = new Promise((r) => serve!.once('exit', r));
    serve.kill('SIGTERM');
    await exited;
  }
  if (work) fs.rmSync(work, { recursive: true, force: true });
}, 60_000);

it('serve runs as the unprivileged user, and so does its Asterisk (from a user namespace)', () => {
  const nobody = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }).trim());
  expect(uids(serve!.pid!)).toEqual([nobody, nobody, nobody, nobody]);
  const asterisk = descendants(serve!.pid!).filter(
    (pid) => fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'asterisk',
  );
  expect(asterisk).toHaveLength(1);
  // Root only inside a user namespace of its own, which maps that one uid: the user outside it.
  expect(uids(asterisk[0]!)).toEqual([nobody, nobody, nobody, nobody]);
  expect(fs.readlinkSync(`/proc/${asterisk[0]}/ns/user`)).not.toBe(fs.readlinkSync('/proc/self/ns/user'));
  expect(fs.readFileSync(`/proc/${asterisk[0]}/uid_map`, 'utf8').trim().split(/\s+/).map(Number)).toEqual([
    0,
    nobody,
    1,
  ]);
});

/** The CLI as the same user (as root it could leave database files the user cannot write). */
function cliAsUser(args: string[]): string {
  return execFileSync(
    'setpriv',
    [...UNIT_SETTINGS, '--', process.execPath, path.join(work, 'opt', 'bin', 'ringhook.js'), ...args],
    {
      env: { PATH: process.env.PATH!, HOME: state.dataDir, ...state.env },
      encoding: 'utf8',
    },
  );
}

it('an alert is called through that Asterisk', async () => {
  const { env, trunkPort, dataDir } = state;
  const account = JSON.parse(
    cliAsUser(['account', 'create', '--phone', '+14155550123', '--plan', 'premium', '--json']),
  ) as {
    user_id: string;
    api_key: string;
  };
  const phone = await startSipp({ scenario: 'busy', port: trunkPort, timeoutSec: 30 });
  const ca = fs.readFileSync(path.join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8');
  const res = await request(`https://127.0.0.1:${env.RINGHOOK_PORT}/webhook/${account.user_id}/${account.api_key}`, {
    method: 'POST',
    body: 'AAPL crossed 190',
    ca,
  });
  expect(res.status, res.text).toBe(200);
  const calls = () =>
    JSON.parse(cliAsUser(['calls', '--json'])) as Array<{ call_id: string; status: string; sip_code: number | null }>;
  const call = await waitFor(
    'the call to end busy',
    () => calls().find((c) => c.call_id === res.json.call_id && c.status === 'busy'),
    30_000,
  );
  expect(call.sip_code).toBe(486);
  expect((await phone.done).successfulCalls).toBe(1);
}, 60_000);

it('kill -9 of serve during a talking call: the watchdog, unprivileged too, hangs it up (a BYE within 10 s) and stops Asterisk', async () => {
  const { env, trunkPort, dataDir } = state;
  const account = JSON.parse(
    cliAsUser(['account', 'create', '--phone', '+14155550124', '--plan', 'premium', '--json']),
  ) as {
    user_id: string;
    api_key: string;
  };
  const sink = await startRtpSink(await freeUdpPort());
  const phone = await startSipp({
    scenario: 'answer',
    port: trunkPort,
    timeoutSec: 120,
    keys: { rtp_sink_port: sink.port },
    traceMessages: true,
  });
  const asterisk = descendants(serve!.pid!).find(
    (pid) => fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'asterisk',
  )!;
  const ca = fs.readFileSync(path.join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8');
  const res = await request(`https://127.0.0.1:${env.RINGHOOK_PORT}/webhook/${account.user_id}/${account.api_key}`, {
    method: 'POST',
    body: `BTCUSD crossed 97,500. ${'Momentum is strong and volume is rising. '.repeat(8)}`,
    ca,
  });
  expect(res.status, res.text).toBe(200);
  const calls = () => JSON.parse(cliAsUser(['calls', '--json'])) as Array<{ call_id: string; status: string }>;
  await waitFor(
    'the call to be answered',
    () => calls().find((c) => c.call_id === res.json.call_id && c.status === 'answered'),
    30_000,
  );
  await new Promise((r) => setTimeout(r, 1_000));
  const byes = byeWatch(phone);
  const killedAt = Date.now();
  serve!.kill('SIGKILL');
  const byeAt = await byes.next(killedAt, 20_000);
  byes.stop();
  expect(byeAt, 'the phone got a BYE').toBeDefined();
  console.log(`figures: unprivileged serve killed → BYE in ${byeAt! - killedAt} ms`);
  expect(byeAt! - killedAt).toBeLessThan(10_000);
  await waitFor('its Asterisk to stop', () => (alive(asterisk) ? undefined : true), 10_000);
  await sink.close();
}, 90_000);
