// The shared store: one PostgreSQL database, several ringhook nodes. Opening it connects, brings
// the schema up to date (one node migrates, the others wait for it) and checks the secret key.
import type { SecretBox } from '../secret-box.js';
import type { Store } from '../contract/index.js';
import { SteppedAside } from '../unavailable.js';
import { checkSecretKey, PgAccountStore } from './accounts.js';
import { PgCallStore } from './calls.js';
import { pgCallbackStore } from './callbacks.js';
import { PgCertificateStore } from './certificates.js';
import { PgChangeFeed } from './changes.js';
import { connect, redactUrl, type DatabaseTlsOptions } from './connect.js';
import { migratePostgres, PG_SCHEMA_VERSION, readSchemaVersion, schemaMisfit } from './migrations.js';
import { PgNodeRegistry } from './nodes.js';
import { PgOwnerAuthStore } from './owner-auth.js';
import { PgCallProgressStore } from './progress.js';
import { PgSmsStore } from './sms.js';
import { PgHeldCallStore } from './held.js';
import { PgSessionStore } from './sessions.js';
import { PgCallWrites } from './writes.js';
import { PgAlertReceiver } from './receive.js';

export { connectionError, redactUrl, driverTarget, type DatabaseTlsOptions } from './connect.js';
export { PG_SCHEMA_VERSION } from './migrations.js';

export interface PostgresStoreOptions {
  url: string;
  /** This process among the nodes sharing the database (stable across its restarts); null for the CLI, which is no node. */
  nodeId: string | null;
  secrets: SecretBox;
  now?: () => number;
  /** false only to open a database whose secret key is lost, to give every account a new api_key. */
  checkKey?: boolean;
  /** How long a dead node's phone line stays held after its call was dialed (RINGHOOK_MAX_CALL_SECONDS and a margin). */
  lineHoldMs?: number;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** How the server's certificate is checked. */
  tls?: DatabaseTlsOptions;
}

export interface PostgresStore extends Store {
  readonly kind: 'postgres';
  readonly nodes: PgNodeRegistry;
  readonly changes: PgChangeFeed;
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const now = options.now ?? Date.now;
  /** Why this node takes no alerts now: the schema, migrated by a newer node, is one its code cannot work on. */
  let steppedAside: string | null = null;
  const location = redactUrl(options.url);
  const sql = await connect(options.url, {
    ...(options.poolSize !== undefined && { poolSize: options.poolSize }),
    ...(options.tls && { tls: options.tls }),
  });
  try {
    await migratePostgres(sql, location);
    if (options.checkKey !== false) await checkSecretKey(sql, options.secrets, location);
  } catch (error) {
    // The migration's or key check's error is the one told; ending the pool can only fail after it.
    await sql.end({ timeout: 1 }).catch(() => {});
    throw error;
  }
  return {
    kind: 'postgres',
    location,
    accounts: new PgAccountStore(sql, options.secrets, now),
    calls: new PgCallStore(
      sql,
      options.nodeId,
      now,
      () => steppedAside,
      new PgAlertReceiver(sql, options.secrets, options.nodeId, now),
    ),
    // The CLI dials nothing: its steps (a test call nobody placed ends failed) are no node's.
    progress: new PgCallProgressStore(sql, options.nodeId ?? 'cli', now, options.lineHoldMs),
    sms: new PgSmsStore(sql, options.nodeId ?? 'cli', now),
    held: new PgHeldCallStore(sql, options.nodeId ?? 'cli', now),
    sessions: new PgSessionStore(sql, now),
    ownerAuth: new PgOwnerAuthStore(sql, now),
    writes: new PgCallWrites(),
    certificates: new PgCertificateStore(sql, options.secrets, now),
    callbacks: pgCallbackStore(sql, options.secrets, now),
    // The CLI reads the nodes (doctor) and never says it is one: only serve beats (src/app/cluster.ts).
    nodes: new PgNodeRegistry(sql, options.nodeId ?? 'cli', now),
    changes: new PgChangeFeed(sql, options.nodeId ?? 'cli'),
    async ping() {
      await sql`select 1`;
      if (steppedAside !== null) throw new SteppedAside(steppedAside);
    },
    async checkSchema() {
      steppedAside = await schemaMisfit(sql, PG_SCHEMA_VERSION, location);
      return steppedAside;
    },
    schemaVersion: () => readSchemaVersion(sql),
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}
