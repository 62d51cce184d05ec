// No escape sequence from outside reaches the terminal (#51): a real HTTPS callback receiver answers
// `ringhook callbacks test` (a real process) with what cleared the review's screen, set its window
// title and printed a fake "all checks passed"; the CLI's output holds no control byte but newline
// and tab, and shows each as a visible escape. --json keeps the answer exactly (JSON escapes it).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { buildOnce, REPO_ROOT, runCli } from '../helpers/cli.js';
import { makeCertificate } from '../helpers/reverse-proxy.js';
import { makeDataDir } from '../helpers/service.js';

vi.setConfig({ testTimeout: 120_000 });

/** ESC, CSI, OSC, BEL, CR, backspace, an 8-bit CSI, a right-to-left override. */
const HOSTILE =
  '\u001b[2J\u001b[H\u001b]0;owned\u0007\u001b[32mall checks passed\u001b[0m\r\u0008\u009b31m\u202edetrats\n';
/** What a terminal obeys: C0 but newline and tab, DEL, C1, the bidirectional controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let env: Record<string, string>;
let userId: string;
let dir: string;
let status = 200;
let server: https.Server;
let url: string;

function runCliAsync(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'ringhook.js'), ...args],
      {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
        timeout: 60_000,
        encoding: 'latin1', // every byte as it came, to look for C1 bytes too
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  buildOnce();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-escapes-'));
  const { cert, key } = makeCertificate(dir);
  server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(HOSTILE));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  const dataDir = makeDataDir();
  env = {
    RINGHOOK_DATA_DIR: dataDir,
    NODE_EXTRA_CA_CERTS: cert,
    RINGHOOK_CALLBACK_ALLOW: '127.0.0.1/32',
  };
  const created = runCli(['account', 'create', '--phone', '+14155550123', '--json'], env);
  expect(created.code, created.stderr).toBe(0);
  userId = (created.json as { user_id: string }).user_id;
  const set = runCli(['account', 'set', userId, '--callback-url', url, '--json'], env);
  expect(set.code, set.stderr).toBe(0);
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The output as a terminal gets it, decoded as UTF-8 (the C1 and bidi controls are characters there). */
const asText = (bytes: string) => Buffer.from(bytes, 'latin1').toString('utf8');

it.each([200, 500])(
  'the answer of a receiver answering %i is shown, its control characters as escapes',
  async (answer) => {
    status = answer;
    const sent = await runCliAsync(['callbacks', 'test', userId]);
    expect(sent.code, sent.stderr).toBe(answer === 200 ? 0 : 1);
    const output = asText(sent.stdout + sent.stderr);
    expect(output).toContain(`${url} answered ${answer}`);
    expect(output).not.toMatch(CONTROL);
    // No raw ESC byte, and none of the 8-bit controls as bytes either.
    expect(sent.stdout + sent.stderr).not.toMatch(/[\u001b\u0007\u000d\u0008]/);
    expect(output).toContain('\\u001b[2J\\u001b[H\\u001b]0;owned\\u0007\\u001b[32mall checks passed');
    expect(output).toContain('\\u000d\\u0008\\u009b31m\\u202edetrats');
  },
);

it('--json keeps the answer exactly: JSON escapes it, and the guard keeps its meaning', async () => {
  status = 200;
  const sent = await runCliAsync(['callbacks', 'test', userId, '--json']);
  expect(sent.code, sent.stderr).toBe(0);
  const text = asText(sent.stdout);
  expect(text).not.toMatch(CONTROL);
  expect(JSON.parse(text).answer).toBe(HOSTILE);
});
