// serve's output lands in journald and `docker logs`: the softphone password it made is printed on
// the start that made it, never again (it says where the password is kept instead), and a password
// the operator set is never printed. Real `ringhook serve` processes with their managed Asterisk.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { freeTcpPort } from '../helpers/ports.js';
import { makeDataDir, managedTelephonyEnv } from '../helpers/service.js';

beforeAll(async () => {
  await provisionAsterisk();
}, 300_000);

/** Starts serve, waits for its next steps, stops it; returns all it printed. */
async function serveOnce(env: Record<string, string>): Promise<string> {
  let output = '';
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'ringhook.js'), 'serve'], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 60_000;
  while (!output.includes('Stop with Ctrl-C')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  return output;
}

async function softphoneEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    ...(await managedTelephonyEnv(0)),
    RINGHOOK_DATA_DIR: makeDataDir('rh-sp-'),
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(await freeTcpPort()),
    ...extra,
  };
  delete env.RINGHOOK_TRUNK_URI;
  return env;
}

it('prints the password it made on the first start only, then where it is kept', async () => {
  const env = await softphoneEnv();
  const first = await serveOnce(env);
  const secretFile = path.join(env.RINGHOOK_DATA_DIR!, 'softphone.secret');
  const password = fs.readFileSync(secretFile, 'utf8').trim();
  expect(first).toContain(`password: ${password}  (shown this once; kept in ${secretFile}`);

  const second = await serveOnce(env);
  expect(second).not.toContain(password);
  expect(second).toContain(`password: in ${secretFile} (shown on the first start only`);
}, 120_000);

it('never prints a password set in RINGHOOK_SOFTPHONE_PASSWORD', async () => {
  const env = await softphoneEnv({ RINGHOOK_SOFTPHONE_PASSWORD: 'chosen-by-the-operator-42' });
  const output = await serveOnce(env);
  expect(output).not.toContain('chosen-by-the-operator-42');
  expect(output).toContain('password: the one in RINGHOOK_SOFTPHONE_PASSWORD');
}, 120_000);
