// Opens the store for serve and for the CLI: SQLite in the data dir, or PostgreSQL shared by several
// nodes, with the api_keys' secret key; a data dir that cannot be used is said with its variable.
import type { Config } from '../config/index.js';
import { databaseTls } from '../core/server/database-tls.js';
import { UserError } from '../lib/errors.js';
import { silentLogger, type Logger } from '../lib/log.js';
import { loadPostgres, loadSecretBox, openSqliteStore, type Store } from '../store/index.js';
import { refuseMigrationUnderServe } from './schema-guard.js';

/** The store as the service and the CLI open it. */
export type Stores = Store;

/**
 * The store (SQLite in the data dir, or PostgreSQL shared by several nodes), with the api_keys'
 * secret key. `lostSecretKey` opens a database whose key is lost, only to give every account a
 * new api_key (regenerateAllKeys).
 */
export async function openStores(
  config: Pick<Config, 'dbFile' | 'dbSync' | 'dataDir' | 'secretKey' | 'databaseUrl' | 'databaseTls' | 'nodeId'> &
    Partial<Pick<Config, 'telephony'>>,
  now: () => number = Date.now,
  options: { lostSecretKey?: boolean; logger?: Logger; asNode?: boolean } = {},
): Promise<Store> {
  try {
    return await openStoresIn(config, now, options);
  } catch (error) {
    throw dataDirError(error, config.dataDir) ?? error;
  }
}

/** The data dir's files could not be made or opened (a file in its place, another user's, a read-only disk): said with the variable. */
export function dataDirError(error: unknown, dataDir: string): UserError | undefined {
  const { code, path: file } = error as NodeJS.ErrnoException;
  if (
    !code ||
    !['EACCES', 'EPERM', 'ENOTDIR', 'EROFS', 'EEXIST', 'ENOENT'].includes(code) ||
    !file?.startsWith(dataDir)
  )
    return undefined;
  const why = ['ENOTDIR', 'EEXIST'].includes(code)
    ? 'a file stands where a folder should be'
    : 'run ringhook as the user that owns it (the one serve runs as), or set RINGHOOK_DATA_DIR to a folder this user can write';
  return new UserError(`RINGHOOK_DATA_DIR (${dataDir}) cannot be used: ${code} on ${file}; ${why}`);
}

async function openStoresIn(
  config: Pick<Config, 'dbFile' | 'dbSync' | 'dataDir' | 'secretKey' | 'databaseUrl' | 'databaseTls' | 'nodeId'> &
    Partial<Pick<Config, 'telephony'>>,
  now: () => number,
  options: { lostSecretKey?: boolean; logger?: Logger; asNode?: boolean },
): Promise<Store> {
  const secrets = loadSecretBox(config);
  const checkKey = !options.lostSecretKey;
  if (config.databaseUrl) {
    const { openPostgresStore } = await loadPostgres();
    const { tls, local, hosts } = databaseTls(config.databaseUrl, {
      caFile: config.databaseTls.caFile !== undefined,
      allowUnverified: config.databaseTls.allowUnverified,
    });
    if (!local && tls !== 'verified' && config.databaseTls.allowUnverified) {
      options.logger?.warn(
        'the database is reached without a verified certificate (RINGHOOK_DATABASE_UNVERIFIED=on): keep its network private',
        {
          hosts,
          tls,
        },
      );
    }
    return openPostgresStore({
      url: config.databaseUrl,
      nodeId: options.asNode ? config.nodeId : null,
      secrets,
      now,
      checkKey,
      tls: config.databaseTls,
      // A dead node's line is freed once its call cannot be up any more, clocks a few seconds apart.
      ...(config.telephony && { lineHoldMs: config.telephony.maxCallSec * 1000 + 5_000 }),
    });
  }
  // serve holds the lock already; a command must not migrate under a running serve.
  if (!options.asNode) refuseMigrationUnderServe(config);
  return openSqliteStore(config.dbFile, {
    sync: config.dbSync,
    secrets,
    now,
    checkKey,
    logger: options.logger ?? silentLogger,
    checkpointInThread: options.asNode === true,
  });
}
