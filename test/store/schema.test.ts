// Opening a store: the schema brought up to date, a newer one refused, and (PostgreSQL) one
// migration for nodes starting together and one-line errors without the password.
import Database from 'better-sqlite3';
import { type AddressInfo, createServer, connect as netConnect, type Socket } from 'node:net';
import postgres from 'postgres';
import { describe, expect, test } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/sqlite/connect.js';
import { connect, redactUrl } from '../../src/store/postgres/connect.js';
import { openPostgresStore, PG_SCHEMA_VERSION } from '../../src/store/postgres/index.js';
import { UserError } from '../../src/lib/errors.js';
import { isStoreUnavailable } from '../../src/store/unavailable.js';
import { freeTcpPort } from '../helpers/ports.js';
import { testSecrets } from '../helpers/secrets.js';
import { type FreshDatabase, STORE_KINDS, useStores } from '../helpers/stores.js';

/** Sets the schema version; on PostgreSQL also the oldest schema whose code works on it (default: that version only). */
async function setSchemaVersion(db: FreshDatabase, version: number, oldestCompatible = version): Promise<void> {
  if (db.kind === 'sqlite') {
    const raw = new Database(db.location);
    raw.pragma(`user_version = ${version}`);
    raw.close();
    return;
  }
  const sql = postgres(db.location, { max: 1, onnotice: () => {} });
  await sql`UPDATE schema_version SET version = ${version}, oldest_compatible = ${oldestCompatible}`;
  await sql.end();
}

describe.each(STORE_KINDS)('%s store: schema', (kind) => {
  const stores = useStores(kind);

  test('a new database gets the whole schema; a newer one is refused', async () => {
    const db = await stores.fresh();
    const store = await db.open();
    const known = kind === 'postgres' ? PG_SCHEMA_VERSION : SCHEMA_VERSION;
    expect(await store.schemaVersion()).toBe(known);
    await store.ping();
    expect(store.kind).toBe(kind);
    await store.close();

    await setSchemaVersion(db, known + 1);
    const refused = await db.open().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as Error).message).toMatch(
      new RegExp(`schema version ${known + 1}, newer than this ringhook understands \\(${known}\\)`),
    );
  });
});

describe('postgres store: opening', () => {
  const stores = useStores('postgres');

  test('nodes starting together on an empty database: one migrates, all open', async () => {
    const db = await stores.fresh();
    const opened = await Promise.all(['n1', 'n2', 'n3', 'n4'].map((nodeId) => db.open({ nodeId })));
    for (const store of opened) expect(await store.schemaVersion()).toBe(20);
    expect(PG_SCHEMA_VERSION).toBe(20);
    expect(opened[0]!.location).toBe(db.location);
  });

  test('a rolling upgrade: a newer schema made by expand migrations is worked on; one that is not sets the node aside (503), never a 500', async () => {
    const db = await stores.fresh();
    const node = await db.open({ nodeId: 'old' });
    expect(await node.checkSchema!()).toBeNull();
    // A newer node migrated to 10, recorded as still working for the code of 9 (expand): the node goes on, and a node of 9 still starts.
    await setSchemaVersion(db, PG_SCHEMA_VERSION + 1, PG_SCHEMA_VERSION);
    expect(await node.checkSchema!()).toBeNull();
    await node.ping();
    const started = await db.open({ nodeId: 'old-2' });
    expect(await started.schemaVersion()).toBe(PG_SCHEMA_VERSION + 1);
    // Then one that is not (a contract migration): the node takes no alerts (503, nothing recorded) and /healthz fails.
    await setSchemaVersion(db, PG_SCHEMA_VERSION + 2);
    const why = await node.checkSchema!();
    expect(why).toBe(
      `the database ${db.location} has schema ${PG_SCHEMA_VERSION + 2}, which this ringhook (schema ${PG_SCHEMA_VERSION}) cannot work on: upgrade this node (it takes no alerts until then)`,
    );
    const ping = await node.ping().catch((error: unknown) => error);
    expect(isStoreUnavailable(ping)).toBe(true);
    const refused = await node.calls
      .accept('0'.repeat(32), 'premium', { message: 'x' } as never)
      .catch((error: unknown) => error);
    expect(isStoreUnavailable(refused)).toBe(true);
    expect((refused as Error).message).toBe(why);
    // Set back (the newer nodes rolled back, say): it takes alerts again.
    await setSchemaVersion(db, PG_SCHEMA_VERSION, 8);
    expect(await node.checkSchema!()).toBeNull();
    await node.ping();
  });

  test('the location and every error leave the password out', async () => {
    expect(redactUrl('postgres://ringhook:s3cret@db.example:5432/ringhook')).toBe(
      'postgres://ringhook:***@db.example:5432/ringhook',
    );
    expect(redactUrl('postgresql://db.example/ringhook?user=r&password=s3cret&sslmode=require')).toBe(
      'postgresql://db.example/ringhook?user=r&password=***&sslmode=require',
    );
    expect(redactUrl('postgres://db.example/ringhook')).toBe('postgres://db.example/ringhook');

    const port = await freeTcpPort();
    const down = await connect(`postgres://ringhook:s3cret@127.0.0.1:${port}/ringhook`).catch(
      (error: unknown) => error,
    );
    expect(down).toBeInstanceOf(UserError);
    expect((down as Error).message).toMatch(
      /cannot connect to PostgreSQL at postgres:\/\/ringhook:\*\*\*@127\.0\.0\.1:\d+\/ringhook: connection refused/,
    );
    expect((down as Error).message).not.toContain('s3cret');
    // A password that is also a common letter masks the server's words only, never the message's own.
    const short = await connect(`postgres://u:p@127.0.0.1:${port}/ringhook`).catch((error: unknown) => error);
    expect((short as Error).message).toMatch(
      /^cannot connect to PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:\d+\/ringhook: connection refused \(is the server running, and on this port\?\)$/,
    );

    const cluster = stores.cluster();
    const missing = await openPostgresStore({
      url: `postgres://ringhook:s3cret@127.0.0.1:${cluster.port}/nowhere`,
      nodeId: 'n',
      secrets: testSecrets(),
    }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(UserError);
    expect((missing as Error).message).toMatch(/database "nowhere" does not exist/);
    expect((missing as Error).message).not.toContain('s3cret');

    await expect(connect('mysql://root:s3cret@localhost/x')).rejects.toThrow(
      /not a PostgreSQL URL: mysql:\/\/root:\*\*\*@localhost\/x/,
    );
  });

  // The slow first answer is made by a listener in front of the real server that holds the first
  // connection without a word (a fault a real PostgreSQL cannot be made to produce on demand: a boot,
  // a busy host); the later ones are passed through to it.
  test('a server slow to answer its first connection is waited for; a silent one is given up on after three tries of 2 s', async () => {
    const db = await stores.fresh();
    const held: Socket[] = [];
    let connections = 0;
    let holdAll = false;
    const silentFirst = createServer((socket) => {
      held.push(socket);
      if (connections++ === 0 || holdAll) return;
      const server = netConnect(stores.cluster().port, '127.0.0.1');
      socket.pipe(server).pipe(socket);
      server.on('error', () => socket.destroy());
      socket.on('error', () => server.destroy());
    });
    await new Promise<void>((resolve) => silentFirst.listen(0, '127.0.0.1', resolve));
    const port = (silentFirst.address() as AddressInfo).port;
    const url = db.location.replace(/@127\.0\.0\.1:\d+\//, `@127.0.0.1:${port}/`);
    try {
      const sql = await connect(url);
      expect(connections).toBe(2);
      await sql.end({ timeout: 1 });
      holdAll = true; // from here the server says nothing
      const started = performance.now();
      const silent = await connect(url).catch((error: unknown) => error);
      expect((silent as Error).message).toMatch(/: no answer within 2 s, 3 times$/);
      expect(performance.now() - started).toBeGreaterThan(5_500);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silentFirst.close(resolve));
    }
  }, 30_000);

  test('a store whose server went away: ping throws while it is down, and the pool reconnects once it is back', async () => {
    const db = await stores.fresh();
    const store = await db.open();
    await store.accounts.create({ phone: '+14155550123', plan: 'free', smsBackup: false, name: '' });
    await stores.cluster().kill();
    await expect(store.ping()).rejects.toThrow();
    await stores.cluster().restart();
    await store.ping();
    expect(await store.accounts.list()).toHaveLength(1);
  });
});
