// `ringhook backup` as a real process: the copy is never readable by others, not even while it is
// being written.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOnce, cacheDirEnv, REPO_ROOT, runCli } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/service.js';

beforeAll(() => {
  buildOnce();
});

const mode = (file: string) => fs.statSync(file).mode & 0o777;

/** Runs the backup under umask 022 and records the mode of its .partial file as often as it can. */
async function backupWatchingPartial(
  dataDir: string,
  target: string,
): Promise<{ code: number | null; stderr: string; modes: number[] }> {
  const child = spawn(
    'sh',
    [
      '-c',
      'umask 022; exec "$0" "$@"',
      process.execPath,
      path.join(REPO_ROOT, 'bin', 'ringhook.js'),
      'backup',
      target,
      '--json',
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/root',
        ...cacheDirEnv(),
        RINGHOOK_DATA_DIR: dataDir,
      },
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let done = false;
  void exited.then(() => (done = true));
  const modes: number[] = [];
  const dir = path.dirname(target);
  while (!done) {
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith('.partial')) continue;
      try {
        modes.push(mode(path.join(dir, name)));
      } catch {
        // renamed between readdir and stat
      }
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { code: await exited, stderr, modes };
}

describe('ringhook backup', () => {
  it('writes the copy 0600 from its first byte, under umask 022', async () => {
    const dataDir = makeDataDir();
    expect(runCli(['account', 'create', '--phone', '+14155550123'], { RINGHOOK_DATA_DIR: dataDir }).code).toBe(0);
    // A database big enough that the copy takes a while, so the partial file can be watched.
    const db = new Database(path.join(dataDir, 'ringhook.db'));
    db.exec(`CREATE TABLE filler (b BLOB);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 64) INSERT INTO filler SELECT randomblob(1048576) FROM n;`);
    db.close();

    const target = path.join(makeDataDir(), 'copy.db');
    const { code, stderr, modes } = await backupWatchingPartial(dataDir, target);
    expect(code, stderr).toBe(0);
    expect(modes.length, 'the partial file was never seen').toBeGreaterThan(0);
    expect(new Set(modes.map((m) => m.toString(8)))).toEqual(new Set(['600']));
    expect(mode(target)).toBe(0o600);
    expect(fs.readdirSync(path.dirname(target))).toEqual(['copy.db']);
  });

  it('refuses a data dir with no database (it makes none), and a target that is a database in use; needs no key', () => {
    const empty = makeDataDir();
    const nowhere = runCli(['backup', path.join(makeDataDir(), 'copy.db')], { RINGHOOK_DATA_DIR: empty });
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/no database in the data dir .* \(from RINGHOOK_DATA_DIR\): nothing made/);
    expect(fs.readdirSync(empty)).toEqual([]);

    const dataDir = makeDataDir();
    expect(runCli(['account', 'create', '--phone', '+14155550123'], { RINGHOOK_DATA_DIR: dataDir }).code).toBe(0);
    const live = path.join(makeDataDir(), 'ringhook.db');
    fs.writeFileSync(live, '');
    // An empty -wal (a read-only look leaves one) is harmless; one holding pages is a database in use.
    fs.writeFileSync(`${live}-wal`, '');
    expect(runCli(['backup', live, '--force'], { RINGHOOK_DATA_DIR: dataDir }).code).toBe(0);
    fs.writeFileSync(`${live}-wal`, Buffer.alloc(4096));
    const over = runCli(['backup', live, '--force'], { RINGHOOK_DATA_DIR: dataDir });
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(
      /is a database in use or left by a crash \(its -wal holds pages\); a backup never goes over one/,
    );

    // The key lost: the database can still be copied before anything irreversible is done.
    fs.rmSync(path.join(dataDir, 'api-keys.secret'));
    const target = path.join(makeDataDir(), 'copy.db');
    const saved = runCli(['backup', target], { RINGHOOK_DATA_DIR: dataDir });
    expect(saved.code, saved.stderr).toBe(0);
    expect(new Database(target, { readonly: true }).prepare('SELECT count(*) AS n FROM accounts').get()).toEqual({
      n: 1,
    });
  });
});
