// Opens the SQLite store: one file in the data dir, WAL, busy timeout, foreign keys, mode 0600,
// and brings its schema up to date. A database written by a newer ringhook is refused.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sqliteNativeBindingOptions } from '../../lib/assets.js';
import { UserError } from '../../lib/errors.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import type { SecretBox } from '../secret-box.js';

/** The SQLite handle every part of the SQLite store is given: better-sqlite3's database. */
export type Db = Database.Database;

export interface OpenOptions {
  /** full: every commit reaches the disk before the 200; normal: survives a process crash, not a power cut. */
  sync?: 'normal' | 'full';
  /** How long a writer waits for another process's write lock before giving up. */
  busyTimeoutMs?: number;
  migrations?: readonly Migration[];
  /** The api_keys' secret key, for a migration that seals them. */
  secrets?: SecretBox;
}

export const SCHEMA_VERSION = MIGRATIONS.length;

function restrictPermissions(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      fs.chmodSync(f, 0o600);
    } catch {
      // -wal and -shm exist only while the database is open in WAL mode.
    }
  }
}

function refuseNewer(db: Db, known: number): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > known) {
    throw new UserError(
      `the database ${db.name} has schema version ${current}, newer than this ringhook understands (${known}): run a newer ringhook, or restore a backup made by this version`,
    );
  }
  return current;
}

/** The schema version of the database file, read without changing anything; null when there is none. */
export function schemaVersionOf(file: string): number | null {
  if (!fs.existsSync(file)) return null;
  let db: Db | undefined;
  try {
    db = new Database(file, { ...sqliteNativeBindingOptions(), readonly: true, fileMustExist: true });
    return db.pragma('user_version', { simple: true }) as number;
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS, secrets?: SecretBox): void {
  const current = refuseNewer(db, migrations.length);
  for (let version = current + 1; version <= migrations.length; version++) {
    const migration = migrations[version - 1]!;
    try {
      db.transaction(() => {
        // Another process opening the same old database may have taken this step while we waited.
        if ((db.pragma('user_version', { simple: true }) as number) >= version) return;
        db.exec(migration.sql);
        migration.data?.(db, secrets);
        db.pragma(`user_version = ${version}`);
      }).immediate();
    } catch (error) {
      throw new UserError(
        `migration ${migration.name} of ${db.name} failed, the database is left at version ${version - 1}: ${(error as Error).message}`,
      );
    }
  }
}

export function openDatabase(file: string, options: OpenOptions = {}): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let db: Db;
  try {
    db = new Database(file, sqliteNativeBindingOptions());
  } catch (error) {
    throw new UserError(`cannot open the database ${file}: ${(error as Error).message}`);
  }
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    // Checked before anything writes: a newer database (a backup, say) is refused untouched.
    refuseNewer(db, (options.migrations ?? MIGRATIONS).length);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.sync === 'normal' ? 'NORMAL' : 'FULL'}`);
    db.pragma('foreign_keys = ON');
    const before = db.pragma('user_version', { simple: true }) as number;
    migrate(db, options.migrations, options.secrets);
    // What a migration replaced (clear api_keys) must not linger in the write-ahead log.
    if ((db.pragma('user_version', { simple: true }) as number) !== before) db.pragma('wal_checkpoint(TRUNCATE)');
    restrictPermissions(file);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof UserError) throw error;
    throw new UserError(`cannot use the database ${file}: ${(error as Error).message}`);
  }
}

/** The busy timeout's pragmas, prepared once per connection (db.pragma() prepares on every call). */
const busyPragmas = new WeakMap<Db, Map<string, Database.Statement>>();

function busyPragma(db: Db, sql: string): number {
  const prepared = busyPragmas.get(db) ?? new Map<string, Database.Statement>();
  busyPragmas.set(db, prepared);
  const statement = prepared.get(sql) ?? db.prepare(sql).pluck();
  prepared.set(sql, statement);
  return statement.get() as number;
}

/** Runs `work` with a shorter wait for the write lock, then restores the connection's own. */
export function withBusyTimeout<T>(db: Db, ms: number, work: () => T): T {
  const previous = busyPragma(db, 'PRAGMA busy_timeout');
  if (previous <= ms) return work();
  busyPragma(db, `PRAGMA busy_timeout = ${ms}`);
  try {
    return work();
  } finally {
    busyPragma(db, `PRAGMA busy_timeout = ${previous}`);
  }
}
