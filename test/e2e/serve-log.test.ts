// A log that tells (#38): a real `ringhook serve` with its managed Asterisk, a SIPp phone at the trunk
// and a real Kannel, read as an operator reads `journalctl -u ringhook` or `docker logs`: one JSON
// line per alert accepted or refused, per call at its end, per SMS; never the api_key, the phone
// number or the alert's text at info; RINGHOOK_LOG_LEVEL quiets it (warn) or adds the text (debug).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { buildOnce, runCli } from '../helpers/cli.js';
import { request } from '../helpers/https-client.js';
import { type KannelPeer, startKannel } from '../helpers/kannel.js';
import { freeTcpPort, freeUdpPort } from '../helpers/ports.js';
import { type ServeChild, startServeChild } from '../helpers/serve-child.js';
import { makeDataDir, managedTelephonyEnv } from '../helpers/service.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';

type Line = Record<string, unknown> & { level: string; msg: string };

let env: Record<string, string>;
let kannel: KannelPeer;
let serve: ServeChild | null = null;
let baseUrl: string;
let trunkPort: number;
let dataDir: string;

async function startServe(extra: Record<string, string> = {}): Promise<void> {
  serve = await startServeChild({ env: { ...env, ...extra } });
}

async function stopServe(): Promise<void> {
  await serve?.stop();
}

/** serve's output so far (the last serve's, once it has stopped). */
const output = (): string => serve?.output() ?? '';

/** serve's JSON log lines so far (the start's plain-text hints are not JSON). */
function lines(): Line[] {
  return output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
}

async function waitForLine(match: (l: Line) => boolean, what: string, timeoutMs = 30_000): Promise<Line> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = lines().find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no log line ${what}:\n${output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ca = () => fs.readFileSync(path.join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8');

function post(account: { user_id: string; api_key: string }, body: string, contentType = 'text/plain') {
  return request(`${baseUrl}/webhook/${account.user_id}/${account.api_key}`, {
    method: 'POST',
    body,
    headers: { 'content-type': contentType },
    ca: ca(),
  });
}

function createAccount(...args: string[]): { user_id: string; api_key: string } {
  const r = runCli(['account', 'create', '--phone', '+14155550123', '--json', ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return r.json;
}

/** A text no log line at info may carry. */
const secretText = () => `UNIQUE-ALERT-TEXT-${randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  await provisionAsterisk();
  buildOnce();
  kannel = await startKannel();
  dataDir = makeDataDir('rh-serve-log-');
  trunkPort = await freeUdpPort();
  const port = await freeTcpPort();
  env = {
    ...(await managedTelephonyEnv(trunkPort)),
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(port),
    RINGHOOK_RING_TIMEOUT: '5',
    RINGHOOK_SMS_GATEWAY: 'http',
    RINGHOOK_SMS_HTTP_PRESET: 'kannel',
    RINGHOOK_SMS_HTTP_URL: kannel.sendsmsUrl(),
    RINGHOOK_SMS_FROM: 'ringhook',
  };
  baseUrl = `https://127.0.0.1:${port}`;
  await startServe();
}, 300_000);

afterAll(async () => {
  await stopAllSipp();
  await stopServe();
  await kannel?.stop();
});

afterEach(async () => {
  await stopAllSipp();
});

describe("serve's log at info", () => {
  const seen: string[] = [];

  it('one line per alert accepted: call_id, user_id, 200; its call at its end: outcome, duration, trunk', async () => {
    const account = createAccount('--plan', 'premium');
    seen.push(account.api_key);
    const phone = await startSipp({ scenario: 'dtmf-1', port: trunkPort, mediaPort: await freeUdpPort() });
    const text = secretText();
    seen.push(text);
    const reply = await post(account, text);
    expect(reply.status).toBe(200);
    const callId = reply.json.call_id as string;

    const accepted = await waitForLine((l) => l.msg === 'alert accepted' && l.call_id === callId, 'alert accepted');
    expect(accepted).toMatchObject({ level: 'info', user_id: account.user_id, status: 200 });
    const ended = await waitForLine((l) => l.msg === 'call ended' && l.call_id === callId, 'call ended');
    expect(ended).toMatchObject({
      level: 'info',
      user_id: account.user_id,
      outcome: 'acknowledged',
      reason: null,
      trunk: 'trunk',
    });
    expect(ended.duration_ms).toBeGreaterThan(0);
    expect(ended.talk_ms).toBeGreaterThan(0);
    await phone.stop();
  }, 60_000);

  it('a missed call: its outcome and reason, then its SMS backup sent', async () => {
    const account = createAccount('--plan', 'premium', '--sms-backup', 'on');
    seen.push(account.api_key);
    await startSipp({ scenario: 'busy', port: trunkPort });
    const text = secretText();
    seen.push(text);
    const reply = await post(account, text);
    expect(reply.status).toBe(200);
    const callId = reply.json.call_id as string;

    const ended = await waitForLine((l) => l.msg === 'call ended' && l.call_id === callId, 'call ended');
    expect(ended).toMatchObject({ level: 'info', outcome: 'busy', trunk: 'trunk' });
    expect(String(ended.reason)).toMatch(/busy/i);
    expect(ended.reason_detail).toMatch(/486/);
    const sms = await waitForLine((l) => l.msg === 'SMS sent' && l.call_id === callId, 'SMS sent');
    expect(sms).toMatchObject({ level: 'info', user_id: account.user_id, parts: 1 });
    // Kannel did get it, with the text the log never showed.
    const got = await kannel.waitForMessages(1);
    expect(got.some((m) => m.text.includes(text))).toBe(true);
  }, 60_000);

  it('one line per alert refused: status and reason (bad payload, plan limit); wrong URLs counted', async () => {
    const account = createAccount('--plan', 'free');
    seen.push(account.api_key);
    await startSipp({ scenario: 'busy', port: trunkPort });
    const bad = await post(account, '{"message": 12}', 'application/json');
    expect(bad.status).toBe(400);
    const refused = await waitForLine(
      (l) => l.msg === 'alert refused' && l.user_id === account.user_id && l.status === 400,
      'alert refused 400',
    );
    expect(refused).toMatchObject({ level: 'info', result: 'invalid_payload' });
    expect(String(refused.reason)).toMatch(/message/);

    const text = secretText();
    seen.push(text);
    expect((await post(account, text)).status).toBe(200);
    expect((await post(account, text)).status).toBe(429);
    const limited = await waitForLine(
      (l) => l.msg === 'alert refused' && l.user_id === account.user_id && l.status === 429,
      'alert refused 429',
    );
    expect(limited).toMatchObject({ level: 'info', result: 'rate_limited' });
    expect(String(limited.reason)).toMatch(/1 call a minute/);

    const wrong = { user_id: account.user_id, api_key: `rk_${'x'.repeat(40)}` };
    expect((await post(wrong, 'anything')).status).toBe(401);
    expect((await post(wrong, 'anything')).status).toBe(401);
    const credentials = lines().filter((l) => l.msg === 'alert refused: wrong webhook URL');
    // The first at once; the rest are counted into one line a minute.
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ status: 401, user_id: account.user_id, cap: 'unauthorized' });
  }, 60_000);

  it('never carries an api_key, a phone number or an alert text', () => {
    expect(seen.length).toBeGreaterThan(4);
    const info = output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .filter((l) => ['info', 'warn', 'error'].includes((JSON.parse(l) as Line).level));
    expect(info.length).toBeGreaterThan(5);
    for (const secret of [...seen, '+14155550123', 'rk_']) expect(info.filter((l) => l.includes(secret))).toEqual([]);
  });
});

describe('RINGHOOK_LOG_LEVEL', () => {
  it('warn quiets the alert and call lines; debug adds the alert text on a line of its own', async () => {
    const account = createAccount('--plan', 'premium');
    await stopServe();
    await startServe({ RINGHOOK_LOG_LEVEL: 'warn' });
    await startSipp({ scenario: 'busy', port: trunkPort });
    const reply = await post(account, secretText());
    expect(reply.status).toBe(200);
    // The call's end is recorded (its history says busy), and nothing of it was logged.
    const deadline = Date.now() + 20_000;
    let status = '';
    while (status !== 'busy' && Date.now() < deadline) {
      const history = runCli(['calls', '--account', account.user_id, '--json'], env).json as Array<{
        call_id: string;
        status: string;
      }>;
      status = history.find((c) => c.call_id === reply.json.call_id)?.status ?? '';
      if (status !== 'busy') await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe('busy');
    expect(lines().filter((l) => l.level === 'info' || l.level === 'debug')).toEqual([]);
    await stopAllSipp();

    await stopServe();
    await startServe({ RINGHOOK_LOG_LEVEL: 'debug' });
    const text = secretText();
    const second = await post(account, text);
    expect(second.status).toBe(200);
    const debug = await waitForLine((l) => l.msg === 'alert text', 'alert text');
    expect(debug).toMatchObject({ level: 'debug', call_id: second.json.call_id, message: text });
    const accepted = await waitForLine((l) => l.msg === 'alert accepted', 'alert accepted');
    expect(JSON.stringify(accepted)).not.toContain(text);
  }, 120_000);
});
