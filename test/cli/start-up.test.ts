// What a command line costs before it does anything: the modules the real CLI loads (#44). A command's
// module is imported only when the command line names it (src/main.ts), and the commonly run
// commands do not import what they do not use: serve's HTTPS stack, the PBX client, the speech, the
// SMS gateways, PostgreSQL's driver with a SQLite store. Seen from outside, through a loader hook
// that names every module the process loads (test/helpers/module-trace.mjs). bin/ringhook.js runs the
// bundle (scripts/bundle-cli.mjs): a file of dist/bundle/ it loads stands for the source modules and
// bundled packages inside it, as the bundle's own list says (dist/bundle/inputs.json).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildOnce, REPO_ROOT, runCli } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/service.js';

vi.setConfig({ testTimeout: 60_000 });

const BIN = path.join(REPO_ROOT, 'bin', 'ringhook.js');
const TRACE = path.join(REPO_ROOT, 'test', 'helpers', 'module-trace.mjs');
const DIST = `${path.join(REPO_ROOT, 'dist')}/`;
const BUNDLE = `${DIST}bundle/`;

let env: Record<string, string>;

beforeAll(() => {
  buildOnce();
  env = { RINGHOOK_DATA_DIR: makeDataDir() };
  expect(runCli(['account', 'create', '--phone', '+14155550123', '--json'], env).code).toBe(0);
});

/** own and packages: the modules, as in the sources; files: the files the process read for them. */
type Loaded = { code: number; own: string[]; packages: string[]; files: string[] };
const runs = new Map<string, Loaded>();

/** The command line's exit code, and what it loaded: its own modules (dist-relative) and the packages. */
function loadedBy(args: string[]): Loaded {
  const known = runs.get(JSON.stringify(args));
  if (known) return known;
  const run = spawnSync(process.execPath, ['--import', TRACE, BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const urls = run.stderr
    .split('\n')
    .filter((line) => line.startsWith('module-trace: file://'))
    .map((line) => decodeURIComponent(new URL(line.slice('module-trace: '.length)).pathname));
  const bundleInputs: Record<string, string[]> = JSON.parse(fs.readFileSync(path.join(BUNDLE, 'inputs.json'), 'utf8'));
  // Each file as the modules it stands for: a bundle's file, its inputs ("src/cli/account.ts" as
  // "cli/account.js", "node_modules/zod/…"); any other file, itself.
  const files = urls.flatMap((file) => {
    if (!file.startsWith(BUNDLE)) return [file];
    const inputs = bundleInputs[file.slice(BUNDLE.length)];
    if (!inputs) throw new Error(`${file} is not in the bundle's list of inputs`);
    return inputs.map((input) =>
      input.startsWith('src/') ? `${DIST}${input.slice('src/'.length).replace(/\.ts$/, '.js')}` : `/${input}`,
    );
  });
  const packages = new Set(files.map((file) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]));
  packages.delete(undefined);
  const loaded = {
    code: run.status ?? -1,
    own: files.filter((file) => file.startsWith(DIST)).map((file) => file.slice(DIST.length)),
    packages: [...packages].sort() as string[],
    files: urls.filter((file) => !file.startsWith('/usr/') && !file.includes('/node_modules/better-sqlite3/')),
  };
  runs.set(JSON.stringify(args), loaded);
  return loaded;
}

/** What serve, doctor, test calls and SMS need and the everyday commands do not. */
const SERVICE_PACKAGES = ['h3', 'listhen', 'srvx', 'ws', 'kuromoji', 'smpp', 'acme-client', 'postgres', 'node-forge'];
const SERVICE_FOLDERS = /^(http|calls|sms|speech|pbx|store\/postgres)\//;

describe('the modules a command line loads', () => {
  it("runs the bundle: account list reads a few dozen files for its ~130 modules and zod's ~30, none from dist/cli/ or zod's folder", () => {
    const { code, own, packages, files } = loadedBy(['account', 'list', '--json']);
    expect(code).toBe(0);
    expect(own.length).toBeGreaterThan(100);
    expect(packages).toEqual(expect.arrayContaining(['citty', 'zod']));
    expect(files.filter((file) => !file.startsWith(BUNDLE) && file !== BIN)).toEqual([]);
    expect(files.length).toBeLessThan(60);
  });

  it('sees what the process loads: serve --help brings the service', () => {
    const { code, own, packages } = loadedBy(['serve', '--help']);
    expect(code).toBe(0);
    expect(own).toContain('cli/serve.js');
    expect(own.some((file) => file.startsWith('http/'))).toBe(true);
    expect(packages).toEqual(expect.arrayContaining(['h3', 'listhen']));
  });

  it("serve loads telephony (the PBX client, the dialer, speech, the SMS gateways) only where it is on: serve --help does not, and the Japanese dictionary's kuromoji comes with the first Japanese speech", () => {
    const { own, packages } = loadedBy(['serve', '--help']);
    expect(own).toContain('app/service.js');
    // The SMS receipts' route (sms/receipts.js, sms/twilio-signature.js) is the HTTP app's: a few lines, no gateway,
    // through the folder's entry (#55), which loads the gateways only when asked.
    const receipts = ['sms/index.js', 'sms/receipts.js', 'sms/twilio-signature.js'];
    expect(
      own.filter(
        (file) =>
          /^(app\/telephony|app\/managed-asterisk|calls\/|pbx\/|speech\/|sms\/)/.test(file) && !receipts.includes(file),
      ),
    ).toEqual([]);
    expect(packages.filter((name) => ['ws', 'smpp', 'kuromoji'].includes(name))).toEqual([]);
  });

  it('serve loads the ACME client (acme-client) only where ACME is on: serve --help, without RINGHOOK_ACME, does not', () => {
    const { own, packages } = loadedBy(['serve', '--help']);
    expect(own).toContain('app/service.js');
    expect(packages).not.toContain('acme-client');
    expect(own.filter((file) => file.startsWith('app/acme/'))).toEqual([]);
  });

  it("--help and --version load no command's module, not even the configuration's schema", () => {
    for (const args of [['--help'], ['--version'], ['frob']]) {
      const { own, packages } = loadedBy(args);
      expect(
        own.filter(
          (file) =>
            file.startsWith('cli/') &&
            !['cli/commands.js', 'cli/strict-args.js', 'cli/data-dir.js', 'cli/terminal-guard.js'].includes(file),
        ),
        args.join(' '),
      ).toEqual([]);
      expect(packages, args.join(' ')).toEqual(['citty']);
    }
  });

  it("account --help loads account's modules and none of another command's", () => {
    const { code, own } = loadedBy(['account', '--help']);
    expect(code).toBe(0);
    expect(own).toContain('cli/account.js');
    const commandModules = fs
      .readdirSync(path.join(DIST, 'cli'))
      .filter((file) =>
        /^(serve|calls|test-call|sms-test|callbacks|doctor|backup|db-copy|provision|say)\.js$/.test(file),
      );
    expect(commandModules.length).toBe(10);
    expect(own.filter((file) => commandModules.includes(file.slice('cli/'.length)))).toEqual([]);
  });

  it.each([
    [['account', 'list', '--json']],
    [['calls', '--json']],
    [['callbacks', '--help']],
    [['test-call', '--help']],
    [['sms-test', '--help']],
    [['say', 'Buy BTC']],
  ])('%j loads neither the service, the speech, the gateways nor PostgreSQL', (args) => {
    const { code, own, packages } = loadedBy(args);
    expect(code).toBe(0);
    expect(own.filter((file) => SERVICE_FOLDERS.test(file))).toEqual([]);
    expect(packages.filter((name) => SERVICE_PACKAGES.includes(name))).toEqual([]);
  });

  it('account loads the callback settings (for set), not the callback sender and its HTTPS client', () => {
    const { code, own } = loadedBy(['account', 'list', '--json']);
    expect(code).toBe(0);
    expect(own).toContain('callbacks/settings.js');
    // Through the folder's entry (#55), which loads the service's parts and the signed POST only when used.
    expect(own).toContain('callbacks/index.js');
    expect(
      own.filter((file) => /^callbacks\/(service|send|sender|https-post|feed|resolve-name)\.js$/.test(file)),
    ).toEqual([]);
  });
});
