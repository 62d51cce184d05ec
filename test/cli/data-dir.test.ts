// One data dir wherever a command runs (#38): the real CLI typed in different folders opens the same
// data dir, says which one and why, never makes an empty one by reading, and keeps an earlier
// install's ./data. Run as an unprivileged user (setpriv, when the tests run as root): root's default
// is /var/lib/ringhook, which a test must not touch.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce, cacheDirEnv, REPO_ROOT } from '../helpers/cli.js';

const AS_ROOT = process.getuid?.() === 0;
/** nobody: an ordinary user, whose default is under its HOME. */
const USER = 65534;

let tmp: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI (`bin`, this checkout's unless given) in folder `cwd`, as an ordinary user whose HOME is `home`. */
function ringhook(
  args: string[],
  options: { cwd: string; home: string; env?: Record<string, string>; bin?: string },
): Run {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: options.home,
    ...cacheDirEnv(),
    RINGHOOK_TELEPHONY: 'off',
    ...options.env,
  };
  const command = [process.execPath, options.bin ?? path.join(REPO_ROOT, 'bin', 'ringhook.js'), ...args];
  const [file, ...rest] = AS_ROOT
    ? ['setpriv', `--reuid=${USER}`, `--regid=${USER}`, '--clear-groups', ...command]
    : command;
  const r = spawnSync(file!, rest, { cwd: options.cwd, env, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A folder the ordinary user owns. */
function folder(...parts: string[]): string {
  const dir = path.join(tmp, ...parts);
  fs.mkdirSync(dir, { recursive: true });
  if (AS_ROOT) fs.chownSync(dir, USER, USER);
  return dir;
}

const PHONE = ['--phone', '+14155550123'];

beforeAll(() => {
  buildOnce();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-datadir-'));
  fs.chmodSync(tmp, 0o755);
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the data dir, wherever a command runs', { timeout: 180_000 }, () => {
  it('is the same from any folder: made (and said) by account create, found by account list elsewhere', () => {
    const home = folder('home1');
    const one = folder('home1', 'projects');
    const two = folder('elsewhere');
    const dataDir = path.join(home, '.local', 'share', 'ringhook');

    const created = ringhook(['account', 'create', ...PHONE, '--json'], { cwd: one, home });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain(`ringhook: made the data dir ${dataDir} (the default for this user`);
    expect(fs.existsSync(path.join(dataDir, 'ringhook.db'))).toBe(true);
    const { user_id } = JSON.parse(created.stdout) as { user_id: string };

    const listed = ringhook(['account', 'list', '--json'], { cwd: two, home });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.stringify(listed.stdout)).toContain(user_id);
    // Nothing said the second time: the data dir was there.
    expect(listed.stderr).not.toContain('made the data dir');
    // No ./data in either folder.
    expect(fs.existsSync(path.join(one, 'data'))).toBe(false);
    expect(fs.existsSync(path.join(two, 'data'))).toBe(false);

    // XDG_DATA_HOME moves it.
    const xdg = folder('xdg');
    const moved = ringhook(['account', 'create', ...PHONE], { cwd: two, home, env: { XDG_DATA_HOME: xdg } });
    expect(moved.code, moved.stderr).toBe(0);
    expect(fs.existsSync(path.join(xdg, 'ringhook', 'ringhook.db'))).toBe(true);
  });

  it('is named by --help and by doctor', () => {
    const home = folder('home2');
    const dataDir = path.join(home, '.local', 'share', 'ringhook');
    for (const args of [['--help'], ['account', 'list', '--help'], ['calls', '--help'], ['serve', '--help']]) {
      const help = ringhook(args, { cwd: tmp, home });
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toContain(`Data dir: ${dataDir} (the default for this user`);
    }
    // --help made nothing.
    expect(fs.existsSync(dataDir)).toBe(false);
    const say = ringhook(['say', '--help'], { cwd: tmp, home });
    expect(say.stdout).not.toContain('Data dir');

    expect(ringhook(['account', 'create', ...PHONE], { cwd: tmp, home }).code).toBe(0);
    const doctor = ringhook(['doctor', '--json'], { cwd: folder('home2', 'x'), home });
    const row = (JSON.parse(doctor.stdout) as Array<{ name: string; ok: unknown; detail: string }>).find(
      (r) => r.name === 'data dir',
    );
    expect(row, doctor.stderr).toMatchObject({ ok: true });
    expect(row!.detail).toContain(dataDir);
    const text = ringhook(['doctor'], { cwd: tmp, home });
    expect(text.stdout).toMatch(new RegExp(`^ok +data dir +${dataDir.replace(/[.]/g, '\\.')} `, 'm'));
  });

  it('is never made by a command that reads: account list/show, calls, backup say so and exit 1; doctor fails its data dir check and runs the others', () => {
    const home = folder('home3');
    const cwd = folder('home3', 'work');
    const dataDir = path.join(home, '.local', 'share', 'ringhook');
    const reads = [
      ['account', 'list'],
      ['account', 'show', 'a'.repeat(32)],
      ['calls'],
      ['backup', path.join(tmp, 'never.db')],
      ['test-call', 'a'.repeat(32)],
    ];
    for (const args of reads) {
      const r = ringhook(args, { cwd, home });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toContain(`ringhook: no data dir at ${dataDir} (the default for this user`);
      expect(r.stderr).toContain('nothing made');
      expect(fs.existsSync(dataDir), args.join(' ')).toBe(false);
      expect(fs.existsSync(path.join(cwd, 'data')), args.join(' ')).toBe(false);
    }
    // doctor is the diagnosis: the data dir check fails with the same words, the checks that need no
    // database (the variables, Asterisk, the trunk and its NAT, speech, SMS) still run, and nothing is made.
    const doctor = ringhook(['doctor', '--json'], { cwd, home });
    expect(doctor.code, doctor.stderr).toBe(1);
    const rows = JSON.parse(doctor.stdout) as Array<{ name: string; ok: unknown; detail: string }>;
    expect(rows.find((row) => row.name === 'data dir')).toMatchObject({
      ok: false,
      detail: expect.stringContaining(`no data dir at ${dataDir} (the default for this user`),
    });
    expect(rows.find((row) => row.name === 'database')).toMatchObject({ ok: 'skipped' });
    expect(rows.find((row) => row.name === 'variables')).toMatchObject({ ok: true });
    expect(ringhook(['doctor'], { cwd, home }).stdout).toContain(`FAIL  data dir     no data dir at ${dataDir}`);
    expect(fs.existsSync(dataDir)).toBe(false);
    expect(fs.existsSync(path.join(cwd, 'data'))).toBe(false);
    // An account create refused for its arguments makes nothing either.
    const bad = ringhook(['account', 'create', '--phone', 'nope'], { cwd, home });
    expect(bad.code).not.toBe(0);
    expect(fs.existsSync(dataDir)).toBe(false);
    // A folder named by RINGHOOK_DATA_DIR that has no database is refused alike.
    const empty = folder('home3', 'empty');
    const r = ringhook(['account', 'list'], { cwd, home, env: { RINGHOOK_DATA_DIR: empty } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no database in the data dir ${empty} (from RINGHOOK_DATA_DIR)`);
    expect(fs.readdirSync(empty)).toEqual([]);
  });

  it("keeps an earlier install's ./data in the current folder, said once", () => {
    const home = folder('home4');
    const install = folder('home4', 'install');
    const legacy = path.join(install, 'data');
    // What an earlier release made: ./data of the folder it ran in.
    const made = ringhook(['account', 'create', ...PHONE, '--json'], {
      cwd: install,
      home,
      env: { RINGHOOK_DATA_DIR: 'data' },
    });
    expect(made.code, made.stderr).toBe(0);
    const { user_id } = JSON.parse(made.stdout) as { user_id: string };

    const listed = ringhook(['account', 'list', '--json'], { cwd: install, home });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(user_id);
    const said = listed.stderr.split('\n').filter((l) => l.includes('earlier install'));
    expect(said).toEqual([
      `ringhook: using the data dir of an earlier install, ${legacy} (an earlier install's ./data in the current folder); set RINGHOOK_DATA_DIR=${legacy} to keep it wherever you run ringhook`,
    ]);
    expect(fs.existsSync(path.join(home, '.local', 'share', 'ringhook'))).toBe(false);
    const doctor = ringhook(['doctor', '--json'], { cwd: install, home });
    expect(doctor.stdout).toContain(legacy);
  });

  it('keeps the ./data beside the checkout where npm start ran, from any folder', () => {
    const home = folder('home5');
    // A checkout of its own (this one's dist/ and bin/, its node_modules linked): its ./data is
    // what `npm start` (scripts/start.sh runs serve in the checkout) made.
    const checkout = folder('checkout');
    fs.cpSync(path.join(REPO_ROOT, 'dist'), path.join(checkout, 'dist'), { recursive: true });
    fs.cpSync(path.join(REPO_ROOT, 'bin'), path.join(checkout, 'bin'), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(checkout, 'package.json'));
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(checkout, 'node_modules'));
    const bin = path.join(checkout, 'bin', 'ringhook.js');
    const made = ringhook(['account', 'create', ...PHONE, '--json'], {
      cwd: checkout,
      home,
      bin,
      env: { RINGHOOK_DATA_DIR: 'data' },
    });
    expect(made.code, made.stderr).toBe(0);
    const { user_id } = JSON.parse(made.stdout) as { user_id: string };

    const listed = ringhook(['account', 'list', '--json'], { cwd: folder('home5', 'docs'), home, bin });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(user_id);
    expect(listed.stderr).toContain(
      `using the data dir of an earlier install, ${path.join(checkout, 'data')} (an earlier install's ./data beside the checkout`,
    );
  });
});

describe('serve and the data dir', () => {
  it('says on stderr that it made the data dir, and names it in its start line', async () => {
    const home = folder('home6');
    const dataDir = path.join(home, '.local', 'share', 'ringhook');
    const { spawn } = await import('node:child_process');
    const command = [process.execPath, path.join(REPO_ROOT, 'bin', 'ringhook.js'), 'serve'];
    const [file, ...rest] = AS_ROOT
      ? ['setpriv', `--reuid=${USER}`, `--regid=${USER}`, '--clear-groups', ...command]
      : command;
    const child = spawn(file!, rest, {
      cwd: folder('home6', 'work'),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        ...cacheDirEnv(),
        RINGHOOK_TELEPHONY: 'off',
        RINGHOOK_HOST: '127.0.0.1',
        RINGHOOK_PORT: '0',
      },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const deadline = Date.now() + 30_000;
      while (!stderr.includes('ringhook is serving') && Date.now() < deadline && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 100));
      expect(stderr).toContain('ringhook is serving');
      expect(stderr).toContain(`ringhook: made the data dir ${dataDir} (the default for this user`);
      const start = stderr.split('\n').find((l) => l.includes('ringhook is serving'))!;
      expect(JSON.parse(start)).toMatchObject({ data_dir: dataDir, data_dir_from: 'user' });
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});
