// `ringhook install-cli`: the command on the PATH, run from another folder on a machine with no
// global ringhook (the PATH holds the test's bin folder and the system's, no /usr/local/bin), as a
// real process; it never replaces a file of that name that is not its own.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildOnce, REPO_ROOT, runCli } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/service.js';

vi.setConfig({ testTimeout: 60_000 });

const SYSTEM_PATH = '/usr/bin:/bin';

beforeAll(() => {
  buildOnce();
});

const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** `ringhook …` typed in `cwd`, found by the shell on `PATH`. */
function typed(args: string[], options: { cwd: string; path: string; env?: Record<string, string> }) {
  const result = spawnSync('ringhook', args, {
    cwd: options.cwd,
    env: { PATH: options.path, HOME: process.env.HOME ?? '/root', ...options.env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '', error: result.error };
}

describe('ringhook install-cli', () => {
  it('puts a ringhook command in the folder that runs this checkout from any folder, without npx', () => {
    const bin = tempDir('rh-bin-');
    const elsewhere = tempDir('rh-elsewhere-');
    const path_ = `${bin}:${SYSTEM_PATH}`;
    expect(typed(['--version'], { cwd: elsewhere, path: path_ }).error).toMatchObject({ code: 'ENOENT' });

    const installed = runCli(['install-cli', '--dir', bin], { PATH: path_ });
    expect(installed.code, installed.stderr).toBe(0);
    const file = path.join(bin, 'ringhook');
    expect(installed.stdout).toContain(`put the ringhook command at ${file}`);
    expect(installed.stdout).toContain(`remove it with: rm ${file}`);
    expect(installed.stdout).not.toContain('is not on your PATH');
    expect(fs.statSync(file).mode & 0o777).toBe(0o755);
    const script = fs.readFileSync(file, 'utf8');
    expect(script).toContain(path.join(REPO_ROOT, 'bin', 'ringhook.js'));
    expect(script).not.toMatch(/npx|npm/);

    const env = { RINGHOOK_DATA_DIR: makeDataDir() };
    const created = typed(['account', 'create', '--phone', '+14155550123', '--plan', 'premium', '--json'], {
      cwd: elsewhere,
      path: path_,
      env,
    });
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout);
    const listed = typed(['account', 'list', '--json'], { cwd: elsewhere, path: path_, env });
    expect(JSON.parse(listed.stdout).map((a: { user_id: string }) => a.user_id)).toEqual([account.user_id]);
    // Nothing was made in the folder it was typed in.
    expect(fs.readdirSync(elsewhere)).toEqual([]);

    // Again: the same launcher, said once; --quiet says nothing.
    expect(runCli(['install-cli', '--dir', bin], { PATH: path_ }).stdout).toContain('is at');
    expect(runCli(['install-cli', '--dir', bin, '--quiet'], { PATH: path_ }).stdout).toBe('');
  });

  it('never replaces a file of that name that is not its own, nor follows a link', () => {
    const bin = tempDir('rh-bin-');
    const file = path.join(bin, 'ringhook');
    fs.writeFileSync(file, '#!/bin/sh\necho someone else\n', { mode: 0o755 });
    const refused = runCli(['install-cli', '--dir', bin]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${file} exists and is not ringhook's launcher: left as it is`);
    expect(fs.readFileSync(file, 'utf8')).toBe('#!/bin/sh\necho someone else\n');

    const other = tempDir('rh-bin-');
    const target = path.join(bin, 'target');
    fs.writeFileSync(target, 'x');
    fs.symlinkSync(target, path.join(other, 'ringhook'));
    expect(runCli(['install-cli', '--dir', other]).code).toBe(1);
    expect(fs.readFileSync(target, 'utf8')).toBe('x');
  });

  it('says when the folder is not on the PATH', () => {
    const bin = tempDir('rh-bin-');
    const res = runCli(['install-cli', '--dir', bin], { PATH: SYSTEM_PATH });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`${bin} is not on your PATH`);
  });
});
