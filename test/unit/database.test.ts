// The SQLite store against real files in a temp dir: opening, permissions, locking and the migrations.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/core/ids.js';
import { SqliteAccountStore } from '../../src/store/sqlite/accounts.js';
import { SqliteCallStore } from '../../src/store/sqlite/calls.js';
import { migrate, SCHEMA_VERSION } from '../../src/store/sqlite/connect.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations/index.js';
import { UserError } from '../../src/lib/errors.js';
import { SecretBox } from '../../src/store/secret-box.js';
import { testSecrets } from '../helpers/secrets.js';
import { createAccount } from '../helpers/accounts.js';
import {
  useTempDatabases,
  openTracked,
  raw,
  mode,
  sha256,
  schemaOf,
  columnsOf,
  count,
  tmp,
} from '../helpers/database.js';

useTempDatabases();

describe('openDatabase', () => {
  it('creates the file with mode 0600 in a directory created with mode 0700', () => {
    const dir = path.join(tmp, 'nested', 'data');
    const file = path.join(dir, 'ringhook.db');
    const db = openTracked(file);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(tmp, 'nested'))).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    for (const sidecar of [`${file}-wal`, `${file}-shm`]) if (fs.existsSync(sidecar)) expect(mode(sidecar)).toBe(0o600);
    db.close();
    expect(mode(file)).toBe(0o600);
  });

  it('does not loosen an existing directory', () => {
    const dir = path.join(tmp, 'existing');
    fs.mkdirSync(dir, { mode: 0o750 });
    fs.chmodSync(dir, 0o750);
    openTracked(path.join(dir, 'ringhook.db'));
    expect(mode(dir)).toBe(0o750);
  });

  it('turns on WAL, foreign keys, a busy timeout and full sync by default', () => {
    const db = openTracked(path.join(tmp, 'a.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
  });

  it('takes the sync mode and busy timeout from the options', () => {
    const db = openTracked(path.join(tmp, 'a.db'), { sync: 'normal', busyTimeoutMs: 250 });
    expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(db.pragma('busy_timeout', { simple: true })).toBe(250);
  });

  it('sets user_version to the number of migrations, with the tables of every migration', () => {
    const db = openTracked(path.join(tmp, 'a.db'));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    const tables = schemaOf(db)
      .filter((o) => o.type === 'table')
      .map((o) => o.name);
    expect(tables).toEqual(expect.arrayContaining(['accounts', 'calls', 'usage', 'call_events']));
    expect(columnsOf(db, 'calls')).toEqual(expect.arrayContaining(['call_id', 'phone', 'channel_id', 'sms_status']));
  });

  it('opens an up-to-date database again without change', () => {
    const file = path.join(tmp, 'a.db');
    const secrets = testSecrets();
    const first = openTracked(file, { secrets });
    const accounts = new SqliteAccountStore(first, secrets);
    const a = createAccount(accounts, { plan: 'free', name: 'n' });
    const schema = schemaOf(first);
    first.close();
    const second = openTracked(file, { secrets });
    expect(schemaOf(second)).toEqual(schema);
    expect(new SqliteAccountStore(second, secrets).get(a.userId)).toEqual(a);
  });

  it('refuses a database written by a newer ringhook with a clear UserError', () => {
    const file = path.join(tmp, 'newer.db');
    const db = raw(file);
    db.exec('CREATE TABLE from_the_future (x INTEGER)');
    db.pragma('journal_mode = WAL');
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    let error: unknown;
    try {
      openTracked(file);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UserError);
    const message = (error as Error).message;
    expect(message).toContain(file);
    expect(message).toContain(`schema version ${MIGRATIONS.length + 1}`);
    expect(message).toMatch(/newer/);
    expect(message).toMatch(/backup/);
    const after = raw(file, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length + 1);
    expect(schemaOf(after).map((o) => o.name)).toEqual(['from_the_future']);
  });

  // A newer database may be in rollback-journal mode (a backup, a copy made with VACUUM INTO):
  // refusing it must not write to it at all.
  it('leaves a refused newer database byte for byte as it was', () => {
    const file = path.join(tmp, 'newer.db');
    const db = raw(file);
    db.exec('CREATE TABLE from_the_future (x INTEGER); INSERT INTO from_the_future VALUES (1)');
    db.pragma('user_version = 99');
    db.close();
    const before = sha256(file);
    expect(() => openTracked(file)).toThrow(UserError);
    expect(sha256(file)).toBe(before);
    expect(fs.readdirSync(tmp).sort()).toEqual(['newer.db']);
  });

  it('upgrades a hand-built version-1 database and keeps its data', () => {
    const file = path.join(tmp, 'v1.db');
    const v1 = raw(file);
    v1.exec(MIGRATIONS[0]!.sql);
    v1.pragma('user_version = 1');
    v1.prepare(
      `INSERT INTO accounts (user_id, api_key, name, phone, plan, sms_backup, status, created_at, updated_at, key_created_at)
       VALUES (?, ?, 'old account', '+14155550123', 'free', 1, 'active', 1000, 1000, 1000)`,
    ).run('0123456789abcdef0123456789abcdef', `rk_${'A'.repeat(43)}`);
    v1.prepare(
      `INSERT INTO calls (call_id, user_id, kind, accepted, status, message, message_truncated, ticker, price, extra, received_at, updated_at)
       VALUES ('call_old', '0123456789abcdef0123456789abcdef', 'alert', 1, 'completed', 'BTC up', 0, 'BTCUSD', 100.5, '{"exchange":"X"}', 2000, 2000)`,
    ).run();
    v1.prepare(
      `INSERT INTO usage (user_id, month, calls) VALUES ('0123456789abcdef0123456789abcdef', '2026-11', 1)`,
    ).run();
    v1.close();

    const secrets = testSecrets();
    const db = openTracked(file, { secrets });
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(columnsOf(db, 'calls')).toEqual(
      expect.arrayContaining(['phone', 'channel_id', 'dialed_at', 'hangup_cause', 'sms_status', 'sms_error']),
    );
    expect(columnsOf(db, 'call_events')).toEqual(['id', 'call_id', 'at', 'event', 'detail']);

    const account = new SqliteAccountStore(db, secrets).get('0123456789abcdef0123456789abcdef');
    expect(account).toMatchObject({
      name: 'old account',
      apiKey: `rk_${'A'.repeat(43)}`,
      plan: 'free',
      smsBackup: true,
      status: 'active',
      createdAt: 1000,
    });
    // Accounts from before speak as they did: English, the default voice, the language's intro.
    expect(account).toMatchObject({ language: 'en', voice: 'slt', intro: null });
    expect(
      new SqliteAccountStore(db, secrets).authenticate('0123456789abcdef0123456789abcdef', `rk_${'A'.repeat(43)}`),
    ).toBeDefined();
    const calls = new SqliteCallStore(db);
    expect(calls.get('call_old')).toMatchObject({
      status: 'completed',
      message: 'BTC up',
      ticker: 'BTCUSD',
      price: 100.5,
      extra: { exchange: 'X' },
      receivedAt: 2000,
    });
    expect(db.prepare('SELECT phone, sms_status FROM calls WHERE call_id = ?').get('call_old')).toEqual({
      phone: null,
      sms_status: null,
    });
    expect(calls.usage('0123456789abcdef0123456789abcdef', Date.parse('2026-11-15T00:00:00Z')).used).toBe(1);
    // The new table works with the old rows.
    db.prepare(`INSERT INTO call_events (call_id, at, event) VALUES ('call_old', 3000, 'ended')`).run();
    expect(count(db, 'SELECT count(*) FROM call_events')).toBe(1);
  });

  describe('a failing migration', () => {
    const first = { name: '001-first', sql: 'CREATE TABLE one (a INTEGER) STRICT;' };
    const broken = {
      name: '002-broken',
      sql: 'CREATE TABLE half_done (b INTEGER) STRICT; ALTER TABLE one ADD COLUMN c TEXT; ALTER TABLE no_such_table ADD COLUMN d TEXT;',
    };

    it('leaves user_version and the schema as they were', () => {
      const file = path.join(tmp, 'm.db');
      openTracked(file, { migrations: [first] }).close();
      const before = raw(file);
      const schema = schemaOf(before);
      before.close();

      let error: unknown;
      try {
        openTracked(file, { migrations: [first, broken] });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UserError);
      expect((error as Error).message).toContain(file);
      expect((error as Error).message).toMatch(/no_such_table/);

      const after = raw(file);
      expect(after.pragma('user_version', { simple: true })).toBe(1);
      expect(schemaOf(after)).toEqual(schema);
      expect(columnsOf(after, 'one')).toEqual(['a']);
    });

    it('keeps the migrations before it on a new database', () => {
      const file = path.join(tmp, 'fresh.db');
      expect(() => openTracked(file, { migrations: [first, broken] })).toThrow(UserError);
      const after = raw(file);
      expect(after.pragma('user_version', { simple: true })).toBe(1);
      expect(schemaOf(after).map((o) => o.name)).toEqual(['one']);
    });

    it('is named in the error, so the operator knows which step failed', () => {
      const file = path.join(tmp, 'named.db');
      expect(() => openTracked(file, { migrations: [first, broken] })).toThrow(/002-broken/);
    });

    it('migrate() alone applies only the missing steps', () => {
      const db = raw(path.join(tmp, 'direct.db'));
      migrate(db, [first]);
      expect(db.pragma('user_version', { simple: true })).toBe(1);
      migrate(db, [first, { name: '002-two', sql: 'CREATE TABLE two (x INTEGER) STRICT;' }]);
      expect(db.pragma('user_version', { simple: true })).toBe(2);
      expect(schemaOf(db).map((o) => o.name)).toEqual(['one', 'two']);
      expect(() => migrate(db, [first])).toThrow(UserError);
    });
  });
});

/** Every byte of the database as it is on disk now: the file and its write-ahead log. */
function bytesOnDisk(file: string): Buffer {
  return Buffer.concat([file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
}

describe('migration 004: the api_keys sealed at rest', () => {
  /** A database as ringhook wrote it before 004: version 3, api_keys in the clear. */
  function version3WithClearKeys(file: string): Array<{ userId: string; apiKey: string }> {
    const v3 = raw(file);
    v3.pragma('journal_mode = WAL');
    for (const m of MIGRATIONS.slice(0, 3)) v3.exec(m.sql);
    v3.pragma('user_version = 3');
    const accounts = Array.from({ length: 3 }, () => ({
      userId: crypto.randomBytes(16).toString('hex'),
      apiKey: newApiKey(),
    }));
    const insert = v3.prepare(
      `INSERT INTO accounts (user_id, api_key, name, phone, plan, sms_backup, status, created_at, updated_at, key_created_at)
       VALUES (?, ?, '', '+14155550123', 'premium', 0, 'active', 1000, 1000, 1000)`,
    );
    for (const a of accounts) insert.run(a.userId, a.apiKey);
    v3.close();
    for (const a of accounts) expect(bytesOnDisk(file).includes(a.apiKey)).toBe(true);
    return accounts;
  }

  it('seals every clear key at the first start: none left on disk, each still authenticates and shows', () => {
    const file = path.join(tmp, 'v3.db');
    const old = version3WithClearKeys(file);
    const secrets = testSecrets();
    const db = openTracked(file, { secrets });
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const disk = bytesOnDisk(file);
    for (const a of old) {
      expect(disk.includes(a.apiKey), a.apiKey).toBe(false);
      expect(disk.includes(a.apiKey.slice(3))).toBe(false);
    }
    const accounts = new SqliteAccountStore(db, secrets);
    for (const a of old) {
      expect(accounts.get(a.userId)!.apiKey).toBe(a.apiKey);
      expect(accounts.authenticate(a.userId, a.apiKey)?.userId).toBe(a.userId);
      expect(accounts.authenticate(a.userId, newApiKey())).toBeUndefined();
    }
    expect(
      db
        .prepare('SELECT count(*) FROM accounts WHERE api_key_sealed LIKE ? OR length(api_key_mac) <> 32')
        .pluck()
        .get('rk_%'),
    ).toBe(0);
  });

  it('needs the secret key when there are clear keys to seal', () => {
    const file = path.join(tmp, 'v3.db');
    version3WithClearKeys(file);
    expect(() => openTracked(file)).toThrow(/004-sealed-api-keys.*needs the secret key/);
    expect(raw(file).pragma('user_version', { simple: true })).toBe(3);
  });

  it('refuses another secret key with a message naming where the key comes from and what to do', () => {
    const file = path.join(tmp, 'a.db');
    const secrets = testSecrets();
    new SqliteAccountStore(openTracked(file, { secrets }), secrets).create({
      phone: '+14155550123',
      plan: 'free',
      smsBackup: false,
      name: '',
    });
    const other = new SecretBox(crypto.randomBytes(32), 'RINGHOOK_SECRET_KEY');
    let error: unknown;
    try {
      new SqliteAccountStore(openTracked(file, { secrets: other }), other);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UserError);
    const message = (error as Error).message;
    expect(message).toContain(file);
    expect(message).toMatch(/another secret key than RINGHOOK_SECRET_KEY/);
    expect(message).toMatch(/api-keys\.secret/);
    expect(message).toMatch(/account regenerate --all --yes/);
  });

  it('regenerateAllKeys gives every account a new key under a new secret key, which the database adopts', () => {
    const file = path.join(tmp, 'a.db');
    const lost = testSecrets();
    const before = new SqliteAccountStore(openTracked(file, { secrets: lost }), lost).create({
      phone: '+14155550123',
      plan: 'free',
      smsBackup: false,
      name: '',
    });
    const fresh = testSecrets();
    const db = openTracked(file, { secrets: fresh });
    const [after] = new SqliteAccountStore(db, fresh, Date.now, { checkKey: false }).regenerateAllKeys();
    expect(after!.userId).toBe(before.userId);
    expect(after!.apiKey).not.toBe(before.apiKey);
    const accounts = new SqliteAccountStore(db, fresh);
    expect(accounts.authenticate(before.userId, after!.apiKey)?.userId).toBe(before.userId);
    expect(accounts.authenticate(before.userId, before.apiKey)).toBeUndefined();
  });
});

/** A fresh database in the test's folder with its stores, on a clock that starts at `start`. */
