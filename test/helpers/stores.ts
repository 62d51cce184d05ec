// The store tests run the same bodies against both stores: SQLite (a temp file, openSqliteStore) and PostgreSQL (a fresh database of a throwaway cluster).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/index.js';
import type { SecretBox } from '../../src/store/secret-box.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { Store } from '../../src/store/contract.js';
import { silentLogger } from '../../src/lib/log.js';
import { type PgCluster, startPostgres } from './postgres.js';
import { testSecrets } from './secrets.js';

export type StoreKind = 'sqlite' | 'postgres';
export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres'];

export interface OpenOptions {
  now?: () => number;
  /** PostgreSQL: the node the store speaks for (default node-a). */
  nodeId?: string;
  secrets?: SecretBox;
  checkKey?: boolean;
}

/** One empty database; open() gives a store over it (several, for PostgreSQL's nodes). */
export interface FreshDatabase {
  kind: StoreKind;
  /** The SQLite file or the PostgreSQL URL. */
  location: string;
  secrets: SecretBox;
  open(options?: OpenOptions): Promise<Store>;
}

/**
 * Per describe block: for PostgreSQL a cluster started before its tests and stopped after; fresh()
 * gives each test its own database. What the test opened is closed after it.
 */
export function useStores(kind: StoreKind): { fresh(): Promise<FreshDatabase>; cluster(): PgCluster } {
  let cluster: PgCluster | undefined;
  let tmp: string | undefined;
  let counter = 0;
  const opened: Store[] = [];

  beforeAll(async () => {
    if (kind === 'postgres') cluster = await startPostgres();
    else tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-store-'));
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close().catch(() => {})));
  });
  afterAll(async () => {
    await cluster?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  return {
    cluster() {
      if (!cluster) throw new Error('no PostgreSQL cluster in this block');
      return cluster;
    },
    async fresh() {
      counter++;
      const secrets = testSecrets();
      const location =
        kind === 'postgres'
          ? await this.cluster().createDatabase(`test_${counter}`)
          : path.join(tmp!, `store-${counter}.db`);
      return {
        kind,
        location,
        secrets,
        async open(options: OpenOptions = {}) {
          const common = {
            secrets: options.secrets ?? secrets,
            ...(options.now && { now: options.now }),
            ...(options.checkKey === false && { checkKey: false }),
          };
          const store =
            kind === 'postgres'
              ? await openPostgresStore({ url: location, nodeId: options.nodeId ?? 'node-a', poolSize: 5, ...common })
              : openSqliteStore(location, { ...common, sync: 'normal', logger: silentLogger });
          opened.push(store);
          return store;
        },
      };
    },
  };
}
