// Errors that help (#52), from the real CLI: a misspelled command or option names the nearest one;
// `any` mixed into a list of sources says it stands alone; `say --wav` into a missing folder names it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildOnce, runCli } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/service.js';

vi.setConfig({ testTimeout: 60_000 });

let env: Record<string, string>;
let userId: string;

beforeAll(() => {
  buildOnce();
  env = { RINGHOOK_DATA_DIR: makeDataDir() };
  const created = runCli(['account', 'create', '--phone', '+14155550123', '--json'], env);
  expect(created.code, created.stderr).toBe(0);
  userId = created.json.user_id;
});

/** The one line of a usage error, exit 2. */
function refused(args: string[]): string {
  const res = runCli(args, env);
  expect(res.code, res.stderr).toBe(2);
  expect(res.stderr.trim().split('\n')).toHaveLength(1);
  return res.stderr.trim();
}

describe('a misspelling names the nearest', () => {
  it('option: --dedup → --dedupe', () => {
    expect(refused(['account', 'set', userId, '--dedup', '30'])).toBe(
      'ringhook: unknown option --dedup (did you mean --dedupe?) (see ringhook account set --help)',
    );
  });
  it('command: acount → account, account craete → create', () => {
    expect(refused(['acount', 'list'])).toBe(
      'ringhook: Unknown command acount (did you mean account?) (see ringhook --help)',
    );
    expect(refused(['account', 'craete'])).toBe(
      'ringhook: Unknown command craete (did you mean create?) (see ringhook account --help)',
    );
  });
  it('nothing near: no guess', () => {
    expect(refused(['frobnicate'])).toBe('ringhook: Unknown command frobnicate (see ringhook --help)');
    expect(refused(['calls', '--zzzzzz'])).toBe('ringhook: unknown option --zzzzzz (see ringhook calls --help)');
  });
});

it('--sources: "any" stands alone', () => {
  const res = runCli(['account', 'set', userId, '--sources', 'any, 1.2.3.4'], env);
  expect(res.code).not.toBe(0);
  expect(res.stderr).toContain('"any" stands alone (every address): use it, or a list of addresses, not both');
});

it('say --wav into a folder that does not exist names the folder, before making any audio', () => {
  const missing = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rh-say-')), 'no', 'such');
  const res = runCli(['say', 'BTC up', '--wav', path.join(missing, 'out.wav')], env);
  expect(res.code).toBe(1);
  expect(res.stderr.trim()).toBe(
    `ringhook: --wav: the folder ${missing} does not exist: make it first, or write the file elsewhere`,
  );
});
