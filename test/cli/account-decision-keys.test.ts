// Decision keys (#56) in the admin CLI, a real process on a real database file: --keys and
// --decision-pin on set (refused without a callback URL, with the fix named), what `account show`
// lists (the keys, whether a PIN is set, never the PIN), bad values (one line naming the value,
// nothing changed), and a decision in `calls` and `calls --json`.
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, expect, it, vi } from 'vitest';
import { buildOnce, runCli } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/service.js';

vi.setConfig({ testTimeout: 120_000 });

let env: Record<string, string>;
let dataDir: string;

beforeAll(() => {
  buildOnce();
  dataDir = makeDataDir();
  env = { RINGHOOK_DATA_DIR: dataDir, RINGHOOK_PUBLIC_URL: 'https://alerts.example.com' };
});

const create = (phone: string, ...more: string[]) => runCli(['account', 'create', '--phone', phone, ...more], env);
const show = (userId: string) => JSON.parse(runCli(['account', 'show', userId, '--json'], env).stdout);

it('keys and a PIN need a callback URL: refused without one, with the fix named; nothing is changed', () => {
  const onCreate = create('+14155550131', '--keys', '7=buy,8=skip');
  expect(onCreate.code).not.toBe(0);
  expect(onCreate.stderr.trim().split('\n')).toHaveLength(1);
  expect(onCreate.stderr).toContain('--keys: decision keys need a status callback URL');
  expect(onCreate.stderr).toContain('--callback-url');
  // Refused before the data dir is opened: nothing made.
  expect(runCli(['account', 'list', '--json'], env).stdout).not.toContain('+14155550131');

  const account = JSON.parse(create('+14155550132', '--json').stdout);
  for (const option of [
    ['--keys', '7=buy'],
    ['--decision-pin', '4321'],
  ]) {
    const refused = runCli(['account', 'set', account.user_id, ...option], env);
    expect(refused.code, option.join(' ')).not.toBe(0);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(`${option[0]}: decision keys need a status callback URL`);
    expect(refused.stderr).toContain('add --callback-url https://');
  }
  // Off never needs one.
  expect(runCli(['account', 'set', account.user_id, '--keys', 'off', '--decision-pin', 'off'], env).code).toBe(0);
  expect(show(account.user_id)).toMatchObject({ decision_keys: null, decision_pin_set: false, callback_url: null });
});

it('set with a callback URL: show lists the keys and says a PIN is set, never the PIN; off removes them', () => {
  const account = JSON.parse(create('+14155550133', '--json').stdout);
  const set = runCli(
    [
      'account',
      'set',
      account.user_id,
      '--callback-url',
      'https://bot.example.com/ringhook',
      '--keys',
      ' 7 = buy ,8=skip',
      '--decision-pin',
      '480213',
      '--json',
    ],
    env,
  );
  expect(set.code, set.stderr).toBe(0);
  expect(set.stdout).not.toContain('480213');
  expect(JSON.parse(set.stdout)).toMatchObject({ decision_keys: '7=buy,8=skip', decision_pin_set: true });
  const text = runCli(['account', 'show', account.user_id], env);
  expect(text.stdout).toMatch(/decision_keys:\s+7=buy,8=skip/);
  expect(text.stdout).toMatch(/decision_pin_set:\s+true/);
  expect(text.stdout + text.stderr).not.toContain('480213');
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true });
  const stored = db.prepare('SELECT decision_pin_hash FROM accounts WHERE user_id = ?').pluck().get(account.user_id);
  db.close();
  expect(stored).toMatch(/^scrypt\$/);
  expect(String(stored)).not.toContain('480213');

  // The URL is there now: keys alone are taken.
  expect(runCli(['account', 'set', account.user_id, '--keys', '9=sell all'], env).code).toBe(0);
  expect(show(account.user_id)).toMatchObject({ decision_keys: '9=sell all', decision_pin_set: true });
  expect(runCli(['account', 'set', account.user_id, '--keys', 'off', '--decision-pin', 'off'], env).code).toBe(0);
  expect(show(account.user_id)).toMatchObject({ decision_keys: null, decision_pin_set: false });
});

it('bad keys and PINs: one line naming the value, and nothing changed', () => {
  const account = JSON.parse(create('+14155550134', '--json').stdout);
  const ok = runCli(
    ['account', 'set', account.user_id, '--callback-url', 'https://bot.example.com/r', '--keys', '7=buy'],
    env,
  );
  expect(ok.code, ok.stderr).toBe(0);
  for (const [option, value, named] of [
    ['--keys', '1=buy', 'key 1 is taken'],
    ['--keys', '0=buy', 'key 0 is taken'],
    ['--keys', '2=buy', 'key 2 is taken'],
    ['--keys', '7=buy,7=sell', 'key 7 is given twice'],
    ['--keys', '3=a,4=b,5=c,6=d,7=e', 'at most 4 decision keys (got 5)'],
    ['--keys', '7=', 'key 7 has an empty label'],
    ['--keys', 'buy', '"buy" is not KEY=LABEL'],
    ['--keys', 'A=buy', '"A" is not a key'],
    ['--keys', '7=buy!', '("buy!")'],
    ['--decision-pin', 'abcd', 'got 4 characters, not all digits'],
    ['--decision-pin', '123', 'got 3 digits'],
  ] as const) {
    const res = runCli(['account', 'set', account.user_id, option, value, '--name', 'changed'], env);
    expect(res.code, `${option} ${value}`).not.toBe(0);
    expect(res.stderr.trim().split('\n'), res.stderr).toHaveLength(1);
    expect(res.stderr).toContain(`${option}: `);
    expect(res.stderr).toContain(named);
  }
  expect(show(account.user_id)).toMatchObject({ name: '', decision_keys: '7=buy', decision_pin_set: false });
});

it('a decision in the history: `calls` says decision: buy (7) or decision refused: wrong PIN; --json has decision_key and decision_label', () => {
  const account = JSON.parse(create('+14155550135', '--json').stdout);
  const db = new Database(path.join(dataDir, 'ringhook.db'));
  const insert =
    db.prepare(`INSERT INTO calls (call_id, user_id, kind, accepted, status, message, received_at, updated_at,
                                                decision_key, decision_label, decided_at, decision_refused)
                             VALUES (?, ?, 'alert', 1, 'acknowledged', 'BTC broke 100k', ?, ?, ?, ?, ?, ?)`);
  const at = Date.parse('2026-12-07T02:00:00Z');
  insert.run('c_decided', account.user_id, at, at, '7', 'buy', at + 9000, null);
  insert.run('c_refused', account.user_id, at + 1, at + 1, null, null, null, 'wrong PIN');
  db.close();
  const table = runCli(['calls', '--account', account.user_id], env);
  expect(table.code, table.stderr).toBe(0);
  expect(table.stdout).toContain('acknowledged, decision: buy (7)');
  expect(table.stdout).toContain('acknowledged, decision refused: wrong PIN');
  const json = JSON.parse(runCli(['calls', '--account', account.user_id, '--json'], env).stdout) as Array<
    Record<string, unknown>
  >;
  expect(json.find((c) => c.call_id === 'c_decided')).toMatchObject({
    decision_key: '7',
    decision_label: 'buy',
    decided_at: '2026-12-07T02:00:09.000Z',
    decision_refused: null,
  });
  expect(json.find((c) => c.call_id === 'c_refused')).toMatchObject({
    decision_key: null,
    decision_label: null,
    decision_refused: 'wrong PIN',
  });
});
