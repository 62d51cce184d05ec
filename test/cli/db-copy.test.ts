// `ringhook db copy` as a real process, from a SQLite data dir to a real PostgreSQL: every account,
// call and session arrives as it was, the webhook URLs keep working (the same secret key), the CLI
// then works against PostgreSQL, and a target that is not empty is refused with nothing written.
import fs from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce, runCli } from '../helpers/cli.js';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';
import { makeDataDir } from '../helpers/service.js';
import { parseAlertBody } from '../../src/core/webhook/payload.js';
import { SecretBox } from '../../src/store/secret-box.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { PG_SCHEMA_VERSION } from '../../src/store/postgres/index.js';
import { silentLogger } from '../../src/lib/log.js';

const SECRET = 'a'.repeat(64);
let pg: PgCluster;
let dataDir: string;
let sqliteEnv: Record<string, string>;

beforeAll(async () => {
  buildOnce();
  pg = await startPostgres();
  dataDir = makeDataDir('rh-dbcopy-');
  sqliteEnv = { RINGHOOK_DATA_DIR: dataDir, RINGHOOK_SECRET_KEY: SECRET };
}, 120_000);

afterAll(async () => {
  await pg?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const pgEnv = (url: string) => ({ ...sqliteEnv, RINGHOOK_DATABASE_URL: url });

describe('ringhook db copy', () => {
  it('copies accounts, their sealed keys, the history and the counters; the CLI then reads them from PostgreSQL', async () => {
    const created = [1, 2, 3].map((i) =>
      runCli(['account', 'create', '--phone', `+1415555010${i}`, '--plan', 'premium', '--json'], sqliteEnv),
    );
    for (const c of created) expect(c.code, c.stderr).toBe(0);
    const accounts = created.map((c) => c.json as { user_id: string; webhook_url: string });
    const suspended = runCli(['account', 'suspend', accounts[2]!.user_id, '--json'], sqliteEnv);
    expect(suspended.code, suspended.stderr).toBe(0);
    const link = runCli(['account', 'login-link', accounts[0]!.user_id, '--json'], sqliteEnv);
    expect(link.code, link.stderr).toBe(0);
    // History: accepted alerts with their steps, a rejection, the month's usage.
    const store = openSqliteStore(path.join(dataDir, 'ringhook.db'), {
      secrets: new SecretBox(Buffer.from(SECRET, 'hex'), 'test'),
      logger: silentLogger,
    });
    try {
      for (const i of [1, 2]) {
        const alert = parseAlertBody(
          new TextEncoder().encode(`{"message":"AAPL crossed ${i}","price":"19${i}.5","strategy":"s"}`),
          'application/json',
        );
        if (!alert.ok) throw new Error(alert.error);
        const accepted = await store.calls.accept(accounts[0]!.user_id, 'premium', alert.alert);
        if (!accepted.accepted) throw new Error('not accepted');
        store.progress.transition(accepted.callId, 'dialing', { phone: '+14155550101', dialedAt: Date.now() });
        store.progress.transition(accepted.callId, 'busy', { endedAt: Date.now(), sipCode: 486 });
      }
      await store.calls.recordRejection({
        userId: accounts[1]!.user_id,
        status: 'invalid_payload',
        error: 'bad',
        excerpt: '{',
      });
    } finally {
      await store.close();
    }
    const before = runCli(['account', 'list', '--json'], sqliteEnv).json;
    const historyBefore = runCli(['calls', '--json'], sqliteEnv).json;
    expect((historyBefore as unknown[]).length).toBe(3);

    const target = await pg.createDatabase('copy_target');
    const res = runCli(
      ['db', 'copy', '--from', path.join(dataDir, 'ringhook.db'), '--to', target, '--json'],
      sqliteEnv,
    );
    expect(res.code, res.stderr).toBe(0);
    const report = res.json as { tables: Array<{ table: string; rows: number }>; to: string };
    expect(Object.fromEntries(report.tables.map((t) => [t.table, t.rows]))).toMatchObject({
      accounts: 3,
      secret_key_check: 1,
      login_links: 1,
      calls: 3,
      usage: 1,
      call_events: 4,
    });
    // The password of the URL is never printed.
    expect(res.stdout + res.stderr).not.toContain('secret-password');

    // The same accounts, the same webhook URLs (sealed keys opened with the same secret key).
    const after = runCli(['account', 'list', '--json'], pgEnv(target));
    expect(after.code, after.stderr).toBe(0);
    expect(after.json).toEqual(before);
    expect(runCli(['calls', '--json'], pgEnv(target)).json).toEqual(historyBefore);

    // New rows get ids after the copied ones: the sequences moved on.
    const sql = postgres(target, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql<
        { accounts: string; links: string }[]
      >`SELECT (SELECT count(*) FROM accounts) AS accounts, (SELECT count(*) FROM login_links) AS links`;
      expect(Number(row!.accounts)).toBe(3);
      expect(Number(row!.links)).toBe(1);
    } finally {
      await sql.end();
    }
    const more = runCli(['account', 'create', '--phone', '+14155550199', '--json'], pgEnv(target));
    expect(more.code, more.stderr).toBe(0);
  }, 120_000);

  it('doctor names the store, its schema and the nodes alive; a wrong password is named without showing it', async () => {
    const url = await pg.createDatabase('doctor_db');
    const ok = runCli(['doctor', '--json'], { ...pgEnv(url), RINGHOOK_TELEPHONY: 'off' });
    const checks = ok.json as Array<{ name: string; ok: boolean; detail: string }>;
    const database = checks.find((c) => c.name === 'database')!;
    expect(database.ok, JSON.stringify(database)).toBe(true);
    expect(database.detail).toMatch(
      new RegExp(
        `^postgres postgres://.*doctor_db: schema ${PG_SCHEMA_VERSION}, 0 account\\(s\\), 0 node\\(s\\) alive: none`,
      ),
    );
    const wrong = new URL(url);
    wrong.username = 'nobody';
    wrong.password = 'hunter22';
    const bad = runCli(['doctor', '--json'], { ...pgEnv(wrong.toString()), RINGHOOK_TELEPHONY: 'off' });
    const failed = (bad.json as Array<{ name: string; ok: boolean; detail: string }>).find(
      (c) => c.name === 'database',
    )!;
    expect(failed.ok).toBe(false);
    expect(JSON.stringify(failed)).not.toContain('hunter22');
    expect(JSON.stringify(failed)).toMatch(/RINGHOOK_DATABASE_URL/);
  }, 60_000);

  it('refuses a target that already has accounts, and writes nothing into it', async () => {
    const target = await pg.createDatabase('copy_busy');
    const existing = runCli(['account', 'create', '--phone', '+14155550150', '--json'], pgEnv(target));
    expect(existing.code, existing.stderr).toBe(0);
    const res = runCli(['db', 'copy', '--from', path.join(dataDir, 'ringhook.db'), '--to', target], sqliteEnv);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/already has accounts or calls/);
    const list = runCli(['account', 'list', '--json'], pgEnv(target));
    expect((list.json as unknown[]).length).toBe(1);
  }, 60_000);

  it('refuses a source with calls in progress or SMS left half-sent (no PostgreSQL node would take them over), and writes nothing', async () => {
    const target = await pg.createDatabase('copy_unsettled');
    const source = makeDataDir();
    fs.copyFileSync(path.join(dataDir, 'ringhook.db'), path.join(source, 'ringhook.db'));
    const db = new Database(path.join(source, 'ringhook.db'));
    db.prepare("UPDATE calls SET status = 'ringing' WHERE id = (SELECT min(id) FROM calls)").run();
    db.prepare("UPDATE calls SET status = 'busy', sms_status = 'waiting' WHERE id = (SELECT max(id) FROM calls)").run();
    db.close();
    const res = runCli(['db', 'copy', '--from', path.join(source, 'ringhook.db'), '--to', target], sqliteEnv);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /has 1 call\(s\) in progress and 1 SMS being sent or waiting for the gateway, which no PostgreSQL node would take over/,
    );
    const sql = postgres(target, { max: 1, onnotice: () => {} });
    try {
      expect(await sql`SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`).toHaveLength(0);
    } finally {
      await sql.end();
    }
  }, 60_000);

  it('says what is wrong with a missing file, a wrong URL, a server that does not answer', () => {
    const missing = runCli(
      ['db', 'copy', '--from', '/nonexistent/ringhook.db', '--to', 'postgres://u@127.0.0.1:1/x'],
      sqliteEnv,
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/does not exist/);
    const wrong = runCli(['db', 'copy', '--from', path.join(dataDir, 'ringhook.db'), '--to', 'mysql://x'], sqliteEnv);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/--to must be a PostgreSQL URL/);
    const down = runCli(
      ['db', 'copy', '--from', path.join(dataDir, 'ringhook.db'), '--to', 'postgres://u:secret-password@127.0.0.1:1/x'],
      sqliteEnv,
    );
    expect(down.code).toBe(1);
    expect(down.stderr).not.toMatch(/secret-password/);
    expect(down.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it("changes neither side when one is wrong: a file that is not ringhook's stays as it was, another program's database gets no table", async () => {
    const notOurs = path.join(makeDataDir('rh-dbcopy-other-'), 'other.db');
    fs.writeFileSync(notOurs, '');
    const target = await pg.createDatabase('copy_other');
    const refusedFile = runCli(['db', 'copy', '--from', notOurs, '--to', target], sqliteEnv);
    expect(refusedFile.code).toBe(1);
    expect(refusedFile.stderr).toMatch(/is not a ringhook database/);
    expect(fs.statSync(notOurs).size).toBe(0);

    const sql = postgres(target, { max: 1, onnotice: () => {} });
    try {
      await sql`CREATE TABLE invoices (id int)`;
      const refusedTarget = runCli(
        ['db', 'copy', '--from', path.join(dataDir, 'ringhook.db'), '--to', target],
        sqliteEnv,
      );
      expect(refusedTarget.code).toBe(1);
      expect(refusedTarget.stderr).toMatch(/is another program's database \(invoices\)/);
      expect(
        (await sql`SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`).map((r) => r.tablename),
      ).toEqual(['invoices']);
    } finally {
      await sql.end({ timeout: 5 });
    }
  }, 60_000);
});
