// Ring again (#54) in the admin CLI, a real process on a real database file: the options on create
// and set, what `account show` says will happen, --help's reason for the gap, and bad values (one
// line naming the value, nothing changed).
import { beforeAll, expect, it, vi } from 'vitest';
import { buildOnce, runCli } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/service.js';

vi.setConfig({ testTimeout: 120_000 });

let env: Record<string, string>;

beforeAll(() => {
  buildOnce();
  env = { RINGHOOK_DATA_DIR: makeDataDir(), RINGHOOK_PUBLIC_URL: 'https://alerts.example.com' };
});

it('create and set take --ring-again and --ring-again-after; show says in one sentence what happens; default: one call', () => {
  const plain = JSON.parse(runCli(['account', 'create', '--phone', '+14155550123', '--json'], env).stdout);
  expect(plain).toMatchObject({ ring_again: 0, ring_again_after: 60 });
  expect(plain.ring_again_effect).toMatch(/^A missed call is not tried again/);
  const created = runCli(['account', 'create', '--phone', '+14155550124', '--ring-again', '1', '--json'], env);
  expect(created.code, created.stderr).toBe(0);
  const account = JSON.parse(created.stdout);
  expect(account).toMatchObject({ ring_again: 1, ring_again_after: 60 });
  expect(account.ring_again_effect).toMatch(
    /^A missed call is tried again once, 60 s after the start of the one before, from the same number .*counts once against the plan/,
  );
  const set = runCli(['account', 'set', account.user_id, '--ring-again', '2', '--ring-again-after', '25'], env);
  expect(set.code, set.stderr).toBe(0);
  expect(set.stdout).toMatch(/ring_again_effect:\s+A missed call is tried again twice, 25 s after/);
  const help = runCli(['account', 'set', '--help'], env).stdout.replace(/\s+/g, ' ');
  expect(help).toContain('Repeated Calls');
  expect(help).toContain('three minutes');
});

it('a value out of range is one line naming it, and nothing is changed', () => {
  const account = JSON.parse(
    runCli(['account', 'create', '--phone', '+14155550125', '--ring-again', '1', '--json'], env).stdout,
  );
  for (const [option, value] of [
    ['--ring-again', '3'],
    ['--ring-again', 'often'],
    ['--ring-again-after', '19'],
    ['--ring-again-after', '171'],
  ] as const) {
    const res = runCli(['account', 'set', account.user_id, option, value], env);
    expect(res.code, `${option} ${value}`).not.toBe(0);
    expect(res.stderr.trim().split('\n'), res.stderr).toHaveLength(1);
    expect(res.stderr).toContain(`'${value}'`);
    const refused = runCli(['account', 'create', '--phone', '+14155550126', option, value], env);
    expect(refused.code).not.toBe(0);
  }
  const shown = JSON.parse(runCli(['account', 'show', account.user_id, '--json'], env).stdout);
  expect(shown).toMatchObject({ ring_again: 1, ring_again_after: 60 });
  const list = JSON.parse(runCli(['account', 'list', '--json'], env).stdout) as Array<{ phone: string }>;
  expect(list.map((a) => a.phone)).not.toContain('+14155550126');
});
