// The SQLite store's tests: a temp directory per test, databases opened there closed after it,
// and the small readers the tests share.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';
import { parseAlertBody, type Alert } from '../../src/core/webhook/payload.js';
import { SqliteAccountStore } from '../../src/store/sqlite/accounts.js';
import { SqliteCallStore } from '../../src/store/sqlite/calls.js';
import { openDatabase, type Db } from '../../src/store/sqlite/connect.js';
import { testSecrets } from './secrets.js';

/** The test's own directory (set before each test). */
export let tmp: string;
const open: Db[] = [];

/** Gives every test of the calling file a fresh directory, and closes what it opened after it. */
export function useTempDatabases(): void {
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-db-'));
  });
  afterEach(() => {
    for (const db of open.splice(0)) if (db.open) db.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
}

export function openTracked(file: string, options?: Parameters<typeof openDatabase>[1]): Db {
  const db = openDatabase(file, options);
  open.push(db);
  return db;
}

export function raw(file: string, options?: Database.Options): Db {
  const db = new Database(file, options);
  open.push(db);
  return db;
}

export const mode = (p: string) => fs.statSync(p).mode & 0o777;
export const sha256 = (p: string) => crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
export const schemaOf = (db: Db) =>
  db
    .prepare<[], { type: string; name: string; sql: string | null }>(
      "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
    )
    .all();
export const columnsOf = (db: Db, table: string) =>
  db
    .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
    .all()
    .map((c) => c.name);
export const count = (db: Db, sql: string, ...params: unknown[]) =>
  db
    .prepare(sql)
    .pluck()
    .get(...params) as number;

export function textAlert(message: string): Alert {
  const result = parseAlertBody(new TextEncoder().encode(message), 'text/plain');
  if (!result.ok) throw new Error(result.error);
  return result.alert;
}

export function jsonAlert(value: unknown): Alert {
  const result = parseAlertBody(new TextEncoder().encode(JSON.stringify(value)), 'application/json');
  if (!result.ok) throw new Error(result.error);
  return result.alert;
}

/** A clock the test moves by hand. */
export function manualClock(iso: string) {
  let now = Date.parse(iso);
  return {
    now: () => now,
    set: (to: string) => (now = Date.parse(to)),
    advance: (ms: number) => (now += ms),
  };
}

/** A database in the test's directory with its stores, on a clock the test moves. */
export function openStoresAt(start: string) {
  const db = openTracked(path.join(tmp, 'ringhook.db'), { sync: 'normal' });
  const clock = manualClock(start);
  return {
    db,
    clock,
    accounts: new SqliteAccountStore(db, testSecrets(), clock.now),
    calls: new SqliteCallStore(db, clock.now),
  };
}
