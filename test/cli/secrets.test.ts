// The api_keys at rest, through the real CLI: sealed in the database and in a backup, shown again by
// every command that prints the URL, one secret key for the CLI and serve, a clear error otherwise.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildOnce, runCli } from '../helpers/cli.js';
import { makeDataDir, startTestService } from '../helpers/service.js';

// A test here runs the real CLI up to 17 times, a Node process each (~1 s alone, 2–6 s on a loaded
// 2-core machine): the budget is per test, the assertions are the same.
vi.setConfig({ testTimeout: 120_000 });

beforeAll(() => {
  buildOnce();
});

const create = (env: Record<string, string>) => {
  const res = runCli(['account', 'create', '--phone', '+14155550123', '--plan', 'premium', '--json'], env);
  expect(res.code, res.stderr).toBe(0);
  return res.json as { user_id: string; api_key: string; webhook_url: string };
};

/** Every byte ringhook keeps of a database file: the file and its write-ahead log. */
function bytesOf(file: string): Buffer {
  return Buffer.concat([file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
}

/** A one-line error, without a stack trace. */
function expectOneLineError(res: { code: number; stderr: string }, pattern: RegExp): void {
  expect(res.code).toBe(1);
  expect(res.stderr).toMatch(pattern);
  expect(res.stderr.trim().split('\n')).toHaveLength(1);
  expect(res.stderr).not.toMatch(/at .*\.js:\d+/);
}

describe('api_keys at rest', () => {
  it('are in neither the database nor a backup, and every command that shows the URL shows it', () => {
    const dataDir = makeDataDir();
    const env = { RINGHOOK_DATA_DIR: dataDir, RINGHOOK_PUBLIC_URL: 'https://alerts.example.com' };
    const made = [create(env), create(env), create(env)];
    const regenerated = runCli(['account', 'regenerate', made[2]!.user_id, '--json'], env).json;
    expect(regenerated.api_key).not.toBe(made[2]!.api_key);
    const keys = [...made.map((a) => a.api_key), regenerated.api_key as string];

    expect(fs.statSync(path.join(dataDir, 'api-keys.secret')).mode & 0o777).toBe(0o600);
    const backup = path.join(makeDataDir(), 'copy.db');
    expect(runCli(['backup', backup], env).code).toBe(0);
    for (const [name, bytes] of [
      ['database', bytesOf(path.join(dataDir, 'ringhook.db'))],
      ['backup', fs.readFileSync(backup)],
    ] as const) {
      for (const key of keys) {
        expect(bytes.includes(key), `${name} holds ${key}`).toBe(false);
        expect(bytes.includes(key.slice(3)), `${name} holds ${key} without its prefix`).toBe(false);
      }
    }

    const show = runCli(['account', 'show', made[0]!.user_id, '--json'], env).json;
    expect(show.webhook_url).toBe(made[0]!.webhook_url);
    const listed = runCli(['account', 'list', '--json'], env).json as Array<{ user_id: string; api_key: string }>;
    expect(listed.map((a) => a.api_key).sort()).toEqual(
      [made[0]!.api_key, made[1]!.api_key, regenerated.api_key].sort(),
    );
  });

  it('serve and the CLI use the same key: a URL the CLI made is accepted, one it regenerated is refused', async () => {
    const dataDir = makeDataDir();
    const t = await startTestService({ RINGHOOK_DATA_DIR: dataDir });
    try {
      const a = create({ RINGHOOK_DATA_DIR: dataDir });
      expect(
        (await t.post(`/webhook/${a.user_id}/${a.api_key}`, 'hello', { 'content-type': 'text/plain' })).status,
      ).toBe(200);
      const b = runCli(['account', 'regenerate', a.user_id, '--json'], { RINGHOOK_DATA_DIR: dataDir }).json;
      expect((await t.post(`/webhook/${a.user_id}/${a.api_key}`, 'old', { 'content-type': 'text/plain' })).status).toBe(
        401,
      );
      expect((await t.post(`/webhook/${a.user_id}/${b.api_key}`, 'new', { 'content-type': 'text/plain' })).status).toBe(
        200,
      );
      expect((await t.service.stores.accounts.get(a.user_id))!.apiKey).toBe(b.api_key);
      // Every key at once, under serve's feet (perhaps with another key than serve's): refused, nothing changed.
      const all = runCli(['account', 'regenerate', '--all', '--yes'], { RINGHOOK_DATA_DIR: dataDir });
      expect(all.code).toBe(1);
      expect(all.stderr).toMatch(/ringhook serve is running on .*: stop it first/);
      expect(
        (await t.post(`/webhook/${a.user_id}/${b.api_key}`, 'still', { 'content-type': 'text/plain' })).status,
      ).toBe(200);
    } finally {
      await t.stop();
    }
  });

  it('RINGHOOK_SECRET_KEY replaces the key file; another key is refused with a clear error', () => {
    const key = randomBytes(32).toString('hex');
    const env = { RINGHOOK_DATA_DIR: makeDataDir(), RINGHOOK_SECRET_KEY: key };
    const a = create(env);
    expect(fs.existsSync(path.join(env.RINGHOOK_DATA_DIR, 'api-keys.secret'))).toBe(false);
    expect(
      runCli(['account', 'show', a.user_id, '--json'], {
        ...env,
        RINGHOOK_SECRET_KEY: Buffer.from(key, 'hex').toString('base64'),
      }).json.api_key,
    ).toBe(a.api_key);

    const wrong = runCli(['account', 'show', a.user_id], {
      ...env,
      RINGHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    });
    expectOneLineError(wrong, /sealed with another secret key than RINGHOOK_SECRET_KEY/);
    expect(wrong.stderr).toMatch(/api-keys\.secret/);

    const missing = runCli(['account', 'list'], { RINGHOOK_DATA_DIR: env.RINGHOOK_DATA_DIR });
    expectOneLineError(missing, /another secret key than .*api-keys\.secret \(made just now: none was there\)/);
    expect(
      runCli(['doctor', '--json'], { RINGHOOK_DATA_DIR: env.RINGHOOK_DATA_DIR, RINGHOOK_TELEPHONY: 'off' }).stdout,
    ).toMatch(/another secret key/);
  });

  it('a malformed RINGHOOK_SECRET_KEY is a configuration error that does not repeat the value', () => {
    const value = `not-a-key-${randomBytes(8).toString('hex')}`;
    const res = runCli(['account', 'list'], { RINGHOOK_DATA_DIR: makeDataDir(), RINGHOOK_SECRET_KEY: value });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/RINGHOOK_SECRET_KEY must be 32 bytes written as 64 hex characters or base64/);
    expect(res.stderr).not.toContain(value);
  });

  it('a backup restored without its key: the URLs are lost, `account regenerate --all --yes` issues new ones', () => {
    const source = { RINGHOOK_DATA_DIR: makeDataDir() };
    const a = create(source);
    const restored = { RINGHOOK_DATA_DIR: makeDataDir() };
    expect(runCli(['backup', path.join(restored.RINGHOOK_DATA_DIR, 'ringhook.db')], source).code).toBe(0);

    expectOneLineError(runCli(['account', 'show', a.user_id], restored), /another secret key/);
    expectOneLineError(runCli(['account', 'regenerate', '--all'], restored), /add --yes/);
    const renewed = runCli(['account', 'regenerate', '--all', '--yes', '--json'], restored);
    expect(renewed.code, renewed.stderr).toBe(0);
    expect(renewed.json).toHaveLength(1);
    expect(renewed.json[0]).toMatchObject({ user_id: a.user_id, phone: '+14155550123', plan: 'premium' });
    expect(renewed.json[0].api_key).not.toBe(a.api_key);
    expect(runCli(['account', 'show', a.user_id, '--json'], restored).json.api_key).toBe(renewed.json[0].api_key);

    // With its key file beside it, the same backup shows the old URL.
    const withKey = { RINGHOOK_DATA_DIR: makeDataDir() };
    expect(runCli(['backup', path.join(withKey.RINGHOOK_DATA_DIR, 'ringhook.db')], source).code).toBe(0);
    fs.copyFileSync(
      path.join(source.RINGHOOK_DATA_DIR, 'api-keys.secret'),
      path.join(withKey.RINGHOOK_DATA_DIR, 'api-keys.secret'),
    );
    expect(runCli(['account', 'show', a.user_id, '--json'], withKey).json.api_key).toBe(a.api_key);
  });
});
