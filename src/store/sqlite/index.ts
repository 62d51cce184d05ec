// The embedded store: one SQLite file, the stores over it, one process (no nodes, no change feed).
import { SqliteAccountStore } from './accounts.js';
import { SqliteCallProgressStore } from './progress.js';
import { SqliteCallStore } from './calls.js';
import { SqliteHeldCallStore } from './held.js';
import { sqliteCallbackStore } from './callbacks.js';
import { SqliteCertificateStore } from './certificates.js';
import { startCheckpointer } from './checkpointer.js';
import { openDatabase, type Db, type OpenOptions } from './connect.js';
import { SqliteOwnerAuthStore } from './owner-auth.js';
import { SqliteCallWrites } from './writes.js';
import type { SecretBox } from '../secret-box.js';
import { SqliteSessionStore } from './sessions.js';
import { SqliteSmsStore } from './sms.js';
import type { Store } from '../contract/index.js';
import type { Logger } from '../../lib/log.js';

export { type Db, openDatabase, SCHEMA_VERSION, schemaVersionOf } from './connect.js';

export interface SqliteStore extends Store {
  readonly kind: 'sqlite';
  /** The connection, for what only SQLite does (its online backup, the copy to PostgreSQL). */
  readonly db: Db;
  readonly accounts: SqliteAccountStore;
  readonly calls: SqliteCallStore;
  readonly progress: SqliteCallProgressStore;
  readonly sms: SqliteSmsStore;
}

export interface SqliteStoreOptions extends Pick<OpenOptions, 'sync' | 'busyTimeoutMs' | 'migrations'> {
  secrets: SecretBox;
  logger: Logger;
  now?: () => number;
  /** false only to open a database whose secret key is lost, to give every account a new api_key. */
  checkKey?: boolean;
  /** Checkpoints on a thread of their own, off the event loop (serve). */
  checkpointInThread?: boolean;
}

/** Wraps an open database (its schema up to date) in the stores. */
export function sqliteStore(db: Db, options: SqliteStoreOptions): SqliteStore {
  const now = options.now ?? Date.now;
  const stores = {
    accounts: new SqliteAccountStore(db, options.secrets, now, { checkKey: options.checkKey !== false }),
    calls: new SqliteCallStore(db, now, options.logger.child({ component: 'calls' })),
  };
  const checkpointer = options.checkpointInThread ? startCheckpointer(db, options.sync ?? 'full') : null;
  return {
    kind: 'sqlite',
    location: db.name,
    db,
    ...stores,
    progress: new SqliteCallProgressStore(db, now),
    sms: new SqliteSmsStore(db, now),
    held: new SqliteHeldCallStore(db, now),
    sessions: new SqliteSessionStore(db, now),
    ownerAuth: new SqliteOwnerAuthStore(db, now),
    writes: new SqliteCallWrites(db, options.logger.child({ component: 'writes' })),
    certificates: new SqliteCertificateStore(db, options.secrets, now),
    callbacks: sqliteCallbackStore(db, options.secrets, now),
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async schemaVersion() {
      return db.pragma('user_version', { simple: true }) as number;
    },
    async close() {
      await checkpointer?.stop();
      if (db.open) db.close();
    },
  };
}

export function openSqliteStore(file: string, options: SqliteStoreOptions): SqliteStore {
  const db = openDatabase(file, { ...options });
  try {
    return sqliteStore(db, options);
  } catch (error) {
    db.close();
    throw error;
  }
}

export function isSqlite(store: Store): store is SqliteStore {
  return store.kind === 'sqlite';
}
