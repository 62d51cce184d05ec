// The dashboard's CLI commands as real processes on a real database file: `account set --password`
// (read from stdin, never argv), `account set --admin`, `account login-link`.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/store/sqlite/connect.js';
import { SqliteOwnerAuthStore } from '../../src/store/sqlite/owner-auth.js';
import { LOGIN_LINK_TTL_MS } from '../../src/core/records.js';
import { SqliteSessionStore } from '../../src/store/sqlite/sessions.js';
import { buildOnce, runCli } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/service.js';

let env: Record<string, string>;
let userId: string;
let db: Db;

beforeAll(() => {
  buildOnce();
  env = { RINGHOOK_DATA_DIR: makeDataDir(), RINGHOOK_PUBLIC_URL: 'https://alerts.example.com' };
  const created = runCli(['account', 'create', '--phone', '+14155550123', '--json'], env);
  expect(created.code).toBe(0);
  userId = created.json.user_id;
  db = openDatabase(path.join(env.RINGHOOK_DATA_DIR!, 'ringhook.db'));
});

afterAll(() => db?.close());

const auth = () => new SqliteOwnerAuthStore(db);

describe('ringhook account set --password', () => {
  it('reads the password from stdin, stores only a scrypt hash, and signs open sessions out', async () => {
    const session = new SqliteSessionStore(db).create(userId);
    const secret = 'a long enough password';
    const res = runCli(['account', 'set', userId, '--password', '--json'], env, `${secret}\n`);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json.user_id).toBe(userId);
    expect(res.stdout + res.stderr).not.toContain(secret);
    expect(res.stderr).toContain('Dashboard password set');
    expect(await auth().checkPassword(userId, secret)).toBe(true);
    expect(await auth().checkPassword(userId, 'a long enough passworD')).toBe(false);
    const stored = db.prepare('SELECT password_hash FROM owner_auth WHERE user_id = ?').get(userId) as {
      password_hash: string;
    };
    expect(stored.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(stored.password_hash).not.toContain(secret);
    expect(new SqliteSessionStore(db).get(session.token)).toBeUndefined();
  });

  it('gives the same password a different salt each time', async () => {
    runCli(['account', 'set', userId, '--password'], env, 'same password again\n');
    const first = (
      db.prepare('SELECT password_hash FROM owner_auth WHERE user_id = ?').get(userId) as { password_hash: string }
    ).password_hash;
    runCli(['account', 'set', userId, '--password'], env, 'same password again\n');
    const second = (
      db.prepare('SELECT password_hash FROM owner_auth WHERE user_id = ?').get(userId) as { password_hash: string }
    ).password_hash;
    expect(second).not.toBe(first);
  });

  it('refuses a short or empty password and changes nothing', async () => {
    for (const input of ['short\n', '', '\n']) {
      const res = runCli(['account', 'set', userId, '--password'], env, input);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(
        /^ringhook: --password: the password must have at least 10 characters \(nothing was changed\)\n$/,
      );
    }
    expect(await auth().checkPassword(userId, 'same password again')).toBe(true);
  });

  it('never takes the password as an argument', async () => {
    const res = runCli(['account', 'set', userId, '--password', 'in argv history'], env, '');
    expect(res.code).not.toBe(0);
    expect(await auth().checkPassword(userId, 'in argv history')).toBe(false);
  });
});

describe('ringhook account set --admin', () => {
  it('turns the admin flag on and off', () => {
    expect(runCli(['account', 'set', userId, '--admin', 'on'], env).code).toBe(0);
    expect(auth().isAdmin(userId)).toBe(true);
    expect(runCli(['account', 'set', userId, '--admin', 'off'], env).code).toBe(0);
    expect(auth().isAdmin(userId)).toBe(false);
    const bad = runCli(['account', 'set', userId, '--admin', 'maybe'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('ringhook: --admin: must be on or off\n');
  });
});

describe('ringhook account login-link', () => {
  it('prints a one-time link under the public URL, valid 15 minutes', () => {
    const before = Date.now();
    const res = runCli(['account', 'login-link', userId, '--json'], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json.url).toMatch(/^https:\/\/alerts\.example\.com\/login\/link\/[A-Za-z0-9_-]{43}$/);
    const after = Date.now();
    // Made while the CLI ran: between `before` and `after` (a loaded machine starts it slowly).
    const expires = Date.parse(res.json.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + LOGIN_LINK_TTL_MS - 1000);
    expect(expires).toBeLessThanOrEqual(after + LOGIN_LINK_TTL_MS + 1000);
    const token = res.json.url.split('/').pop();
    expect(auth().useLoginLink(token)).toBe(userId);
    expect(auth().useLoginLink(token)).toBeUndefined();
  });

  it('prints only the link on stdout for people, the validity on stderr', () => {
    const res = runCli(['account', 'login-link', userId], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^https:\/\/alerts\.example\.com\/login\/link\/[A-Za-z0-9_-]{43}\n$/);
    expect(res.stderr).toMatch(/Valid until .* for one sign-in/);
  });

  it('refuses an unknown or malformed user_id', () => {
    expect(runCli(['account', 'login-link', 'f'.repeat(32)], env).stderr).toMatch(/no account with user_id/);
    expect(runCli(['account', 'login-link', 'nope'], env).stderr).toMatch(/is not a user_id/);
  });

  it('is listed in the help', () => {
    const res = runCli(['account', '--help'], env);
    expect(res.stdout).toContain('login-link');
    expect(runCli(['account', 'set', '--help'], env).stdout).toMatch(/--password[\s\S]*--admin/);
  });
});
