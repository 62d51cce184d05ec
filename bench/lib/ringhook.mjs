// Prepares a data dir (accounts and history rows written directly with SQL) and runs
// `node bin/ringhook.js serve` as a child process, as an operator would.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DATA_DIR, ROOT, sleep } from './common.mjs';

const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href;
const { openDatabase } = await import(dist('store/sqlite/connect.js'));
const { newApiKey, newUserId, newCallId } = await import(dist('core/ids.js'));
const { loadSecretBox } = await import(dist('store/secret-key.js'));

export function freshDataDir(name) {
  const dir = path.join(DATA_DIR, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Creates `count` Premium accounts (migrating a new database first) and writes "user_id api_key"
 * lines to accounts.txt. Returns the list.
 */
export function seedAccounts(
  dataDir,
  count,
  plan = 'premium',
  { smsBackup = false, phone = (i) => `+1555${String(i).padStart(7, '0')}` } = {},
) {
  // Sealed with the data dir's key file, which serve then uses too.
  const secrets = loadSecretBox({ dataDir, secretKey: undefined });
  const db = openDatabase(path.join(dataDir, 'ringhook.db'), { sync: 'normal', secrets });
  const insert =
    db.prepare(`INSERT INTO accounts (user_id, api_key_sealed, api_key_mac, name, phone, plan, sms_backup, status, created_at, updated_at, key_created_at)
                             VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?)`);
  const now = Date.now();
  const accounts = [];
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const a = [newUserId(), newApiKey()];
      insert.run(
        a[0],
        secrets.seal(a[1], a[0]),
        secrets.mac(a[1]),
        `bench ${i}`,
        phone(i),
        plan,
        smsBackup ? 1 : 0,
        now,
        now,
        now,
      );
      accounts.push([...a, phone(i)]);
    }
  })();
  db.close();
  fs.writeFileSync(path.join(dataDir, 'accounts.txt'), `${accounts.map((a) => a.join(' ')).join('\n')}\n`);
  return accounts;
}

/**
 * Adds `rows` finished calls to the history, spread evenly across the accounts and over the past
 * ~90 days (older than the burst window, so limits are unaffected), in one transaction.
 */
export function seedHistory(dataDir, accounts, rows) {
  if (rows === 0) return;
  const db = new Database(path.join(dataDir, 'ringhook.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1000000'); // 1 GB: the random call_id index fits, so a million rows take seconds
  const insert =
    db.prepare(`INSERT INTO calls (call_id, user_id, kind, accepted, status, message, message_truncated, ticker, price, action,
                               strategy, alert_timestamp, extra, error, received_at, updated_at, phone, dialed_at, ringing_at, answered_at,
                               ended_at, ring_ms, talk_ms, hangup_cause, hangup_cause_text)
                             VALUES (?, ?, 'alert', 1, ?, ?, 0, 'BTCUSD', 64000.5, 'buy', 'breakout', NULL, NULL, NULL, ?, ?, '+15550000000', ?, ?, ?, ?, 900, ?, 16, 'Normal Clearing')`);
  const now = Date.now() - 2 * 60_000;
  const span = 90 * 86_400_000;
  const message = 'BTC crossed 64,000 on the 5 minute chart';
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      const [userId] = accounts[i % accounts.length];
      const t = now - span + Math.floor((i / rows) * span);
      const answered = i % 4 !== 0;
      insert.run(
        newCallId(),
        userId,
        answered ? 'completed' : 'no_answer',
        message,
        t,
        t + 8000,
        t + 5,
        t + 60,
        answered ? t + 960 : null,
        t + 8000,
        answered ? 7000 : null,
      );
    }
  })();
  db.close();
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function get(url, ca) {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.setTimeout(2000, () => req.destroy(new Error('timeout')));
  });
}

/** Node's flags as the launchers start serve (scripts/start.sh, the Dockerfile, the unit, the single executable). */
export const SERVE_NODE_ARGS = ['--max-semi-space-size=4'];

/**
 * Starts `node bin/ringhook.js serve` on a free loopback port with telephony off (unless env says
 * otherwise) and waits until /healthz answers, with the launchers' Node flags. `nodeArgs` can add
 * e.g. --cpu-prof.
 */
export async function startServe(
  dataDir,
  { env = {}, nodeArgs = [], root = ROOT, pin, launcherArgs = SERVE_NODE_ARGS } = {},
) {
  nodeArgs = [...launcherArgs, ...nodeArgs];
  const port = await freePort();
  const logFile = path.join(dataDir, 'serve.log');
  const out = fs.openSync(logFile, 'a');
  // `pin`: the processors serve may run on (taskset, which execs node: the pid stays serve's).
  const command = [process.execPath, ...nodeArgs, path.join(root, 'bin', 'ringhook.js'), 'serve'];
  const child = spawn(pin ? 'taskset' : command[0], pin ? ['-c', pin, ...command] : command.slice(1), {
    cwd: dataDir,
    stdio: ['ignore', out, out],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      RINGHOOK_DATA_DIR: dataDir,
      RINGHOOK_HOST: '127.0.0.1',
      RINGHOOK_PORT: String(port),
      RINGHOOK_TELEPHONY: 'off',
      RINGHOOK_LOG_LEVEL: 'warn',
      ...env,
    },
  });
  fs.closeSync(out);
  let exited = null;
  child.once('exit', (code, signal) => (exited = { code, signal }));
  const certFile = path.join(dataDir, 'tls', 'self-signed-cert.pem');
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new Error(`ringhook serve exited (${JSON.stringify(exited)}); see ${logFile}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`ringhook serve did not answer /healthz within 30 s; see ${logFile}`);
    }
    if (fs.existsSync(certFile)) {
      try {
        const r = await get(`https://127.0.0.1:${port}/healthz`, fs.readFileSync(certFile));
        if (r.status === 200) break;
      } catch {
        // not yet
      }
    }
    await sleep(100);
  }
  return {
    child,
    pid: child.pid,
    port,
    url: `https://127.0.0.1:${port}`,
    cert: certFile,
    key: path.join(dataDir, 'tls', 'self-signed-key.pem'),
    logFile,
    async stop() {
      if (exited) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await done;
      clearTimeout(timer);
    },
  };
}

/** Starts the bare node:https ceiling server with the given certificate. */
export async function startCeiling(cert, key, { script = 'ceiling-server.mjs', args = [], pin, nodeArgs = [] } = {}) {
  const command = [process.execPath, ...nodeArgs, new URL(`./${script}`, import.meta.url).pathname, cert, key, ...args];
  const child = spawn(pin ? 'taskset' : command[0], pin ? ['-c', pin, ...command] : command.slice(1), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    child,
    pid: child.pid,
    url: `https://127.0.0.1:${port}`,
    async stop() {
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
    },
  };
}

/** The same-job minimal server (bench/lib/minimal-server.mjs) with its own SQLite file in `dataDir`. */
export function startMinimal(cert, key, dataDir, pin, nodeArgs = []) {
  return startCeiling(cert, key, {
    script: 'minimal-server.mjs',
    args: [path.join(dataDir, 'minimal.db')],
    nodeArgs,
    ...(pin && { pin }),
  });
}

/**
 * Settings for serve with its managed Asterisk calling the phone on `trunkPort` (loopback), with SMS
 * through Kannel; everything else as by default (answering-machine detection on). `ports` gives
 * free UDP and TCP ports; `extra` adds to or overrides the rest.
 */
export async function callingEnv({ trunkPort, kannel, ports, rtpPorts, extra = {} }) {
  return {
    RINGHOOK_DB_SYNC: 'full',
    RINGHOOK_TELEPHONY: 'managed',
    RINGHOOK_TRUNK_URI: `sip:127.0.0.1:${trunkPort}`,
    RINGHOOK_SIP_HOST: '127.0.0.1',
    RINGHOOK_SIP_PORT: String(await ports.udp()),
    RINGHOOK_ARI_PORT: String(await ports.tcp()),
    RINGHOOK_RTP_PORTS: rtpPorts,
    RINGHOOK_SMS_GATEWAY: 'http',
    RINGHOOK_SMS_HTTP_PRESET: 'kannel',
    RINGHOOK_SMS_HTTP_URL: kannel.sendsmsUrl(),
    RINGHOOK_SMS_FROM: 'ringhook',
    ...extra,
  };
}
