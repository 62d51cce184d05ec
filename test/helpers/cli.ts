// Runs the real CLI (bin/ringhook.js over the compiled dist/) as a child process.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(REPO_ROOT, 'bin', 'ringhook.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

/**
 * Compiles dist/ for the tests that run the real CLI or serve; `npm test` compiled it just before
 * the run (scripts/test.sh says so in RINGHOOK_TEST_DIST_BUILT), so there it is not done again.
 */
export function buildOnce(): void {
  if (process.env.RINGHOOK_TEST_DIST_BUILT === '1') return;
  if (spawnSync('npm', ['run', '--silent', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' }).status !== 0)
    throw new Error('npm run build failed');
}

/** Where this run provisioned Asterisk and the executable's runtime (CI gives each run an empty one). */
export function cacheDirEnv(): Record<string, string> {
  return process.env.RINGHOOK_CACHE_DIR ? { RINGHOOK_CACHE_DIR: process.env.RINGHOOK_CACHE_DIR } : {};
}

/**
 * Runs the CLI and waits for it, killed after `timeoutMs` (a hung command must not hold the test's
 * worker: a synchronous test cannot be timed out). A command that works for long on the CPU (the
 * Japanese dictionary's load) passes a longer bound, within its test's own timeout.
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  input?: string,
  timeoutMs = 30_000,
): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...cacheDirEnv(), ...env },
    input,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  let json: unknown;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    json = undefined;
  }
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, json };
}
