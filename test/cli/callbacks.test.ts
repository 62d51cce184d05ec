// The status-callback CLI as a real process: account set --callback-url / --rotate-callback-secret
// and `ringhook callbacks test`, against a real HTTPS receiver that verifies with `standardwebhooks`.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { buildOnce, REPO_ROOT, runCli } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/service.js';

vi.setConfig({ testTimeout: 120_000 });

let env: Record<string, string>;
let r: CallbackReceiver;
let userId: string;

/** The CLI without blocking this process (the receiver answers from it). */
function runCliAsync(
  args: string[],
  extra: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'ringhook.js'), ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env, ...extra }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  buildOnce();
  r = await startCallbackReceiver();
  const dataDir = makeDataDir();
  const caFile = path.join(dataDir, 'receiver-ca.pem');
  fs.writeFileSync(caFile, r.ca);
  env = { RINGHOOK_DATA_DIR: dataDir, NODE_EXTRA_CA_CERTS: caFile };
  const created = runCli(['account', 'create', '--phone', '+14155550123', '--json'], env);
  expect(created.code, created.stderr).toBe(0);
  userId = created.json.user_id;
});

afterAll(async () => {
  await r?.close();
});

describe('ringhook account set --callback-url', () => {
  it('refuses a URL that is not https in one line and changes nothing', () => {
    const bad = runCli(['account', 'set', userId, '--callback-url', 'http://example.com/hook'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual([
      'ringhook: --callback-url: the callback URL must start with https://',
    ]);
    expect(runCli(['account', 'show', userId, '--json'], env).json.callback_url).toBeNull();
  });

  it('sets the URL, shows the secret once, and `callbacks test` gets a verified 200 from the receiver', async () => {
    const set = runCli(['account', 'set', userId, '--callback-url', r.url, '--json'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toMatchObject({ callback_url: r.url, callback_secret: expect.stringMatching(/^whsec_/) });
    r.secrets.push(set.json.callback_secret);
    const shown = runCli(['account', 'show', userId, '--json'], env).json;
    expect(shown.callback_url).toBe(r.url);
    expect(JSON.stringify(shown)).not.toContain('whsec_');

    const sent = await runCliAsync(['callbacks', 'test', userId], { RINGHOOK_CALLBACK_ALLOW: '127.0.0.1/32' });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain(`${r.url} answered 200 (delivered) from 127.0.0.1:`);
    expect(sent.stdout).toContain('answer 200');
    expect(r.received.at(-1)).toMatchObject({ type: 'callback.test', verifiedBy: [0], answered: 200 });
  });

  it('without NODE_EXTRA_CA_CERTS a receiver with its own CA is not trusted, and says so (docs/callbacks.md)', async () => {
    const before = r.received.length;
    // An empty NODE_EXTRA_CA_CERTS is no file: Node's own list of authorities alone.
    const untrusted = await runCliAsync(['callbacks', 'test', userId], {
      RINGHOOK_CALLBACK_ALLOW: '127.0.0.1/32',
      NODE_EXTRA_CA_CERTS: '',
    });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr.trim()).toBe(
      `ringhook: the test event was not delivered to ${r.url}: self-signed certificate`,
    );
    expect(r.received.length).toBe(before);
  });

  it('refuses to send to 127.0.0.1 without RINGHOOK_CALLBACK_ALLOW', async () => {
    const before = r.received.length;
    const refused = await runCliAsync(['callbacks', 'test', userId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^ringhook: the test event was not delivered to .*: 127\.0\.0\.1 resolves to 127\.0\.0\.1 is a loopback address/,
    );
    expect(r.received.length).toBe(before);
  });

  it('a rotation shows the new secret once; callbacks carry both signatures for a day', async () => {
    const rotated = runCli(['account', 'set', userId, '--rotate-callback-secret', '--json'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.json.callback_secret).toMatch(/^whsec_/);
    expect(rotated.json.callback_secret).not.toBe(r.secrets[0]);
    r.secrets.push(rotated.json.callback_secret);
    const sent = await runCliAsync(['callbacks', 'test', userId, '--json'], {
      RINGHOOK_CALLBACK_ALLOW: '127.0.0.1/32',
    });
    expect(sent.code, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ result: 'delivered', http_status: 200 });
    expect(r.received.at(-1)!.verifiedBy).toEqual([0, 1]);

    const off = runCli(['account', 'set', userId, '--callback-url', 'off', '--json'], env);
    expect(off.json.callback_url).toBeNull();
    const none = await runCliAsync(['callbacks', 'test', userId]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('has no callback URL');
  });
});
