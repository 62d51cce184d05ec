// `ringhook serve` started by `npm start`'s script, as a real process with its managed Asterisk, driven from outside as an operator
// would: doctor, test-call, /healthz, /metrics, and kill -9 with calls queued and ringing.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { buildOnce, REPO_ROOT, runCli } from '../helpers/cli.js';
import { request } from '../helpers/https-client.js';
import { freeTcpPort, freeUdpPort } from '../helpers/ports.js';
import { makeDataDir, managedTelephonyEnv } from '../helpers/service.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';

let env: Record<string, string>;
let serve: ChildProcess | null = null;
let serveOutput = '';
let baseUrl: string;
let trunkPort: number;
let ariPort: number;
let dataDir: string;
const cliDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-cli-dir-'));

async function startServe(): Promise<void> {
  serveOutput = '';
  // The README's first command, as `npm start` runs it (the script ends in `exec node … serve`, so the
  // pid is serve's own and kill -9 reaches it).
  // The ringhook command npm start puts on the PATH goes to a folder of the test's own, never the machine's.
  const child = spawn('bash', [path.join(REPO_ROOT, 'scripts/start.sh')], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, RINGHOOK_CLI_DIR: cliDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (serveOutput += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (serveOutput += c.toString()));
  serve = child;
  const deadline = Date.now() + 30_000;
  while (!serveOutput.includes('ringhook is listening')) {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}:\n${serveOutput}`);
    if (Date.now() > deadline) throw new Error(`serve did not start:\n${serveOutput}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stopServe(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  const child = serve;
  serve = null;
  if (!child || child.exitCode !== null) return child?.exitCode ?? null;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  return exited;
}

const ca = () => fs.readFileSync(path.join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8');
const get = (p: string) => request(baseUrl + p, { method: 'GET', ca: ca() });

function callRow(callId: string): Record<string, any> {
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true });
  try {
    return db.prepare('SELECT * FROM calls WHERE call_id = ?').get(callId) as Record<string, any>;
  } finally {
    db.close();
  }
}

async function waitStatus(
  callId: string,
  wanted: (s: string) => boolean,
  timeoutMs = 20_000,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = callRow(callId);
    if (row && wanted(row.status)) return row;
    if (Date.now() > deadline) throw new Error(`call ${callId} is ${row?.status}\n${serveOutput.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  await provisionAsterisk();
  execBuild();
  dataDir = makeDataDir('rh-serve-');
  trunkPort = await freeUdpPort();
  const port = await freeTcpPort();
  const telephony = await managedTelephonyEnv(trunkPort);
  ariPort = Number(telephony.RINGHOOK_ARI_PORT);
  env = {
    ...telephony,
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(port),
    RINGHOOK_RING_TIMEOUT: '20',
    RINGHOOK_MAX_CALLS: '1',
  };
  baseUrl = `https://127.0.0.1:${port}`;
  await startServe();
}, 300_000);

function execBuild(): void {
  buildOnce();
}

afterAll(async () => {
  await stopAllSipp();
  await stopServe();
});

afterEach(async () => {
  await stopAllSipp();
});

describe('an operator with a running serve', () => {
  it('npm start put the ringhook command on the PATH (here the folder RINGHOOK_CLI_DIR names), said once', () => {
    const launcher = path.join(cliDir, 'ringhook');
    expect(fs.readFileSync(launcher, 'utf8')).toContain(path.join(REPO_ROOT, 'bin', 'ringhook.js'));
    expect(serveOutput).toContain(`ringhook: put the ringhook command at ${launcher}`);
  });

  it('doctor says every part is healthy', () => {
    const res = runCli(['doctor', '--json'], env);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const byName = Object.fromEntries((res.json as Array<{ name: string; ok: unknown }>).map((r) => [r.name, r.ok]));
    expect(byName).toMatchObject({
      database: true,
      certificate: true,
      asterisk: true,
      trunk: true,
      speech: true,
      sms: 'skipped',
    });
    const speech = (res.json as Array<{ name: string; detail: string }>).find((r) => r.name === 'speech');
    expect(speech?.detail).toMatch(/; flite runs resident$/);
  }, 30_000);

  it('doctor names a wrong ARI password and how to fix it', () => {
    const broken = {
      ...env,
      RINGHOOK_TELEPHONY: 'external',
      RINGHOOK_ARI_URL: `http://127.0.0.1:${ariPort}`,
      RINGHOOK_ARI_USER: 'ringhook',
      RINGHOOK_ARI_PASSWORD: 'not-the-password',
    };
    const res = runCli(['doctor'], broken);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/FAIL\s+asterisk\s+ARI refused the user name or password/);
    expect(res.stdout).toMatch(/fix: set RINGHOOK_ARI_USER and RINGHOOK_ARI_PASSWORD/);
  }, 30_000);

  it('test-call rings the phone and shows the progress live', async () => {
    const phone = await startSipp({ scenario: 'dtmf-1', port: trunkPort, mediaPort: await freeUdpPort() });
    const a = runCli(['account', 'create', '--phone', '+14155550123', '--json'], env).json;
    const res = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/ringhook.js'), 'test-call', a.user_id], {
        env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c));
      child.stderr.on('data', (c: Buffer) => (out += c));
      child.on('exit', (code) => resolve({ code, out }));
    });
    await phone.stop();
    expect(res.code, res.out).toBe(0);
    expect(res.out).toMatch(/queued[\s\S]*dialing[\s\S]*answered[\s\S]*acknowledged/);
    expect(runCli(['account', 'show', a.user_id, '--json'], env).json.calls_this_month).toBe(0);
  }, 60_000);

  it('/healthz reports every part and /metrics counts alerts and calls', async () => {
    const health = await get('/healthz');
    expect(health.status).toBe(200);
    expect(health.json).toEqual({
      ok: true,
      checks: { process: 'ok', database: 'ok', asterisk: 'ok', ari: 'ok', sms: 'off' },
    });
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.text).toMatch(/ringhook_calls_total\{outcome="acknowledged"\} 1/);
    expect(metrics.text).toMatch(/ringhook_webhook_duration_seconds_bucket\{le="\+Inf"\} \d+/);
    expect(metrics.text).toMatch(/ringhook_active_calls 0/);
    expect(metrics.text).toMatch(/process_resident_memory_bytes \d+/);
  });
});

describe('kill -9 of serve with one call ringing and two queued', () => {
  it('after a restart: nothing lost, the ringing call interrupted (never redialed), the queued ones dialed once', async () => {
    const ringing = await startSipp({ scenario: 'ring-forever', port: trunkPort, calls: 1, timeoutSec: 60 });
    const a = runCli(['account', 'create', '--phone', '+14155550123', '--plan', 'premium', '--json'], env).json;
    const post = (message: string) =>
      request(`${baseUrl}/webhook/${a.user_id}/${a.api_key}`, {
        method: 'POST',
        body: message,
        headers: { 'content-type': 'text/plain' },
        ca: ca(),
      });
    const replies = [await post('first: rings'), await post('second: queued'), await post('third: queued')];
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    const [first, second, third] = replies.map((r) => r.json.call_id as string) as [string, string, string];
    await waitStatus(first, (s) => s === 'ringing');
    expect(callRow(second).status).toBe('queued');

    await stopServe('SIGKILL');
    await ringing.stop();
    const busy = await startSipp({ scenario: 'busy', port: trunkPort, calls: 2, timeoutSec: 60 });
    await startServe();

    const interrupted = await waitStatus(first, (s) => s === 'interrupted');
    expect(interrupted.error).toMatch(/ringhook stopped or restarted during it/);
    expect((await waitStatus(second, (s) => s === 'busy')).sip_code).toBe(486);
    expect((await waitStatus(third, (s) => s === 'busy')).sip_code).toBe(486);
    const result = await busy.done;
    expect(result.successfulCalls, result.screen).toBe(2);
    // Every alert answered 200 is in the history, once.
    const history = runCli(['calls', '--account', a.user_id, '--json'], env).json as Array<{ call_id: string }>;
    expect(history.map((c) => c.call_id).sort()).toEqual([first, second, third].sort());
  }, 90_000);

  it('SIGTERM stops serve cleanly (exit 0) and its Asterisk with it', async () => {
    const asteriskPid = Number(fs.readFileSync(path.join(dataDir, 'asterisk', 'run', 'asterisk.pid'), 'utf8'));
    expect(await stopServe('SIGTERM')).toBe(0);
    expect(() => process.kill(asteriskPid, 0)).toThrow();
  }, 30_000);
});
