// The data dir's lock and the schema, together: serve takes the lock before it opens (and may
// migrate) the database, and a CLI command never migrates a database that a running serve holds.
import fs from 'node:fs';
import type { Config } from '../config/index.js';
import { migrationRefusal } from '../core/server/schema-upgrade.js';
import { UserError } from '../lib/errors.js';
import { VERSION } from '../lib/version.js';
import { SCHEMA_VERSION, schemaVersionOf } from '../store/index.js';
import { lockDataDir, serveHolder } from './instance-lock.js';

/**
 * Serve's lock on its data dir, taken before the database is opened: a second serve, of whatever
 * version, changes nothing. (PostgreSQL's schema is numbered like SQLite's: the same number.)
 */
export function lockDataDirForServe(config: Pick<Config, 'dataDir' | 'dbFile' | 'databaseUrl'>): () => void {
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // A data dir this user cannot write is said as the database's open would say it (service.ts).
  fs.accessSync(config.dataDir, fs.constants.W_OK);
  return lockDataDir(config.dataDir, {
    version: VERSION,
    schema: SCHEMA_VERSION,
    databaseSchema: () => (config.databaseUrl ? null : schemaVersionOf(config.dbFile)),
  });
}

/** A command's refusal to open an SQLite database that needs a migration while a serve holds it. */
export function refuseMigrationUnderServe(config: Pick<Config, 'dataDir' | 'dbFile'>): void {
  const current = schemaVersionOf(config.dbFile);
  if (current === null || current >= SCHEMA_VERSION) return;
  const refusal = migrationRefusal(current, SCHEMA_VERSION, serveHolder(config.dataDir), config.dbFile, VERSION);
  if (refusal) throw new UserError(refusal);
}
