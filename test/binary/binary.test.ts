// Smoke test of the single executable (npm run build:binary): dist/ringhook run from an empty
// directory with nothing but PATH and HOME in its environment, no node_modules or repository
// around it. It answers --help, creates an account, serves HTTPS with telephony off, takes an
// alert, lists it in the history, and stops cleanly on SIGTERM; doctor, backup, login-link and
// account show run from it too. Then it provisions Asterisk with the scripts it carries (`ringhook
// provision`), serves with its managed Asterisk, and a test call (`ringhook test-call`) and an
// alert ring a SIPp phone on the trunk (busy) end to end.
//
// The binary is built here when it is missing or older than what goes into it (about 10 s once
// the runtime and the SQLite addon are cached: `npm test` caches them while it provisions the peers,
// before any file runs; without that, the first build on a machine takes about 2 minutes).
// RINGHOOK_BINARY=/path/to/ringhook tests a binary built elsewhere instead.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/https-client.js';
import { freeTcpPort, freeUdpPort } from '../helpers/ports.js';
import { managedTelephonyEnv } from '../helpers/service.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';

const ROOT = path.resolve(__dirname, '../..');
const BINARY = process.env.RINGHOOK_BINARY
  ? path.resolve(process.env.RINGHOOK_BINARY)
  : path.join(ROOT, 'dist', 'ringhook');

/** The newest modification time among the files the executable is made from. */
function newestInput(): number {
  let newest = 0;
  const visit = (p: string): void => {
    const st = fs.statSync(p);
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) visit(path.join(p, e));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of ['src', 'asterisk', 'package-lock.json', 'scripts/build-binary.sh']) visit(path.join(ROOT, p));
  return newest;
}

function ensureBinary(): void {
  if (process.env.RINGHOOK_BINARY) return;
  if (fs.existsSync(BINARY) && fs.statSync(BINARY).mtimeMs > newestInput()) return;
  // As `npm run build:binary` runs it for a user whose npm configuration points node-gyp at other
  // headers (Node 20's, here): the build must compile for the runtime it embeds all the same.
  const inheritedNpmConfig = {
    npm_config_nodedir: '/usr',
    npm_config_target: process.versions.node,
    NPM_CONFIG_DIST_URL: 'http://127.0.0.1:9/',
  };
  execFileSync('bash', [path.join(ROOT, 'scripts', 'build-binary.sh')], {
    cwd: ROOT,
    env: { ...process.env, ...inheritedNpmConfig },
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 280_000,
  });
}

let tmp: string;
let work: string;
let dataDir: string;
/** What the binary gets, and nothing else: as `env -i PATH=… HOME=…`. */
let env: Record<string, string>;
let serve: ChildProcess | null = null;

function run(args: string[], extra: Record<string, string> = {}, timeout = 20_000) {
  const r = spawnSync(BINARY, args, { cwd: work, env: { ...env, ...extra }, encoding: 'utf8', timeout });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  ensureBinary();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-binary-'));
  work = path.join(tmp, 'empty');
  dataDir = path.join(tmp, 'data');
  fs.mkdirSync(work);
  fs.mkdirSync(path.join(tmp, 'home'));
  env = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: path.join(tmp, 'home'), RINGHOOK_DATA_DIR: dataDir };
}, 300_000);

afterAll(async () => {
  await stopAllSipp();
  if (serve && serve.exitCode === null) {
    // SIGTERM first: serve then stops its managed Asterisk (SIGKILL would leave it running).
    const exited = new Promise((resolve) => serve!.once('exit', resolve));
    serve.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (serve.exitCode === null) serve.kill('SIGKILL');
  }
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the single executable', () => {
  it('answers --help with nothing around it', () => {
    const r = spawnSync(BINARY, ['--help'], { cwd: work, env: {}, encoding: 'utf8', timeout: 20_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/serve/);
    expect(r.stdout).toMatch(/account/);
    expect(r.stderr).not.toMatch(/Warning|single executable/i);
  });

  it('embeds the Node LTS the build script pins, not the one running the tests', () => {
    // The runtime's own release metadata (process.release.headersUrl) names its version.
    const embedded = /node-v(\d+\.\d+\.\d+)-headers/.exec(fs.readFileSync(BINARY).toString('latin1'))?.[1];
    const script = fs.readFileSync(path.join(ROOT, 'scripts', 'build-binary.sh'), 'utf8');
    const pinned = /^NODE_PKG_VERSION=(\S+)/m.exec(script)?.[1];
    const expected = process.env.RINGHOOK_SEA_NODE === 'system' ? process.versions.node : pinned;
    expect(embedded).toBe(expected);
    if (process.env.RINGHOOK_SEA_NODE !== 'system') expect(Number(embedded!.split('.')[0])).toBeGreaterThanOrEqual(22);
  });

  let account: { user_id: string; api_key: string };
  it('creates an account (the SQLite addon comes out of the executable)', () => {
    const r = run(['account', 'create', '--phone', '+14155550123', '--json']);
    expect(r.status, r.stderr).toBe(0);
    account = JSON.parse(r.stdout);
    expect(account.user_id).toMatch(/^[0-9a-f]{32}$/);
    expect(account.api_key).toMatch(/^rk_/);
    expect(fs.existsSync(path.join(dataDir, 'ringhook.db'))).toBe(true);
    // The addon was written once to the user's cache, named by its hash, closed to others.
    const native = path.join(env.HOME!, '.cache', 'ringhook', 'native');
    const [dir] = fs.readdirSync(native);
    expect(fs.statSync(path.join(native, dir!)).mode & 0o077).toBe(0);
    expect(fs.existsSync(path.join(native, dir!, 'better_sqlite3.node'))).toBe(true);
  });

  it('runs the other CLI commands from the executable: doctor, backup, login-link, account show, calls', () => {
    const doctor = run(['doctor', '--json'], { RINGHOOK_TELEPHONY: 'off' });
    expect(doctor.status, doctor.stderr).toBe(0);
    expect(
      (JSON.parse(doctor.stdout) as Array<{ name: string; ok: boolean | string }>).find((c) => c.name === 'database')
        ?.ok,
    ).toBe(true);
    const copy = path.join(tmp, 'backup.db');
    const backup = run(['backup', copy, '--json']);
    expect(backup.status, backup.stderr).toBe(0);
    expect(fs.statSync(copy).size).toBeGreaterThan(0);
    const link = run(['account', 'login-link', account.user_id]);
    expect(link.status, link.stderr).toBe(0);
    expect(link.stdout).toMatch(/\/login\/link\/\S+/);
    const show = run(['account', 'show', account.user_id, '--json']);
    expect(show.status, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout).user_id).toBe(account.user_id);
    expect(run(['calls', '--json']).status).toBe(0);
    // A usage error is one line and exit 2, as from the checkout.
    const wrong = run(['account', 'create']);
    expect(wrong.status).not.toBe(0);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('reads Japanese kanji with the dictionary among its assets; with it off, says so and notes the kanji', () => {
    const read = run(['say', '日経平均 38500 薔薇 1時間足', '--language', 'ja'], {}, 60_000);
    expect(read.status, read.stderr).toBe(0);
    expect(read.stdout.split('\n')[2]).toBe('にっけいへいきん さんまん はっせんごひゃく ばら いちじかんあし');
    const off = run(['say', '日経平均 38500 薔薇 1時間足', '--language', 'ja'], { RINGHOOK_JA_DICTIONARY: 'off' });
    expect(off.status, off.stderr).toBe(0);
    expect(off.stdout.split('\n')[2]).toBe('にっけいへいきん さんまん はっせんごひゃく かんじ いちじかんあし');
    expect(off.stderr).toMatch(/no Japanese dictionary: RINGHOOK_JA_DICTIONARY is off/);
    expect(off.stderr).toMatch(/Note: kanji said as "かんじ" \(the Japanese dictionary was not loaded\): 薔薇/);
    // The bound is the two commands' own (60 s and 20 s): the dictionary's load took the first past the
    // suite's 30 s beside two busy loops and a parallel suite (#53), and a command stopped at its bound fails on its status.
  }, 90_000);

  it('serves HTTPS with telephony off, takes an alert, shows it in the history, and stops on SIGTERM with 0', async () => {
    const { child, output, exited, base, ca } = await startServe({ RINGHOOK_TELEPHONY: 'off' });

    const health = await request(`${base}/healthz`, { method: 'GET', ca });
    expect(health.status).toBe(200);
    expect(health.json.checks.database).toBe('ok');

    const alert = await request(`${base}/webhook/${account.user_id}/${account.api_key}`, {
      body: 'BTCUSD crossed 100000',
      headers: { 'content-type': 'text/plain' },
      ca,
    });
    expect(alert.status, alert.text).toBe(200);
    const callId = alert.json.call_id as string;
    expect(callId).toBeTruthy();

    const calls = run(['calls', '--json']);
    expect(calls.status, calls.stderr).toBe(0);
    const history = JSON.parse(calls.stdout) as Array<{ call_id: string; message?: string }>;
    expect(history.map((c) => c.call_id)).toContain(callId);

    child.kill('SIGTERM');
    expect(await exited, output()).toBe(0);
    serve = null;
  }, 60_000);

  it('provisions Asterisk with the scripts it carries, then rings a SIPp phone through its own managed Asterisk', async () => {
    // The Asterisk cache of the machine (npm test provisioned it): the script finds it complete.
    const cacheDir = process.env.RINGHOOK_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'ringhook');
    const provisioned = run(['provision', '--skip-speech', '--json'], { RINGHOOK_CACHE_DIR: cacheDir }, 280_000);
    expect(provisioned.status, provisioned.stderr).toBe(0);
    expect(JSON.parse(provisioned.stdout)).toMatchObject({ cache_dir: cacheDir, speech: false });
    expect(provisioned.stderr).toMatch(/checking Asterisk/);

    // A data dir of its own: the alert the telephony-off service took above is still fresh, and a
    // service with telephony would rightly place it.
    const ownData = { RINGHOOK_DATA_DIR: path.join(tmp, 'data-telephony') };
    const caller = JSON.parse(
      run(['account', 'create', '--phone', '+14155550123', '--plan', 'premium', '--json'], ownData).stdout,
    ) as {
      user_id: string;
      api_key: string;
    };
    const trunkPort = await freeUdpPort();
    const phone = await startSipp({ scenario: 'busy', port: trunkPort, calls: 2 });
    const { child, output, exited, base, ca } = await startServe({
      ...(await managedTelephonyEnv(trunkPort)),
      ...ownData,
      RINGHOOK_CACHE_DIR: cacheDir,
      RINGHOOK_RING_TIMEOUT: '5',
    });
    // `ringhook test-call` from the executable: serve places it, the command follows it to its end.
    // The phone is busy, so the command reports it, with the reason in words (#33), and exits 1 (a test
    // call that did not get through).
    const testCall = run(['test-call', caller.user_id], ownData, 60_000);
    expect(testCall.stderr, testCall.stdout).toMatch(
      /test call call_\S+[\s\S]*ringing[\s\S]*ringhook: the test call ended as busy: The line was busy: .+\s*$/,
    );
    expect(testCall.status).toBe(1);
    const alert = await request(`${base}/webhook/${caller.user_id}/${caller.api_key}`, {
      body: 'rung by the single executable',
      headers: { 'content-type': 'text/plain' },
      ca,
    });
    expect(alert.status, alert.text).toBe(200);
    const callId = alert.json.call_id as string;

    let row: { status?: string } = {};
    const deadline = Date.now() + 30_000;
    while (!['busy', 'unreachable', 'failed', 'no_answer'].includes(row.status ?? '') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      const calls = run(['calls', '--json'], ownData);
      row =
        (JSON.parse(calls.stdout) as Array<{ call_id: string; status: string }>).find((c) => c.call_id === callId) ??
        {};
    }
    const sipp = await phone.stop();
    child.kill('SIGTERM');
    expect(await exited, output()).toBe(0);
    serve = null;
    expect(row.status, JSON.stringify({ row, sipp: sipp.screen })).toBe('busy');
    expect(sipp.failedCalls ?? 0).toBe(0);
    expect(sipp.successfulCalls).toBe(2);
  }, 300_000);
});

/** Starts `ringhook serve` from the executable with `extra` settings; resolves once it serves. */
async function startServe(extra: Record<string, string>) {
  const port = await freeTcpPort();
  const child = spawn(BINARY, ['serve'], {
    cwd: work,
    env: { ...env, RINGHOOK_PORT: String(port), RINGHOOK_HOST: '127.0.0.1', ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  serve = child;
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (!/ringhook is serving/.test(output)) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`serve exited with ${child.exitCode ?? child.signalCode}: ${output}`);
    if (Date.now() > deadline) throw new Error(`serve did not start in 30 s: ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const ca = fs.readFileSync(path.join(extra.RINGHOOK_DATA_DIR ?? dataDir, 'tls', 'self-signed-cert.pem'), 'utf8');
  return { child, output: () => output, exited, base: `https://localhost:${port}`, ca };
}
