// Bad input and floods against a real `ringhook serve` process.
// `npm test` runs the short version; `npm run soak` (RINGHOOK_SOAK=full) the long one:
// 100,000 malformed requests and 100,000 requests with wrong credentials, each bounded in time.
// Checked: 0 crashes, 0 unintended 5xx, memory flat (serve's RSS sampled), floods all 401 (429 once
// an address has failed 30 times a minute), database unchanged, valid alerts never refused and not
// slowed (p99 of another account's alerts during the flood).
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { freeTcpPort } from '../helpers/ports.js';
import { loadConfig } from '../../src/config/index.js';
import { openStores } from '../../src/app/open-stores.js';
import { makeDataDir } from '../helpers/service.js';
import { fuzzCase, percentile, pool, prng, sendHttp, sendRaw, slowCase, type Outcome, type Target } from './load.js';
import { buildOnce, runCliJson, startServe, type ServeProcess } from './peers.js';
import { createAccount } from '../helpers/accounts.js';

const FULL = process.env.RINGHOOK_SOAK === 'full';
const N = {
  fuzz: Number(process.env.RINGHOOK_SOAK_FUZZ ?? (FULL ? 100_000 : 3_000)),
  slow: FULL ? 40 : 4,
  flood: Number(process.env.RINGHOOK_SOAK_FLOOD ?? (FULL ? 100_000 : 3_000)),
  oneAddress: FULL ? 20_000 : 600,
  /** Time bound of each run, ms. */
  budget: FULL ? 600_000 : 45_000,
};
const SEED = Number(process.env.RINGHOOK_SOAK_SEED ?? 20261122);
const MB = 1024 * 1024;

let serve: ServeProcess;
let env: Record<string, string>;
let dataDir: string;
let target: Target;
type Acct = { user_id: string; api_key: string };
let fuzzAccount: Acct;
let floodAccount: Acct;
let probes: Acct[];

const figures: Record<string, unknown> = {};

function dbCounts(): { calls: number; usage: number; floodCalls: number } {
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true });
  try {
    const n = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n;
    return {
      calls: n('SELECT COUNT(*) AS n FROM calls'),
      usage: n('SELECT COALESCE(SUM(calls), 0) AS n FROM usage'),
      floodCalls: n('SELECT COUNT(*) AS n FROM calls WHERE user_id = ?', floodAccount.user_id),
    };
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  buildOnce();
  dataDir = makeDataDir('rh-soak-');
  const port = await freeTcpPort();
  env = {
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(port),
    RINGHOOK_TELEPHONY: 'off',
    RINGHOOK_DB_SYNC: 'normal',
  };
  serve = await startServe(env);
  target = { host: '127.0.0.1', port, ca: fs.readFileSync(path.join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8') };
  fuzzAccount = runCliJson(['account', 'create', '--phone', '+14155550123', '--plan', 'premium'], env) as Acct;
  // The others through a second connection to the same file (as fast as the CLI, without 40 processes).
  const store = await openStores(loadConfig(env));
  const create = async (): Promise<Acct> => {
    const a = await createAccount(store.accounts, { phone: '+14155550124' });
    return { user_id: a.userId, api_key: a.apiKey };
  };
  floodAccount = await create();
  probes = [];
  for (let i = 0; i < 40; i++) probes.push(await create());
  await store.close();
}, 120_000);

afterAll(async () => {
  const code = await serve?.stop();
  console.log(
    'figures: soak',
    JSON.stringify({ mode: FULL ? 'full' : 'ci', seed: SEED, ...figures, serve_exit: code }),
  );
});

function tally(outcomes: Outcome[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const o of outcomes) t[o.status] = (t[o.status] ?? 0) + 1;
  return t;
}

/** Valid alerts from 127.0.0.1 every `everyMs`, round robin over the probe accounts (10 a minute each at most). */
function probeAlerts(everyMs: number): { stop(): Promise<Outcome[]> } {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 2 });
  const outcomes: Outcome[] = [];
  let running = true;
  let i = 0;
  const loop = (async () => {
    while (running && i < 10_000) {
      const a = probes[i++ % probes.length]!;
      outcomes.push(
        await sendHttp(target, agent, {
          kind: 'probe',
          method: 'POST',
          path: `/webhook/${a.user_id}/${a.api_key}`,
          headers: { 'content-type': 'text/plain' },
          body: `probe ${i}`,
        }),
      );
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      agent.destroy();
      return outcomes;
    },
  };
}

describe('bad input', () => {
  it(
    `${N.fuzz} malformed requests (+${N.slow} slow bodies): 0 crashes, 0 5xx, memory flat`,
    async () => {
      const rnd = prng(SEED);
      const good = `/webhook/${fuzzAccount.user_id}/${fuzzAccount.api_key}`;
      const bad = `/webhook/${fuzzAccount.user_id}/${'A'.repeat(fuzzAccount.api_key.length)}`;
      const agent = new https.Agent({ keepAlive: true, maxSockets: 24 });
      const deadline = Date.now() + N.budget;
      const outcomes: Outcome[] = [];
      const rss: number[] = [serve.rssBytes()];
      const every = Math.max(1, Math.floor(N.fuzz / 20));
      const slow = Promise.all(Array.from({ length: N.slow }, () => sendRaw(target, slowCase(good, rnd))));
      const sent = await pool(N.fuzz, 24, deadline, async (i) => {
        const c = fuzzCase(rnd, good, bad);
        outcomes.push('http' in c ? await sendHttp(target, agent, c.http) : await sendRaw(target, c.raw));
        if (i % every === 0) rss.push(serve.rssBytes());
      });
      const slowOutcomes = await slow;
      agent.destroy();
      rss.push(serve.rssBytes());
      const all = [...outcomes, ...slowOutcomes];
      const fiveHundreds = all.filter((o) => o.status >= 500);
      const timeouts = all.filter((o) => o.status === -1);
      const byKind: Record<string, Record<string, number>> = {};
      for (const o of all) (byKind[o.kind] ??= {})[o.status] = ((byKind[o.kind] ??= {})[o.status] ?? 0) + 1;
      const warm = rss[Math.min(2, rss.length - 1)]!;
      figures.fuzz = {
        sent,
        statuses: tally(all),
        by_kind: byKind,
        rss_mb: rss.map((r) => Math.round(r / MB)),
        slow: tally(slowOutcomes),
        slow_unanswered: slowOutcomes.filter((o) => o.status === 0).map((o) => `${Math.round(o.ms)} ms: ${o.ended}`),
      };
      expect(sent).toBe(N.fuzz);
      expect(serve.child.exitCode).toBeNull();
      expect(fiveHundreds.map((o) => `${o.kind} ${o.status} ${o.code}`)).toEqual([]);
      expect(timeouts.map((o) => o.kind)).toEqual([]);
      // Slow bodies within the server's timeouts are served like fast ones.
      expect(slowOutcomes.every((o) => [200, 429].includes(o.status))).toBe(true);
      // Memory flat: after warm-up, RSS grows by less than 64 MB over the whole run.
      expect(Math.max(...rss.slice(2)) - warm).toBeLessThan(64 * MB);
      // The rejected payloads kept for the account are bounded (a flood cannot fill the disk).
      const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true });
      const kept = (
        db.prepare('SELECT COUNT(*) AS n FROM calls WHERE user_id = ? AND accepted = 0').get(fuzzAccount.user_id) as {
          n: number;
        }
      ).n;
      db.close();
      expect(kept).toBeLessThanOrEqual(1000);
      // The service still answers a valid alert.
      const after = await sendHttp(target, new https.Agent(), {
        kind: 'after',
        method: 'POST',
        path: `/webhook/${probes[0]!.user_id}/${probes[0]!.api_key}`,
        headers: {},
        body: 'still alive',
      });
      expect([200, 429]).toContain(after.status);
    },
    N.budget + 60_000,
  );
});

describe('floods of wrong credentials', () => {
  it(
    `${N.flood} requests with wrong keys from many addresses: all 401, database unchanged, memory flat, other accounts not slowed`,
    async () => {
      const baselineProbe = probeAlerts(100);
      await new Promise((r) => setTimeout(r, 3_000));
      const baseline = await baselineProbe.stop();
      const before = dbCounts();
      const rss: number[] = [serve.rssBytes()];
      const perAddress = 5;
      const addresses = Math.ceil(N.flood / perAddress);
      const outcomes: Outcome[] = [];
      const deadline = Date.now() + N.budget;
      const probe = probeAlerts(250);
      const wrong = `/webhook/${floodAccount.user_id}/${'B'.repeat(floodAccount.api_key.length)}`;
      const every = Math.max(1, Math.floor(addresses / 20));
      const sentAddresses = await pool(addresses, 32, deadline, async (i) => {
        // 127.1.0.0/16 and beyond: each address sends a few requests on its own connection.
        const localAddress = `127.${1 + Math.floor(i / 65_536)}.${Math.floor(i / 256) % 256}.${i % 256}`;
        const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
        for (let k = 0; k < perAddress; k++)
          outcomes.push(
            await sendHttp(
              target,
              agent,
              {
                kind: 'wrong-key',
                method: 'POST',
                path: k % 2 ? wrong : `/webhook/u_${i}_${k}/nope`,
                headers: { 'content-type': 'text/plain' },
                body: 'flood',
              },
              { localAddress },
            ),
          );
        agent.destroy();
        if (i % every === 0) rss.push(serve.rssBytes());
      });
      const probed = await probe.stop();
      rss.push(serve.rssBytes());
      const after = dbCounts();
      const okProbes = probed.filter((o) => o.status === 200).length;
      figures.flood = {
        sent: outcomes.length,
        statuses: tally(outcomes),
        rss_mb: rss.map((r) => Math.round(r / MB)),
        probe_p99_ms_before: Math.round(
          percentile(
            baseline.map((o) => o.ms),
            99,
          ),
        ),
        probe_p99_ms_during: Math.round(
          percentile(
            probed.map((o) => o.ms),
            99,
          ),
        ),
        probe_p50_ms_during: Math.round(
          percentile(
            probed.map((o) => o.ms),
            50,
          ),
        ),
        probes_during: tally(probed),
      };
      expect(sentAddresses).toBe(addresses);
      expect(tally(outcomes)).toEqual({ 401: outcomes.length });
      expect(serve.child.exitCode).toBeNull();
      // Database unchanged by the flood: only the probes' alerts were added.
      expect(after.floodCalls).toBe(0);
      expect(after.calls - before.calls).toBe(okProbes + probed.filter((o) => o.status === 429).length);
      expect(after.usage - before.usage).toBe(okProbes);
      // Valid alerts of other accounts are never refused for the flood, and stay fast.
      expect(probed.every((o) => o.status === 200)).toBe(true);
      expect(
        percentile(
          probed.map((o) => o.ms),
          99,
        ),
      ).toBeLessThan(500);
      expect(Math.max(...rss.slice(2)) - rss[Math.min(2, rss.length - 1)]!).toBeLessThan(64 * MB);
    },
    N.budget + 60_000,
  );

  it(
    `${N.oneAddress} wrong keys from one address: 30 answered 401, the rest 429 too_many_failures; a valid alert from it still 200`,
    async () => {
      const agent = new https.Agent({ keepAlive: true, maxSockets: 8 });
      const wrong = `/webhook/${floodAccount.user_id}/${'C'.repeat(floodAccount.api_key.length)}`;
      const outcomes: Outcome[] = [];
      const deadline = Date.now() + N.budget;
      let valid: Outcome | undefined;
      await pool(N.oneAddress, 8, deadline, async (i) => {
        outcomes.push(
          await sendHttp(
            target,
            agent,
            { kind: 'one-address', method: 'POST', path: wrong, headers: {}, body: 'x' },
            { localAddress: '127.0.0.2' },
          ),
        );
        if (i === Math.floor(N.oneAddress / 2)) {
          const a = probes[probes.length - 1]!;
          valid = await sendHttp(
            target,
            new https.Agent(),
            {
              kind: 'valid',
              method: 'POST',
              path: `/webhook/${a.user_id}/${a.api_key}`,
              headers: {},
              body: 'valid among the flood',
            },
            { localAddress: '127.0.0.2' },
          );
        }
      });
      agent.destroy();
      figures.one_address = { statuses: tally(outcomes), valid: valid?.status };
      expect(tally(outcomes)).toEqual({ 401: 30, 429: N.oneAddress - 30 });
      expect(outcomes.filter((o) => o.status === 429).every((o) => o.code === 'too_many_failures')).toBe(true);
      expect(valid?.status).toBe(200);
    },
    N.budget + 60_000,
  );
});

describe('what the runs leave behind', () => {
  it('the serve log never contains an api_key; the database is 0600 in a 0700 folder', () => {
    const log = serve.output();
    for (const a of [fuzzAccount, floodAccount, ...probes]) expect(log.includes(a.api_key)).toBe(false);
    expect(fs.statSync(path.join(dataDir, 'ringhook.db')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
  });
});
