// RINGHOOK_JA_DICTIONARY against real folders (#51): serve refuses, before anything starts, a folder
// that is missing, writable by others or its group, or owned by another user (chmod and chown made
// here), in one line with the fix and the real path; a folder that passes but holds a gzip bomb
// (made here: 1 GiB of zeros in about 1 MB) is not loaded, and the process loading it stays within
// the bound (its peak memory, from its own resourceUsage).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { buildOnce, REPO_ROOT } from '../helpers/cli.js';
import { freeTcpPort } from '../helpers/ports.js';
import { makeDataDir } from '../helpers/service.js';

vi.setConfig({ testTimeout: 120_000 });

const KUROMOJI_DICT = path.join(REPO_ROOT, 'node_modules', 'kuromoji', 'dict');
const NOBODY = 65534;
let root: string;
let good: string;
let ariPort: number;

/** A copy of kuromoji's dictionary: a folder the serve user (root here) owns, mode 0755, files 0644. */
function dictionaryCopy(name: string): string {
  const folder = path.join(root, name);
  fs.mkdirSync(folder, { mode: 0o755 });
  for (const file of fs.readdirSync(KUROMOJI_DICT)) {
    fs.copyFileSync(path.join(KUROMOJI_DICT, file), path.join(folder, file));
    fs.chmodSync(path.join(folder, file), 0o644);
  }
  fs.chmodSync(folder, 0o755);
  return folder;
}

beforeAll(async () => {
  buildOnce();
  ariPort = await freeTcpPort();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-jadict-'));
  fs.chmodSync(root, 0o755);
  good = dictionaryCopy('good');
});

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/**
 * serve with telephony on: the folder is checked before anything of it starts. An external Asterisk
 * at a port where nothing listens: had the check let serve go on, no Asterisk of ours is left running.
 */
function serve(setting: string) {
  const dataDir = makeDataDir('rh-jadict-data-');
  const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'ringhook.js'), 'serve'], {
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      RINGHOOK_DATA_DIR: dataDir,
      RINGHOOK_HOST: '127.0.0.1',
      RINGHOOK_PORT: '0',
      RINGHOOK_TELEPHONY: 'external',
      RINGHOOK_ARI_URL: `http://127.0.0.1:${ariPort}`,
      RINGHOOK_ARI_USER: 'ringhook',
      RINGHOOK_ARI_PASSWORD: 'unused',
      RINGHOOK_JA_DICTIONARY: setting,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  fs.rmSync(dataDir, { recursive: true, force: true });
  const errors = run.stderr.split('\n').filter((line) => line.startsWith('ringhook: '));
  return { code: run.status, errors, output: run.stdout + run.stderr };
}

function expectRefused(setting: string, why: string) {
  const run = serve(setting);
  expect(run.code, run.output).toBe(1);
  expect(run.errors).toEqual([expect.stringContaining(why)]);
  expect(run.output).not.toMatch(/\n\s+at /);
  expect(run.output).not.toMatch(/asterisk|ARI/i);
}

it('serve refuses a missing folder at start, saying what to set', () => {
  expectRefused(
    path.join(root, 'nowhere'),
    `RINGHOOK_JA_DICTIONARY (${root}/nowhere): no such folder: set it to a folder of kuromoji's dictionary files (base.dat.gz …), or to auto or off`,
  );
});

it.each([
  ['0777', 'writable by its group and others (mode 0777)'],
  ['0757', 'writable by others (mode 0757)'],
  ['0775', 'writable by its group (mode 0775)'],
])('serve refuses a folder of mode %s: %s, and names chmod go-w', (mode, why) => {
  fs.chmodSync(good, Number.parseInt(mode, 8));
  try {
    expectRefused(good, `${good} is ${why}: chmod go-w ${good}`);
  } finally {
    fs.chmodSync(good, 0o755);
  }
});

it('serve refuses a folder owned by another user, and a world-writable file in it', () => {
  fs.chownSync(good, NOBODY, NOBODY);
  try {
    expectRefused(
      good,
      `${good} is owned by uid ${NOBODY}, neither root nor the user serve runs as (uid 0): chown root ${good}`,
    );
  } finally {
    fs.chownSync(good, 0, 0);
  }
  const base = path.join(good, 'base.dat.gz');
  fs.chmodSync(base, 0o666);
  try {
    expectRefused(good, `${base} is writable by its group and others (mode 0666)`);
  } finally {
    fs.chmodSync(base, 0o644);
  }
});

it('a path through .. is resolved and reported as its real path', () => {
  const open = dictionaryCopy('open');
  fs.chmodSync(open, 0o777);
  const winding = `${good}/../open`;
  expectRefused(winding, `RINGHOOK_JA_DICTIONARY (${winding}), really ${open}: ${open} is writable by`);
});

/** Loads the dictionary in a process of its own; what it logged and its peak memory. */
function loadIn(folder: string): { loaded: boolean; messages: string[]; maxRssMiB: number } {
  const script = `
    const { japaneseDictionary } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'speech', 'japanese-reader.js'))});
    const messages = [];
    const logger = { info: (m) => messages.push(m), warn: (m) => messages.push(m) };
    const reader = await japaneseDictionary({ setting: ${JSON.stringify(folder)}, logger }).load();
    console.log(JSON.stringify({ loaded: reader !== undefined, messages, maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 90_000 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

it('the real dictionary from a safe folder loads; a gzip bomb in its place is refused within the bound', () => {
  const fine = loadIn(good);
  expect(fine).toMatchObject({ loaded: true, messages: ['Japanese dictionary loaded'] });

  const bombed = dictionaryCopy('bombed');
  const bomb = path.join(bombed, 'base.dat.gz');
  // 1 GiB of zeros in about 1 MB, as the review's: 64 gzip members of 16 MiB each, one after another.
  const member = zlib.gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
  fs.writeFileSync(bomb, Buffer.concat(Array.from({ length: 64 }, () => member)));
  const loaded = loadIn(bombed);
  console.log(`peak memory: the real dictionary ${fine.maxRssMiB} MiB, with the bomb ${loaded.maxRssMiB} MiB`);
  expect(loaded.loaded).toBe(false);
  expect(loaded.messages.join('\n')).toContain('base.dat.gz expands to more than 64 MiB');
  // The real dictionary's peak, and the bound: the bomb expands to 64 MiB at most.
  expect(loaded.maxRssMiB).toBeLessThan(fine.maxRssMiB + 64);
});
