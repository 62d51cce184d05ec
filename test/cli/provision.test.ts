// `ringhook provision` refuses an --owner that does not exist before it installs or builds anything.
import { beforeAll, expect, it } from 'vitest';
import { buildOnce, runCli } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/service.js';

beforeAll(() => buildOnce());

it('an --owner with no such user: one line, exit 1, no package checked and no root file system built', () => {
  const res = runCli(['provision', '--owner', 'nosuchuser'], { RINGHOOK_DATA_DIR: makeDataDir() });
  expect(res.code).toBe(1);
  expect(res.stderr).toBe('ringhook: --owner: no user named nosuchuser on this host (useradd --system nosuchuser)\n');
});
