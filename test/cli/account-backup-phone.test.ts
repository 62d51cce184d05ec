// The backup person (#54) in the admin CLI, a real process on a real database file: --backup-phone on
// create and set, its verification call queued at that number, what `account show` says (pending:
// not called), off, and bad values (one line naming the value, nothing changed).
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, expect, it, vi } from 'vitest';
import { buildOnce, runCli } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/service.js';

vi.setConfig({ testTimeout: 120_000 });

let env: Record<string, string>;

beforeAll(() => {
  buildOnce();
  env = { RINGHOOK_DATA_DIR: makeDataDir(), RINGHOOK_PUBLIC_URL: 'https://alerts.example.com' };
});

function testCallsOf(userId: string): Array<{ kind: string; dial_to: string | null; message: string; status: string }> {
  const db = new Database(path.join(env.RINGHOOK_DATA_DIR!, 'ringhook.db'), { readonly: true });
  try {
    return db
      .prepare("SELECT kind, dial_to, message, status FROM calls WHERE user_id = ? AND kind = 'test' ORDER BY id")
      .all(userId) as never;
  } finally {
    db.close();
  }
}

it('create takes --backup-phone: pending, its verification call queued at that number, show says it is not called yet', () => {
  const created = runCli(
    ['account', 'create', '--phone', '+14155550131', '--name', 'Alice', '--backup-phone', '+1 415 555 0777', '--json'],
    env,
  );
  expect(created.code, created.stderr).toBe(0);
  const account = JSON.parse(created.stdout);
  expect(account).toMatchObject({ backup_phone: '+14155550777', backup_phone_status: 'pending' });
  expect(account.ring_again_effect).toMatch(/The backup person \+1 415 555 0777 is not called yet: .*\(pending\)/);
  expect(testCallsOf(account.user_id)).toEqual([
    {
      kind: 'test',
      dial_to: '+14155550777',
      status: 'queued',
      message: expect.stringMatching(/Press 1 to agree to receive alerts for Alice\.$/),
    },
  ]);
  const shown = runCli(['account', 'show', account.user_id], env);
  expect(shown.stdout).toMatch(/backup_phone:\s+\+14155550777/);
  expect(shown.stdout).toMatch(/backup_phone_status:\s+pending/);
});

it('set --backup-phone: a new number asks again; the same number asks nothing; off removes it', () => {
  const account = JSON.parse(runCli(['account', 'create', '--phone', '+14155550132', '--json'], env).stdout);
  expect(account).toMatchObject({ backup_phone: null, backup_phone_status: null });
  expect(account.ring_again_effect).not.toMatch(/backup person/);
  const set = runCli(['account', 'set', account.user_id, '--backup-phone', '+14155550778'], env);
  expect(set.code, set.stderr).toBe(0);
  expect(set.stderr).toMatch(/A verification call to \+14155550778 is queued/);
  expect(runCli(['account', 'set', account.user_id, '--backup-phone', '+14155550778'], env).code).toBe(0);
  expect(testCallsOf(account.user_id)).toHaveLength(1);
  const off = JSON.parse(runCli(['account', 'set', account.user_id, '--backup-phone', 'off', '--json'], env).stdout);
  expect(off).toMatchObject({ backup_phone: null, backup_phone_status: null });
});

it("a number not E.164, or the account's own: one line naming the value, nothing changed", () => {
  const account = JSON.parse(
    runCli(['account', 'create', '--phone', '+14155550133', '--backup-phone', '+14155550779', '--json'], env).stdout,
  );
  for (const value of ['4155550780', 'someone', '+14155550133', '+1 415 555 0133']) {
    const res = runCli(['account', 'set', account.user_id, '--backup-phone', value], env);
    expect(res.code, value).not.toBe(0);
    expect(res.stderr.trim().split('\n'), res.stderr).toHaveLength(1);
    expect(res.stderr).toContain(`'${value}'`);
    const own = value.replace(/\s/g, '') === '+14155550133';
    const refused = runCli(
      ['account', 'create', '--phone', own ? value : '+14155550134', '--backup-phone', value],
      env,
    );
    expect(refused.code, value).not.toBe(0);
    expect(refused.stderr).toContain(`'${value}'`);
  }
  // The account's own number may not become the backup person's.
  const phone = runCli(['account', 'set', account.user_id, '--phone', '+14155550779'], env);
  expect(phone.code).not.toBe(0);
  expect(phone.stderr.trim().split('\n')).toHaveLength(1);
  expect(phone.stderr).toContain("'+14155550779'");
  const shown = JSON.parse(runCli(['account', 'show', account.user_id, '--json'], env).stdout);
  expect(shown).toMatchObject({ phone: '+14155550133', backup_phone: '+14155550779', backup_phone_status: 'pending' });
  const list = JSON.parse(runCli(['account', 'list', '--json'], env).stdout) as Array<{ phone: string }>;
  expect(list.map((a) => a.phone)).not.toContain('+14155550134');
  expect(testCallsOf(account.user_id)).toHaveLength(1);
  const help = runCli(['account', 'set', '--help'], env).stdout.replace(/\s+/g, ' ');
  expect(help).toContain('--backup-phone');
  expect(help).toContain('verification call');
});
