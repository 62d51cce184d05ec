// serve refuses, in one line naming the variable, a configuration Asterisk could not take, before
// anything starts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { buildOnce, runCli } from '../helpers/cli.js';

beforeAll(() => buildOnce());

it.each([
  [
    'a data dir too long for the socket Asterisk puts under it',
    'x'.repeat(80),
    /asterisk must be at most 80 characters/,
  ],
  ['a data dir with a space', 'My Alerts', /asterisk may contain only letters, digits, \. _ - and \//],
])('%s: one line naming RINGHOOK_DATA_DIR, exit 1', (_what, name, said) => {
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rh-')), name);
  fs.mkdirSync(dataDir);
  const res = runCli(['serve'], { RINGHOOK_DATA_DIR: dataDir, RINGHOOK_PORT: '0' });
  expect(res.code).toBe(1);
  expect(res.stderr).toMatch(/^ringhook: RINGHOOK_DATA_DIR \(.*\) cannot hold Asterisk's folder: /);
  expect(res.stderr).toMatch(said);
  expect(res.stderr.trim().split('\n')).toHaveLength(1);
});
