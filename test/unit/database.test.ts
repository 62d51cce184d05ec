// The SQLite store against real files in a temp dir: opening, migrations, accounts and the call history.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY_PATTERN, newApiKey, USER_ID_PATTERN } from '../../src/core/ids.js';
import { TEST_CALL_LIMITS } from '../../src/core/limits.js';
import { parseAlertBody, type Alert } from '../../src/core/payload.js';
import { AccountStore } from '../../src/db/accounts.js';
import { CallStore, MAX_REJECTIONS_KEPT } from '../../src/db/calls.js';
import { migrate, openDatabase, SCHEMA_VERSION, type Db } from '../../src/db/database.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { UserError } from '../../src/errors.js';
import { SecretBox } from '../../src/db/secret-box.js';
import { testSecrets } from '../helpers/secrets.js';

let tmp: string;
const open: Db[] = [];

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-db-'));
});

afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function openTracked(file: string, options?: Parameters<typeof openDatabase>[1]): Db {
  const db = openDatabase(file, options);
  open.push(db);
  return db;
}

function raw(file: string, options?: Database.Options): Db {
  const db = new Database(file, options);
  open.push(db);
  return db;
}

const mode = (p: string) => fs.statSync(p).mode & 0o777;
const sha256 = (p: string) => crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
const schemaOf = (db: Db) =>
  db.prepare<[], { type: string; name: string; sql: string | null }>("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all();
const columnsOf = (db: Db, table: string) => db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`).all().map((c) => c.name);
const count = (db: Db, sql: string, ...params: unknown[]) => (db.prepare(sql).pluck().get(...params) as number);

function textAlert(message: string): Alert {
  const result = parseAlertBody(new TextEncoder().encode(message), 'text/plain');
  if (!result.ok) throw new Error(result.error);
  return result.alert;
}

function jsonAlert(value: unknown): Alert {
  const result = parseAlertBody(new TextEncoder().encode(JSON.stringify(value)), 'application/json');
  if (!result.ok) throw new Error(result.error);
  return result.alert;
}

/** A clock the test moves by hand. */
function manualClock(iso: string) {
  let now = Date.parse(iso);
  return {
    now: () => now,
    set: (to: string) => (now = Date.parse(to)),
    advance: (ms: number) => (now += ms),
  };
}

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
    const tables = schemaOf(db).filter((o) => o.type === 'table').map((o) => o.name);
    expect(tables).toEqual(expect.arrayContaining(['accounts', 'calls', 'usage', 'call_events']));
    expect(columnsOf(db, 'calls')).toEqual(expect.arrayContaining(['call_id', 'phone', 'channel_id', 'sms_status']));
  });

  it('opens an up-to-date database again without change', () => {
    const file = path.join(tmp, 'a.db');
    const secrets = testSecrets();
    const first = openTracked(file, { secrets });
    const accounts = new AccountStore(first, secrets);
    const a = accounts.create({ phone: '+14155550123', plan: 'free', smsBackup: false, name: 'n' });
    const schema = schemaOf(first);
    first.close();
    const second = openTracked(file, { secrets });
    expect(schemaOf(second)).toEqual(schema);
    expect(new AccountStore(second, secrets).get(a.userId)).toEqual(a);
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
    ).run('0123456789abcdef0123456789abcdef', 'rk_' + 'A'.repeat(43));
    v1.prepare(
      `INSERT INTO calls (call_id, user_id, kind, accepted, status, message, message_truncated, ticker, price, extra, received_at, updated_at)
       VALUES ('call_old', '0123456789abcdef0123456789abcdef', 'alert', 1, 'completed', 'BTC up', 0, 'BTCUSD', 100.5, '{"exchange":"X"}', 2000, 2000)`,
    ).run();
    v1.prepare(`INSERT INTO usage (user_id, month, calls) VALUES ('0123456789abcdef0123456789abcdef', '2026-11', 1)`).run();
    v1.close();

    const secrets = testSecrets();
    const db = openTracked(file, { secrets });
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(columnsOf(db, 'calls')).toEqual(expect.arrayContaining(['phone', 'channel_id', 'dialed_at', 'hangup_cause', 'sms_status', 'sms_error']));
    expect(columnsOf(db, 'call_events')).toEqual(['id', 'call_id', 'at', 'event', 'detail']);

    const account = new AccountStore(db, secrets).get('0123456789abcdef0123456789abcdef');
    expect(account).toMatchObject({ name: 'old account', apiKey: 'rk_' + 'A'.repeat(43), plan: 'free', smsBackup: true, status: 'active', createdAt: 1000 });
    expect(new AccountStore(db, secrets).authenticate('0123456789abcdef0123456789abcdef', 'rk_' + 'A'.repeat(43))).toBeDefined();
    const calls = new CallStore(db);
    expect(calls.get('call_old')).toMatchObject({ status: 'completed', message: 'BTC up', ticker: 'BTCUSD', price: 100.5, extra: { exchange: 'X' }, receivedAt: 2000 });
    expect(db.prepare('SELECT phone, sms_status FROM calls WHERE call_id = ?').get('call_old')).toEqual({ phone: null, sms_status: null });
    expect(calls.usage('0123456789abcdef0123456789abcdef', Date.parse('2026-11-15T00:00:00Z')).used).toBe(1);
    // The new table works with the old rows.
    db.prepare(`INSERT INTO call_events (call_id, at, event) VALUES ('call_old', 3000, 'ended')`).run();
    expect(count(db, 'SELECT count(*) FROM call_events')).toBe(1);
  });

  describe('a failing migration', () => {
    const first = { name: '001-first', sql: 'CREATE TABLE one (a INTEGER) STRICT;' };
    const broken = { name: '002-broken', sql: 'CREATE TABLE half_done (b INTEGER) STRICT; ALTER TABLE one ADD COLUMN c TEXT; ALTER TABLE no_such_table ADD COLUMN d TEXT;' };

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
    const accounts = Array.from({ length: 3 }, () => ({ userId: crypto.randomBytes(16).toString('hex'), apiKey: newApiKey() }));
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
    const accounts = new AccountStore(db, secrets);
    for (const a of old) {
      expect(accounts.get(a.userId)!.apiKey).toBe(a.apiKey);
      expect(accounts.authenticate(a.userId, a.apiKey)?.userId).toBe(a.userId);
      expect(accounts.authenticate(a.userId, newApiKey())).toBeUndefined();
    }
    expect(db.prepare('SELECT count(*) FROM accounts WHERE api_key_sealed LIKE ? OR length(api_key_mac) <> 32').pluck().get('rk_%')).toBe(0);
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
    new AccountStore(openTracked(file, { secrets }), secrets).create({ phone: '+14155550123', plan: 'free', smsBackup: false, name: '' });
    const other = new SecretBox(crypto.randomBytes(32), 'RINGHOOK_SECRET_KEY');
    let error: unknown;
    try {
      new AccountStore(openTracked(file, { secrets: other }), other);
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
    const before = new AccountStore(openTracked(file, { secrets: lost }), lost).create({ phone: '+14155550123', plan: 'free', smsBackup: false, name: '' });
    const fresh = testSecrets();
    const db = openTracked(file, { secrets: fresh });
    const [after] = new AccountStore(db, fresh, Date.now, { checkKey: false }).regenerateAllKeys();
    expect(after!.userId).toBe(before.userId);
    expect(after!.apiKey).not.toBe(before.apiKey);
    const accounts = new AccountStore(db, fresh);
    expect(accounts.authenticate(before.userId, after!.apiKey)?.userId).toBe(before.userId);
    expect(accounts.authenticate(before.userId, before.apiKey)).toBeUndefined();
  });
});

/** A fresh database in the test's folder with its stores, on a clock that starts at `start`. */
function openStoresAt(start: string) {
  const db = openTracked(path.join(tmp, 'ringhook.db'), { sync: 'normal' });
  const clock = manualClock(start);
  return { db, clock, accounts: new AccountStore(db, testSecrets(), clock.now), calls: new CallStore(db, clock.now) };
}

describe('AccountStore', () => {
  let db: Db;
  let clock: ReturnType<typeof manualClock>;
  let accounts: AccountStore;
  let calls: CallStore;

  beforeEach(() => {
    ({ db, clock, accounts, calls } = openStoresAt('2026-11-22T14:00:00Z'));
  });

  const newAccount = (plan: 'free' | 'premium' = 'free') => accounts.create({ phone: '+14155550123', plan, smsBackup: false, name: 'Trader' });

  it('creates an account with fresh credentials', () => {
    const a = accounts.create({ phone: '+33612345678', plan: 'premium', smsBackup: true, name: 'Zoé' });
    expect(a).toEqual({
      userId: expect.stringMatching(USER_ID_PATTERN),
      apiKey: expect.stringMatching(API_KEY_PATTERN),
      name: 'Zoé',
      phone: '+33612345678',
      plan: 'premium',
      smsBackup: true,
      status: 'active',
      createdAt: clock.now(),
      updatedAt: clock.now(),
      keyCreatedAt: clock.now(),
    });
    const b = newAccount();
    expect(b.userId).not.toBe(a.userId);
    expect(b.apiKey).not.toBe(a.apiKey);
  });

  it('gets and lists accounts, oldest first', () => {
    const a = newAccount();
    clock.advance(1000);
    const b = newAccount('premium');
    expect(accounts.get(a.userId)).toEqual(a);
    expect(accounts.get('0'.repeat(32))).toBeUndefined();
    expect(accounts.list()).toEqual([a, b]);
  });

  it('updates only what is given', () => {
    const a = newAccount();
    clock.advance(5000);
    const updated = accounts.update(a.userId, { plan: 'premium', status: 'suspended', smsBackup: true });
    expect(updated).toEqual({ ...a, plan: 'premium', status: 'suspended', smsBackup: true, updatedAt: clock.now() });
    expect(accounts.update(a.userId, { name: 'New name', phone: '+14155550199' })).toMatchObject({ name: 'New name', phone: '+14155550199', plan: 'premium', status: 'suspended' });
    expect(accounts.update('f'.repeat(32), { name: 'x' })).toBeUndefined();
  });

  it('regenerates the key: the old URL stops working at once', () => {
    const a = newAccount();
    clock.advance(60_000);
    const b = accounts.regenerateKey(a.userId)!;
    expect(b.apiKey).toMatch(API_KEY_PATTERN);
    expect(b.apiKey).not.toBe(a.apiKey);
    expect(b).toMatchObject({ userId: a.userId, keyCreatedAt: clock.now(), updatedAt: clock.now(), createdAt: a.createdAt });
    expect(accounts.authenticate(a.userId, a.apiKey)).toBeUndefined();
    expect(accounts.authenticate(a.userId, b.apiKey)).toEqual(b);
    expect(accounts.regenerateKey('f'.repeat(32))).toBeUndefined();
  });

  it('deletes an account with its calls, events and usage, and nothing else', () => {
    const a = newAccount('premium');
    const other = newAccount('premium');
    const accepted = calls.accept(a.userId, 'premium', textAlert('mine'));
    if (!accepted.accepted) throw new Error('not accepted');
    calls.recordRejection({ userId: a.userId, status: 'invalid_payload', error: 'bad', excerpt: '{' });
    calls.acceptTestCall(a.userId, 'test', 2);
    db.prepare('INSERT INTO call_events (call_id, at, event) VALUES (?, ?, ?)').run(accepted.callId, clock.now(), 'queued');
    calls.accept(other.userId, 'premium', textAlert('theirs'));

    expect(accounts.delete(a.userId)).toBe(true);
    expect(accounts.get(a.userId)).toBeUndefined();
    expect(count(db, 'SELECT count(*) FROM calls WHERE user_id = ?', a.userId)).toBe(0);
    expect(count(db, 'SELECT count(*) FROM usage WHERE user_id = ?', a.userId)).toBe(0);
    expect(count(db, 'SELECT count(*) FROM call_events')).toBe(0);
    expect(calls.list({ userId: other.userId })).toHaveLength(1);
    expect(calls.usage(other.userId).used).toBe(1);
    expect(accounts.delete(a.userId)).toBe(false);
  });

  describe('authenticate', () => {
    it('returns the account for the right key', () => {
      const a = newAccount();
      expect(accounts.authenticate(a.userId, a.apiKey)).toEqual(a);
    });

    it('returns a suspended account too (the webhook answers 403, not 401)', () => {
      const a = newAccount();
      accounts.update(a.userId, { status: 'suspended' });
      expect(accounts.authenticate(a.userId, a.apiKey)).toMatchObject({ status: 'suspended' });
    });

    it('refuses a wrong key of the right shape', () => {
      const a = newAccount();
      const flipped = a.apiKey.slice(0, -1) + (a.apiKey.endsWith('A') ? 'B' : 'A');
      expect(accounts.authenticate(a.userId, flipped)).toBeUndefined();
      expect(accounts.authenticate(a.userId, newApiKey())).toBeUndefined();
    });

    it("refuses another account's key", () => {
      const a = newAccount();
      const b = newAccount();
      expect(accounts.authenticate(a.userId, b.apiKey)).toBeUndefined();
    });

    it('refuses an unknown user', () => {
      const a = newAccount();
      expect(accounts.authenticate('0'.repeat(32), a.apiKey)).toBeUndefined();
      expect(accounts.authenticate('0'.repeat(32), newApiKey())).toBeUndefined();
    });

    it('refuses malformed user ids without throwing', () => {
      const a = newAccount();
      for (const userId of ['', a.userId.toUpperCase(), a.userId.slice(1), `${a.userId}0`, "' OR 1=1 --", `${a.userId}\n`, '../' + a.userId]) {
        expect(accounts.authenticate(userId, a.apiKey)).toBeUndefined();
      }
    });

    it('refuses keys of other lengths and shapes without throwing', () => {
      const a = newAccount();
      const keys = [
        '',
        'rk_',
        a.apiKey.slice(0, -1),
        `${a.apiKey}x`,
        `${a.apiKey}${a.apiKey}`,
        a.apiKey.slice(3),
        `${a.apiKey.slice(0, -1)}é`, // same number of characters, one more byte
        `${a.apiKey.slice(0, -2)}é`, // same number of bytes, one fewer character
        a.apiKey.toUpperCase() === a.apiKey ? a.apiKey.toLowerCase() : a.apiKey.toUpperCase(),
        `${a.apiKey}\u0000`,
        'x'.repeat(10_000),
      ];
      for (const key of keys) expect(accounts.authenticate(a.userId, key), JSON.stringify(key.slice(0, 60))).toBeUndefined();
    });
  });
});

describe('CallStore', () => {
  let db: Db;
  let clock: ReturnType<typeof manualClock>;
  let accounts: AccountStore;
  let calls: CallStore;

  beforeEach(() => {
    ({ db, clock, accounts, calls } = openStoresAt('2026-11-10T10:00:00Z'));
  });

  const account = (plan: 'free' | 'premium') => accounts.create({ phone: '+14155550123', plan, smsBackup: false, name: '' });

  function mustAccept(userId: string, plan: 'free' | 'premium', alert = textAlert('alert')) {
    const result = calls.accept(userId, plan, alert);
    if (!result.accepted) throw new Error(`refused at ${new Date(clock.now()).toISOString()}: ${JSON.stringify(result.decision)}`);
    return result;
  }

  it('records an accepted alert as a queued call with all its fields', () => {
    const a = account('premium');
    const alert = jsonAlert({ message: '  BTC crossed 100000 ', ticker: 'BTCUSD', price: '100,012.5', action: 'buy', strategy: 'EMA', timestamp: '2026-11-10T09:59:00Z', exchange: 'BINANCE', nested: { a: [1, 2] } });
    const result = mustAccept(a.userId, 'premium', alert);
    expect(result).toEqual({ accepted: true, callId: expect.stringMatching(/^call_[A-Za-z0-9_-]{22}$/), receivedAt: clock.now() });
    expect(calls.get(result.callId)).toEqual({
      id: expect.any(Number),
      callId: result.callId,
      userId: a.userId,
      kind: 'alert',
      accepted: true,
      status: 'queued',
      message: 'BTC crossed 100000',
      messageTruncated: false,
      ticker: 'BTCUSD',
      price: 100012.5,
      action: 'buy',
      strategy: 'EMA',
      alertTimestamp: '2026-11-10T09:59:00Z',
      extra: { exchange: 'BINANCE', nested: { a: [1, 2] } },
      error: null,
      receivedAt: clock.now(),
      updatedAt: clock.now(),
      // Nothing is dialed yet: the telephony and SMS fields are empty.
      hangupCauseText: null,
      smsParts: null,
      phone: null,
      dialedAt: null,
      answeredAt: null,
      endedAt: null,
      ringMs: null,
      talkMs: null,
      hangupCause: null,
      sipCode: null,
      smsStatus: null,
      smsMessageId: null,
      smsAt: null,
      smsError: null,
    });
    expect(calls.get('call_missing')).toBeUndefined();
  });

  it('records that a message was truncated', () => {
    const a = account('premium');
    const { callId } = mustAccept(a.userId, 'premium', textAlert('x'.repeat(700)));
    expect(calls.get(callId)).toMatchObject({ message: 'x'.repeat(500), messageTruncated: true });
  });

  it('free plan: one a minute, three a month, counted in usage, reset on the first of the next month', () => {
    const a = account('free');
    mustAccept(a.userId, 'free');
    expect(calls.usage(a.userId)).toEqual({ month: '2026-11', used: 1, resetsAt: Date.parse('2026-12-01T00:00:00Z') });

    clock.advance(30_000);
    const burst = calls.accept(a.userId, 'free', textAlert('too soon'));
    expect(burst).toEqual({ accepted: false, decision: { allowed: false, limit: 'burst', perMinute: 1, retryAfterSeconds: 30 } });
    expect(calls.usage(a.userId).used).toBe(1);

    clock.advance(30_000); // exactly one minute after the first
    mustAccept(a.userId, 'free');
    clock.advance(60_000);
    mustAccept(a.userId, 'free');
    expect(calls.usage(a.userId).used).toBe(3);

    clock.advance(3_600_000);
    const monthly = calls.accept(a.userId, 'free', textAlert('fourth'));
    expect(monthly).toEqual({
      accepted: false,
      decision: { allowed: false, limit: 'monthly', allowance: 3, used: 3, resetsAt: Date.parse('2026-12-01T00:00:00Z') },
    });
    expect(calls.usage(a.userId).used).toBe(3);

    // The refusals are in the history, newest first, with their reason.
    const history = calls.list({ userId: a.userId });
    expect(history.map((c) => [c.accepted, c.status])).toEqual([
      [false, 'limit_exceeded'],
      [true, 'queued'],
      [true, 'queued'],
      [false, 'rate_limited'],
      [true, 'queued'],
    ]);
    expect(history[0]).toMatchObject({ message: 'fourth', error: 'monthly call limit exceeded' });
    expect(history[3]).toMatchObject({ message: 'too soon', error: 'per-minute call limit exceeded' });

    clock.set('2026-11-30T23:59:59.999Z');
    expect(calls.accept(a.userId, 'free', textAlert('still November')).accepted).toBe(false);
    clock.set('2026-12-01T00:00:00.000Z');
    mustAccept(a.userId, 'free');
    expect(calls.usage(a.userId)).toEqual({ month: '2026-12', used: 1, resetsAt: Date.parse('2027-01-01T00:00:00Z') });
    expect(calls.usage(a.userId, Date.parse('2026-11-15T00:00:00Z')).used).toBe(3);
  });

  it('free plan: the allowance renews across the year end', () => {
    const a = account('free');
    clock.set('2026-12-31T23:50:00Z');
    for (let i = 0; i < 3; i++) {
      mustAccept(a.userId, 'free');
      clock.advance(60_000);
    }
    expect(calls.accept(a.userId, 'free', textAlert('x'))).toMatchObject({ accepted: false, decision: { limit: 'monthly', resetsAt: Date.parse('2027-01-01T00:00:00Z') } });
    clock.set('2027-01-01T00:00:00Z');
    mustAccept(a.userId, 'free');
    expect(calls.usage(a.userId).month).toBe('2027-01');
  });

  it('premium plan: ten a minute, the eleventh waits for the oldest to leave the window', () => {
    const a = account('premium');
    const start = clock.now();
    for (let i = 0; i < 10; i++) {
      mustAccept(a.userId, 'premium');
      clock.advance(1_000);
    }
    // now = start + 10 s; the oldest of the ten leaves the window at start + 60 s.
    expect(calls.accept(a.userId, 'premium', textAlert('11th'))).toEqual({
      accepted: false,
      decision: { allowed: false, limit: 'burst', perMinute: 10, retryAfterSeconds: 50 },
    });
    clock.set(new Date(start + 59_999).toISOString());
    expect(calls.accept(a.userId, 'premium', textAlert('11th')).accepted).toBe(false);
    clock.set(new Date(start + 60_000).toISOString());
    mustAccept(a.userId, 'premium');
    expect(calls.usage(a.userId).used).toBe(11);
  });

  it('premium plan: no monthly allowance', () => {
    const a = account('premium');
    for (let i = 0; i < 40; i++) {
      mustAccept(a.userId, 'premium');
      clock.advance(6_000);
    }
    expect(calls.usage(a.userId).used).toBe(40);
  });

  it('keeps the limits of each account apart', () => {
    const a = account('free');
    const b = account('free');
    mustAccept(a.userId, 'free');
    mustAccept(b.userId, 'free');
    expect(calls.accept(a.userId, 'free', textAlert('x')).accepted).toBe(false);
  });

  it('keeps the limits exact across two connections to the same file', () => {
    const file = path.join(tmp, 'ringhook.db');
    const other = new CallStore(openTracked(file, { sync: 'normal' }), clock.now);
    const a = account('premium');
    let accepted = 0;
    for (let i = 0; i < 20; i++) if ((i % 2 === 0 ? calls : other).accept(a.userId, 'premium', textAlert(`n${i}`)).accepted) accepted++;
    expect(accepted).toBe(10);
    expect(other.usage(a.userId).used).toBe(10);
  });

  describe('test calls', () => {
    it('do not use the monthly allowance and work when it is spent', () => {
      const a = account('free');
      for (let i = 0; i < 3; i++) {
        mustAccept(a.userId, 'free');
        clock.advance(60_000);
      }
      const test = calls.acceptTestCall(a.userId, 'This is a test call from ringhook.', TEST_CALL_LIMITS.perMinute);
      if (!test.accepted) throw new Error('test call refused');
      expect(calls.get(test.callId)).toMatchObject({ kind: 'test', accepted: true, status: 'queued', message: 'This is a test call from ringhook.' });
      expect(calls.usage(a.userId).used).toBe(3);
    });

    it('have their own per-minute limit, apart from the alerts', () => {
      const a = account('free');
      expect(calls.acceptTestCall(a.userId, 't1', 2).accepted).toBe(true);
      clock.advance(10_000);
      expect(calls.acceptTestCall(a.userId, 't2', 2).accepted).toBe(true);
      clock.advance(10_000);
      expect(calls.acceptTestCall(a.userId, 't3', 2)).toEqual({ accepted: false, decision: { allowed: false, limit: 'burst', perMinute: 2, retryAfterSeconds: 40 } });
      // Test calls do not hold back an alert, nor the other way round.
      mustAccept(a.userId, 'free');
      clock.advance(40_000);
      expect(calls.acceptTestCall(a.userId, 't4', 2).accepted).toBe(true);
      expect(calls.usage(a.userId).used).toBe(1);
      // A refused test call is not written to the history.
      expect(calls.list({ userId: a.userId }).map((c) => c.message)).toEqual(['t4', 'alert', 't2', 't1']);
    });

    // TEST_CALL_LIMITS declares perHour: 10 beside perMinute: 2 ("a small limit of its own").
    it(`are held to TEST_CALL_LIMITS.perHour (${TEST_CALL_LIMITS.perHour}) within an hour`, () => {
      const a = account('premium');
      let accepted = 0;
      for (let i = 0; i < TEST_CALL_LIMITS.perHour + 2; i++) {
        if (calls.acceptTestCall(a.userId, `t${i}`, TEST_CALL_LIMITS.perMinute).accepted) accepted++;
        clock.advance(4 * 60_000);
      }
      expect(accepted).toBe(TEST_CALL_LIMITS.perHour);
    });
  });

  describe('rejections', () => {
    it('are recorded with their reason, the alert fields and a shortened message', () => {
      const a = account('premium');
      calls.recordRejection({ userId: a.userId, status: 'suspended', error: 'account suspended', alert: jsonAlert({ message: 'm'.repeat(300), ticker: 'T', extra: 1 }) });
      calls.recordRejection({ userId: a.userId, status: 'invalid_payload', error: 'not valid JSON', excerpt: '{"message": {{close}}' });
      calls.recordRejection({ userId: a.userId, status: 'invalid_payload', error: 'empty' });
      const [empty, excerpt, suspended] = calls.list({ userId: a.userId });
      expect(suspended).toMatchObject({ accepted: false, status: 'suspended', error: 'account suspended', message: 'm'.repeat(200), messageTruncated: true, ticker: 'T', extra: { extra: 1 } });
      expect(excerpt).toMatchObject({ accepted: false, status: 'invalid_payload', message: '{"message": {{close}}', messageTruncated: false, ticker: null });
      expect(empty).toMatchObject({ message: '', messageTruncated: false });
      expect(calls.usage(a.userId).used).toBe(0);
    });

    it('shorten by code points, never splitting a surrogate pair', () => {
      const a = account('premium');
      calls.recordRejection({ userId: a.userId, status: 'invalid_payload', error: 'x', excerpt: '\u{1F680}'.repeat(250) });
      expect(calls.list({ userId: a.userId })[0]!.message).toBe('\u{1F680}'.repeat(200));
    });

    it(`keep at most ${MAX_REJECTIONS_KEPT} per account, the newest, and never touch accepted calls`, () => {
      const a = account('premium');
      const b = account('premium');
      const kept = mustAccept(a.userId, 'premium', textAlert('accepted'));
      calls.recordRejection({ userId: b.userId, status: 'invalid_payload', error: 'x', excerpt: 'b0' });
      const total = MAX_REJECTIONS_KEPT + 25;
      for (let i = 0; i < total; i++) {
        calls.recordRejection({ userId: a.userId, status: 'invalid_payload', error: 'x', excerpt: `r${i}` });
      }
      expect(count(db, 'SELECT count(*) FROM calls WHERE user_id = ? AND accepted = 0', a.userId)).toBe(MAX_REJECTIONS_KEPT);
      const history = calls.list({ userId: a.userId, limit: 1000 });
      expect(history[0]!.message).toBe(`r${total - 1}`);
      expect(history[MAX_REJECTIONS_KEPT - 1]!.message).toBe(`r${total - MAX_REJECTIONS_KEPT}`);
      expect(calls.get(kept.callId)).toMatchObject({ accepted: true, message: 'accepted' });
      expect(calls.list({ userId: b.userId }).map((c) => c.message)).toEqual(['b0']);
    });

    it('from the limits are trimmed too', () => {
      const a = account('free');
      mustAccept(a.userId, 'free');
      for (let i = 0; i < MAX_REJECTIONS_KEPT + 5; i++) calls.accept(a.userId, 'free', textAlert(`flood ${i}`));
      expect(count(db, 'SELECT count(*) FROM calls WHERE user_id = ? AND accepted = 0', a.userId)).toBe(MAX_REJECTIONS_KEPT);
      expect(count(db, 'SELECT count(*) FROM calls WHERE user_id = ? AND accepted = 1', a.userId)).toBe(1);
    });
  });

  describe('list', () => {
    it('returns the newest first, for one account or all, with a limit', () => {
      const a = account('premium');
      const b = account('premium');
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        ids.push(mustAccept(i % 2 === 0 ? a.userId : b.userId, 'premium', textAlert(`m${i}`)).callId);
        clock.advance(1_000);
      }
      expect(calls.list().map((c) => c.callId)).toEqual([...ids].reverse());
      expect(calls.list({ userId: a.userId }).map((c) => c.message)).toEqual(['m4', 'm2', 'm0']);
      expect(calls.list({ userId: b.userId, limit: 2 }).map((c) => c.message)).toEqual(['m5', 'm3']);
      expect(calls.list({ limit: 1 }).map((c) => c.message)).toEqual(['m5']);
      expect(calls.list({ userId: 'f'.repeat(32) })).toEqual([]);
    });

    it('orders by insertion even when the clock goes backwards', () => {
      const a = account('premium');
      mustAccept(a.userId, 'premium', textAlert('first'));
      clock.advance(-3_600_000);
      mustAccept(a.userId, 'premium', textAlert('second'));
      expect(calls.list({ userId: a.userId }).map((c) => c.message)).toEqual(['second', 'first']);
    });

    it('returns 50 by default and at most 1000', () => {
      const a = account('premium');
      for (let i = 0; i < 1005; i++) calls.recordRejection({ userId: a.userId, status: 'invalid_payload', error: 'x', excerpt: `r${i}` });
      const b = account('premium');
      for (let i = 0; i < 60; i++) calls.recordRejection({ userId: b.userId, status: 'invalid_payload', error: 'x', excerpt: `s${i}` });
      expect(calls.list({ userId: b.userId })).toHaveLength(50);
      expect(calls.list({ limit: 5000 })).toHaveLength(1000);
    });
  });
});
