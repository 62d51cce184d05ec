// The serve the soak files flood, with its accounts: one for the fuzzing, one whose credentials are
// flooded, and 40 that send valid alerts meanwhile (probes). Shared by test/soak/soak.test.ts and
// test/soak/credentials-flood.test.ts (the timed flood, split off to run alone: vitest.config.ts).
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { openStores } from '../../src/app/open-stores.js';
import { createAccount } from '../helpers/accounts.js';
import { freeTcpPort } from '../helpers/ports.js';
import { makeDataDir } from '../helpers/service.js';
import { type Outcome, sendHttp, type Target } from './load.js';
import { buildOnce, runCliJson, startServe, type ServeProcess } from './peers.js';

export const FULL = process.env.RINGHOOK_SOAK === 'full';
export const N = {
  fuzz: Number(process.env.RINGHOOK_SOAK_FUZZ ?? (FULL ? 100_000 : 3_000)),
  slow: FULL ? 40 : 4,
  flood: Number(process.env.RINGHOOK_SOAK_FLOOD ?? (FULL ? 100_000 : 3_000)),
  oneAddress: FULL ? 20_000 : 600,
  /**
   * Time bound of each run, ms: a guard against a hang, not a speed check (every request counted is
   * sent; a quiet machine sends CI's 3,000 in ~15 s). 45 s was too short beside two busy loops and a
   * parallel suite (#53: 1,531 of 3,000 sent at a load average of 13).
   */
  budget: FULL ? 600_000 : 240_000,
};
export const SEED = Number(process.env.RINGHOOK_SOAK_SEED ?? 20261122);
export const MB = 1024 * 1024;

export type Acct = { user_id: string; api_key: string };

export interface SoakServe {
  serve: ServeProcess;
  env: Record<string, string>;
  dataDir: string;
  target: Target;
  fuzzAccount: Acct;
  floodAccount: Acct;
  probes: Acct[];
}

/** A real `ringhook serve` (telephony off) and its accounts. */
export async function startSoakServe(): Promise<SoakServe> {
  buildOnce();
  const dataDir = makeDataDir('rh-soak-');
  const port = await freeTcpPort();
  const env = {
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(port),
    RINGHOOK_TELEPHONY: 'off',
    RINGHOOK_DB_SYNC: 'normal',
  };
  const serve = await startServe(env);
  const target = {
    host: '127.0.0.1',
    port,
    ca: fs.readFileSync(path.join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8'),
  };
  const fuzzAccount = runCliJson(['account', 'create', '--phone', '+14155550123', '--plan', 'premium'], env) as Acct;
  // The others through a second connection to the same file (as fast as the CLI, without 40 processes).
  const store = await openStores(loadConfig(env));
  const create = async (): Promise<Acct> => {
    const a = await createAccount(store.accounts, { phone: '+14155550124' });
    return { user_id: a.userId, api_key: a.apiKey };
  };
  const floodAccount = await create();
  const probes: Acct[] = [];
  for (let i = 0; i < 40; i++) probes.push(await create());
  await store.close();
  return { serve, env, dataDir, target, fuzzAccount, floodAccount, probes };
}

export function dbCounts(s: SoakServe): { calls: number; usage: number; floodCalls: number } {
  const db = new Database(path.join(s.dataDir, 'ringhook.db'), { readonly: true });
  try {
    const n = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n;
    return {
      calls: n('SELECT COUNT(*) AS n FROM calls'),
      usage: n('SELECT COALESCE(SUM(calls), 0) AS n FROM usage'),
      floodCalls: n('SELECT COUNT(*) AS n FROM calls WHERE user_id = ?', s.floodAccount.user_id),
    };
  } finally {
    db.close();
  }
}

export function tally(outcomes: Outcome[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const o of outcomes) t[o.status] = (t[o.status] ?? 0) + 1;
  return t;
}

/** Valid alerts from 127.0.0.1 every `everyMs`, round robin over the probe accounts (10 a minute each at most). */
export function probeAlerts(s: SoakServe, everyMs: number): { stop(): Promise<Outcome[]> } {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 2 });
  const outcomes: Outcome[] = [];
  let running = true;
  let i = 0;
  const loop = (async () => {
    while (running && i < 10_000) {
      const a = s.probes[i++ % s.probes.length]!;
      outcomes.push(
        await sendHttp(s.target, agent, {
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

/** The serve log never contains an api_key; the database is 0600 in a 0700 folder. */
export function expectNothingLeftBehind(s: SoakServe): void {
  const log = s.serve.output();
  for (const a of [s.fuzzAccount, s.floodAccount, ...s.probes]) expect(log.includes(a.api_key)).toBe(false);
  expect(fs.statSync(path.join(s.dataDir, 'ringhook.db')).mode & 0o777).toBe(0o600);
  expect(fs.statSync(s.dataDir).mode & 0o777).toBe(0o700);
}

/**
 * A soak file's serve: started before its tests, stopped after them, and the figures the tests put in
 * `figures` printed on one line with the serve's exit code. `use` receives the started serve.
 */
export function soakServeForFile(label: string, use: (s: SoakServe) => void): Record<string, unknown> {
  const figures: Record<string, unknown> = {};
  let started: SoakServe | undefined;
  beforeAll(async () => {
    started = await startSoakServe();
    use(started);
  }, 120_000);
  afterAll(async () => {
    const code = await started?.serve.stop();
    console.log(
      `figures: ${label}`,
      JSON.stringify({ mode: FULL ? 'full' : 'ci', seed: SEED, ...figures, serve_exit: code }),
    );
  });
  return figures;
}
