// The PostgreSQL driver as installed (scripts/patch-postgres.mjs mends it after every install),
// against a real PostgreSQL: a connection whose server side ends fails its next query with
// CONNECTION_CLOSED, and the process lives on. Unmended, postgres 3.4.9 wrote to no socket from a
// setImmediate and threw where no caller can catch it (serve exited: porsager/postgres#1154).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type PgCluster, startPostgres } from '../helpers/postgres.js';

let pg: PgCluster;
let url: string;

beforeAll(async () => {
  pg = await startPostgres();
  url = await pg.createDatabase('ringhook_driver');
}, 180_000);

afterAll(async () => {
  await pg?.stop();
});

it('the installed driver is the mended one (both its module builds)', () => {
  const root = fileURLToPath(new URL('../../node_modules/postgres/', import.meta.url));
  for (const file of ['src/connection.js', 'cjs/src/connection.js']) {
    expect(fs.readFileSync(path.join(root, file), 'utf8'), file).toContain('ringhook: mended');
  }
});

/** Runs `work` and returns what was thrown where no caller could catch it meanwhile. */
async function uncaughtDuring(work: () => Promise<void>): Promise<unknown[]> {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  try {
    await work();
    await new Promise((r) => setTimeout(r, 200));
  } finally {
    process.off('uncaughtException', onUncaught);
  }
  return uncaught;
}

it("a transaction whose connection the server ends fails with CONNECTION_CLOSED, and the pool's next query works", async () => {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const uncaught = await uncaughtDuring(async () => {
      const tx = sql.begin(async (t) => {
        const [row] = await t<{ pid: number }[]>`select pg_backend_pid() as pid`;
        await admin`select pg_terminate_backend(${row!.pid})`;
        await new Promise((r) => setTimeout(r, 200));
        await t`select 1 as one`;
      });
      await expect(tx).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
      expect(await sql`select 2 as two`).toEqual([{ two: 2 }]);
    });
    expect(uncaught).toEqual([]);
  } finally {
    await sql.end({ timeout: 1 });
    await admin.end({ timeout: 1 });
  }
});

it('a reserved connection the server ended: its next query fails with CONNECTION_CLOSED instead of throwing where no one catches it', async () => {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const uncaught = await uncaughtDuring(async () => {
      const reserved = await sql.reserve();
      const [row] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await admin`select pg_terminate_backend(${row!.pid})`;
      await new Promise((r) => setTimeout(r, 200));
      await expect(reserved`select 1 as one`).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
      reserved.release();
    });
    expect(uncaught).toEqual([]);
  } finally {
    await sql.end({ timeout: 1 });
    await admin.end({ timeout: 1 });
  }
});
