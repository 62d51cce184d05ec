// Starts a real ringhook service (HTTPS, SQLite file in a temp data dir) inside the test process,
// with a clock the test controls, and collects the error logs so a test fails on any unexpected one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig, type Config } from '../../src/config/index.js';
import { isInFlight } from '../../src/core/calls/call-state.js';
import { createLogger } from '../../src/lib/log.js';
import type { Db } from '../../src/store/sqlite/connect.js';
import { isSqlite, type SqliteStore } from '../../src/store/sqlite/index.js';
import type { Store } from '../../src/store/contract/index.js';
import { startService, type RunningService } from '../../src/app/service.js';
import { request, type Reply, type RequestOptions } from './https-client.js';
import { freeRtpRange, freeTcpPort, freeUdpPort } from './ports.js';
import { cacheDirEnv } from './cli.js';
import { waitFor } from './wait.js';
import { type PgCluster, startPostgres } from './postgres.js';
import type { StoreKind } from './stores.js';

export interface TestClock {
  now: () => number;
  set(ms: number | string): void;
  advance(ms: number): void;
}

export function testClock(start: number | string = '2026-11-22T14:00:00Z'): TestClock {
  let current = typeof start === 'string' ? Date.parse(start) : start;
  return {
    now: () => current,
    set: (ms) => void (current = typeof ms === 'string' ? Date.parse(ms) : ms),
    advance: (ms) => void (current += ms),
  };
}

/** The wall clock, for tests with real peers whose timers run on it (Asterisk, SIPp). */
export function realClock(): TestClock {
  return {
    now: Date.now,
    set: () => {
      throw new Error('the real clock cannot be set');
    },
    advance: () => {
      throw new Error('the real clock cannot be moved');
    },
  };
}

export interface TestService {
  service: RunningService;
  config: Config;
  clock: TestClock;
  dataDir: string;
  baseUrl: string;
  ca: string;
  logs: Array<Record<string, unknown>>;
  /** The error lines logged since the last call (the log is emptied): a test expects none. */
  takeErrorLogs(): Array<Record<string, unknown>>;
  /** The error lines in the log, which is left as it is. */
  errorLogs(): Array<Record<string, unknown>>;
  post(
    pathOrUrl: string,
    body?: string | Buffer,
    headers?: Record<string, string>,
    options?: RequestOptions,
  ): Promise<Reply>;
  /** The call's row as stored (snake_case columns). */
  callRow(callId: string): CallRow;
  /** Waits until the call's row satisfies `done`; fails with the row and the timeline after `timeoutMs`. */
  waitForCall(callId: string, done: (row: CallRow) => boolean, timeoutMs?: number): Promise<CallRow>;
  stop(): Promise<void>;
}

export type CallRow = Record<string, any>;

/** A call has ended (whatever its SMS backup is still doing). */
export const callEnded = (row: CallRow): boolean => !isInFlight(row.status);
/** The SMS backup of the call has its outcome. */
export const smsSettled = (row: CallRow): boolean =>
  row.sms_status !== null && row.sms_status !== 'sending' && row.sms_status !== 'waiting';

/** The store as SQLite's (its sync stores and its db), for a test that reads or changes the file directly. */
export function sqliteOf(store: Store): SqliteStore {
  if (!isSqlite(store)) throw new Error(`this test reads SQLite directly, and the store is ${store.kind}`);
  return store;
}

/** SQLite's connection under the store, for a test that reads or changes rows directly. */
export function sqliteDb(store: Store): Db {
  return sqliteOf(store).db;
}

export function makeDataDir(prefix = 'ringhook-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startTestService(
  env: Record<string, string> = {},
  clock = testClock(),
  /**
   * `callbackCa`: the authority of the tests' status-callback receivers, trusted instead of the system's;
   * `callbackDnsServers`: the name servers their names are looked up in.
   */
  options: { callbackCa?: string; callbackDnsServers?: string[] } = {},
): Promise<TestService> {
  const dataDir = env.RINGHOOK_DATA_DIR ?? makeDataDir();
  const config = loadConfig({
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: '0',
    RINGHOOK_DB_SYNC: 'normal',
    RINGHOOK_TELEPHONY: 'off',
    ...env,
    RINGHOOK_DATA_DIR: dataDir,
  });
  const logs: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'debug', write: (line) => logs.push(JSON.parse(line)) });
  const service = await startService(config, logger, clock.now, options);
  const baseUrl = `https://127.0.0.1:${service.servers.httpsPort}`;
  const callRow = (callId: string) =>
    sqliteDb(service.stores).prepare('SELECT * FROM calls WHERE call_id = ?').get(callId) as CallRow;
  const ca = fs.readFileSync(config.tls?.cert ?? path.join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8');
  return {
    service,
    config,
    clock,
    dataDir,
    baseUrl,
    ca,
    logs,
    takeErrorLogs: () => logs.splice(0).filter((l) => l.level === 'error'),
    errorLogs: () => logs.filter((l) => l.level === 'error'),
    post: (pathOrUrl, body, headers = {}, options = {}) =>
      request(pathOrUrl.startsWith('http') ? pathOrUrl : baseUrl + pathOrUrl, {
        method: 'POST',
        body,
        headers,
        ca,
        ...options,
      }),
    stop: () => service.stop(),
    callRow,
    async waitForCall(callId, done, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const row = callRow(callId);
        if (row && done(row)) return row;
        if (Date.now() > deadline) {
          const timeline = sqliteDb(service.stores)
            .prepare('SELECT event, detail FROM call_events WHERE call_id = ? ORDER BY id')
            .all(callId);
          throw new Error(
            `call ${callId} did not get there in ${timeoutMs} ms: ${JSON.stringify(row)} ${JSON.stringify(timeline)}`,
          );
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/**
 * Settings for a service with its own managed Asterisk on free loopback ports, calling the phone
 * (SIPp) that listens on `trunkPort`. Each caller gets its own RTP range from this process's port block.
 */
/**
 * A test service over `kind`: SQLite in a temp data dir, or PostgreSQL in database `dbName` of a
 * throwaway cluster (returned, to stop after the service: a test may also kill or restart it).
 */
export async function startTestServiceOn(
  kind: StoreKind,
  dbName: string,
  env: Record<string, string> = {},
): Promise<{ t: TestService; pg?: PgCluster }> {
  if (kind === 'sqlite') return { t: await startTestService(env) };
  const pg = await startPostgres();
  try {
    const t = await startTestService({
      RINGHOOK_DATABASE_URL: await pg.createDatabase(dbName),
      RINGHOOK_SECRET_KEY: 'c'.repeat(64),
      ...env,
    });
    return { t, pg };
  } catch (error) {
    await pg.stop();
    throw error;
  }
}

/**
 * The environment of a `ringhook serve` child: managed Asterisk with its trunk at `trunkPort`, HTTPS on a
 * free loopback port, a new data dir and, given `smsc`, SMS backup through it over SMPP; `extra` last.
 */
export async function serveChildEnv(options: {
  dataDirPrefix: string;
  trunkPort: number;
  smsc?: { url(): string };
  extra?: Record<string, string>;
}): Promise<Record<string, string>> {
  return {
    ...(await managedTelephonyEnv(options.trunkPort)),
    RINGHOOK_DATA_DIR: makeDataDir(options.dataDirPrefix),
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(await freeTcpPort()),
    ...(options.smsc && {
      RINGHOOK_SMS_GATEWAY: 'smpp',
      RINGHOOK_SMPP_URL: options.smsc.url(),
      RINGHOOK_SMS_FROM: 'ringhook',
    }),
    ...options.extra,
  };
}

/** The HTTPS address and self-signed authority of a serve child started with `env`. */
export function serveChildAddress(env: Record<string, string>): { base: string; ca: string } {
  return {
    base: `https://127.0.0.1:${env.RINGHOOK_PORT}`,
    ca: fs.readFileSync(path.join(env.RINGHOOK_DATA_DIR!, 'tls', 'self-signed-cert.pem'), 'utf8'),
  };
}

/** One row of a serve child's SQLite file, read as a second process would (serve left alone). */
export function readChildRow<T = CallRow>(dataDir: string, sql: string, ...params: unknown[]): T | undefined {
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).get(...params) as T | undefined;
  } finally {
    db.close();
  }
}

/** Waits until the call's row in a serve child's SQLite file satisfies `ok`, polling every 200 ms. */
export function waitForChildCall(
  dataDir: string,
  what: string,
  callId: string,
  ok: (row: CallRow) => boolean,
  timeoutMs: number,
): Promise<CallRow> {
  return waitFor(
    what,
    () => {
      const row = readChildRow(dataDir, 'SELECT * FROM calls WHERE call_id = ?', callId);
      return row && ok(row) ? row : undefined;
    },
    timeoutMs,
    200,
  );
}

export async function managedTelephonyEnv(trunkPort: number): Promise<Record<string, string>> {
  const rtp = await freeRtpRange(100);
  return {
    RINGHOOK_TELEPHONY: 'managed',
    RINGHOOK_TRUNK_URI: `sip:127.0.0.1:${trunkPort}`,
    RINGHOOK_SIP_HOST: '127.0.0.1',
    RINGHOOK_SIP_PORT: String(await freeUdpPort()),
    RINGHOOK_ARI_PORT: String(await freeTcpPort()),
    RINGHOOK_RTP_PORTS: `${rtp.start}-${rtp.end}`,
    // Most tests' SIPp phones play recorded digits and speech that say nothing of a person or a
    // machine: their verdicts would only add noise. The voicemail, person and silent-phone tests
    // (voicemail, heard, nat-lab) turn detection on, with phones that speak.
    RINGHOOK_AMD: 'off',
    // Where this run provisioned Asterisk (CI gives each run an empty one).
    ...cacheDirEnv(),
  };
}
