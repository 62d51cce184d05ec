// The first hour, told the truth (#38): a real `ringhook serve` (the compiled CLI, its managed
// Asterisk, no SIP trunk, no phone registered) and the CLI run from another folder, as a new user
// following the README: no SMS gateway, then a real Kannel that refuses ringhook's SMS. What each
// screen says must be what happens: the SMS backup switch, a missed call's SMS reason, the monthly
// allowance of calls that never left the server, the dashboard in Chromium at 1280 and 390 px.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { launchChromium, newContext, screenshot, type VIEWPORTS } from '../helpers/browser.js';
import { buildOnce, cacheDirEnv, REPO_ROOT } from '../helpers/cli.js';
import { request } from '../helpers/https-client.js';
import { startKannel, type KannelPeer } from '../helpers/kannel.js';
import { freeTcpPort, freeUdpPort } from '../helpers/ports.js';
import { startServeChild } from '../helpers/serve-child.js';
import { makeDataDir, managedTelephonyEnv } from '../helpers/service.js';

const BIN = path.join(REPO_ROOT, 'bin', 'ringhook.js');
const PASSWORD = 'correct horse battery staple';
/** Where the user types: not the repo, not the data dir. */
const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-truth-cwd-'));

interface Serve {
  env: Record<string, string>;
  baseUrl: string;
  output(): string;
  stop(): Promise<void>;
}

async function startServe(extra: Record<string, string>): Promise<Serve> {
  const port = await freeTcpPort();
  const telephony = await managedTelephonyEnv(await freeUdpPort());
  // No trunk: calls ring the local softphone, and none is registered (a new user's first tries).
  delete (telephony as Record<string, string | undefined>).RINGHOOK_TRUNK_URI;
  const env = {
    ...telephony,
    RINGHOOK_DATA_DIR: makeDataDir('rh-truth-'),
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(port),
    RINGHOOK_SOFTPHONE_PASSWORD: 'softphone-secret-1',
    ...extra,
  };
  const serve = await startServeChild({ env: { ...cacheDirEnv(), ...env }, cwd: elsewhere });
  return { env, baseUrl: `https://127.0.0.1:${port}`, output: serve.output, stop: serve.stop };
}

/** The CLI as a user types it, from another folder than serve's. */
function cli(serve: Serve, args: string[], input?: string, extraEnv: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: elsewhere,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...cacheDirEnv(), ...serve.env, ...extraEnv },
    input,
    encoding: 'utf8',
    timeout: 30_000,
  });
  let json: any;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    json = undefined;
  }
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, json };
}

function ca(serve: Serve): string {
  return fs.readFileSync(path.join(serve.env.RINGHOOK_DATA_DIR!, 'tls', 'self-signed-cert.pem'), 'utf8');
}

async function postAlert(serve: Serve, webhookUrl: string, body: string) {
  const url = new URL(webhookUrl);
  return request(`${serve.baseUrl}${url.pathname}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
    ca: ca(serve),
  });
}

async function waitForCall(serve: Serve, callId: string, done: (call: any) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const calls = cli(serve, ['calls', '--json', '--limit', '50']).json as any[];
    const call = calls?.find((c) => c.call_id === callId);
    if (call && done(call)) return call;
    if (Date.now() > deadline)
      throw new Error(`call ${callId}: ${JSON.stringify(call)}\n${serve.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const settled = (call: any) => call.sms_status !== null && !['queued', 'dialing', 'ringing'].includes(call.status);

let browser: Browser;

beforeAll(async () => {
  await provisionAsterisk();
  buildOnce();
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
});

async function signIn(serve: Serve, userId: string, viewport: keyof typeof VIEWPORTS): Promise<Page> {
  const context = await newContext(browser, serve.baseUrl, viewport);
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel('Account ID').fill(userId);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return page;
}

/** Elements of the page whose content is cut or that reach past the viewport: none at any width (run in the page). */
const CUT_ELEMENTS = `(() => {
  const cut = [];
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width) cut.push('the page scrolls sideways (' + document.documentElement.scrollWidth + ' > ' + width + ')');
  for (const el of Array.from(document.querySelectorAll('main *'))) {
    const box = el.getBoundingClientRect();
    if (box.width > 0 && (box.right > width + 1 || box.left < -1) && !el.classList.contains('sr-only'))
      cut.push(el.tagName + '#' + el.id + ' reaches past the viewport (' + Math.round(box.left) + '..' + Math.round(box.right) + ')');
    const style = getComputedStyle(el);
    // A history line cuts its message on purpose: allowed only when its row carries the whole text.
    const row = el.closest('li[id^="call-"]');
    const whole = el.matches('summary .message') && row && row.querySelector('.message-full') && row.querySelector('.message-full').textContent === el.textContent;
    if (style.overflowX === 'hidden' && el.scrollWidth > el.clientWidth + 1 && !el.classList.contains('sr-only') && !whole)
      cut.push(el.tagName + '#' + el.id + ' cuts its text (' + el.scrollWidth + ' > ' + el.clientWidth + ')');
  }
  // A closed select shows its chosen option on one line: every option must fit it.
  const canvas = document.createElement('canvas').getContext('2d');
  for (const select of Array.from(document.querySelectorAll('select'))) {
    const style = getComputedStyle(select);
    canvas.font = style.fontWeight + ' ' + style.fontSize + ' ' + style.fontFamily;
    const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
    for (const option of Array.from(select.options)) {
      const text = Math.round(canvas.measureText(option.text).width);
      if (text > room) cut.push('select#' + select.id + ': "' + option.text + '" is cut (' + text + ' > ' + room + ')');
    }
  }
  return cut;
})()`;

async function cutElements(page: Page): Promise<string[]> {
  return (await page.evaluate(CUT_ELEMENTS)) as string[];
}

describe('a new user with no SMS gateway and no phone yet', () => {
  let serve: Serve;
  let account: any;

  beforeAll(async () => {
    serve = await startServe({});
  }, 120_000);
  afterAll(async () => {
    await serve?.stop();
  });

  it('the start-up warning about the self-signed certificate names RINGHOOK_ACME_DOMAIN first', () => {
    const line = serve
      .output()
      .split('\n')
      .find((l) => l.includes('self-signed certificate: charting platforms'));
    expect(line, serve.output()).toBeDefined();
    expect(line!.indexOf('RINGHOOK_ACME_DOMAIN')).toBeGreaterThan(0);
    expect(line!.indexOf('RINGHOOK_ACME_DOMAIN')).toBeLessThan(line!.indexOf('RINGHOOK_TLS_CERT'));
    expect(line).not.toContain('README');
  });

  it('account create --sms-backup on: stored, and a warning on stderr that no SMS will be sent', () => {
    const res = cli(serve, [
      'account',
      'create',
      '--phone',
      '+14155550123',
      '--plan',
      'premium',
      '--sms-backup',
      'on',
      '--json',
    ]);
    expect(res.code, res.stderr).toBe(0);
    account = res.json;
    expect(account.sms_backup).toBe(true);
    expect(account.sms_gateway).toBe('none');
    expect(account.sms_backup_note).toMatch(
      /^on, but this server has no SMS gateway \(RINGHOOK_SMS_GATEWAY=none\), so no SMS will be sent/,
    );
    expect(res.stderr).toContain(
      'ringhook: warning: SMS backup is on for this account, but this server has no SMS gateway (RINGHOOK_SMS_GATEWAY=none), so no SMS will be sent when a call is missed',
    );
    const shown = cli(serve, ['account', 'show', account.user_id]);
    expect(shown.stdout).toMatch(/sms_gateway:\s+none/);
    expect(shown.stdout).toMatch(/sms_backup_note:\s+on, but this server has no SMS gateway/);
    const off = cli(serve, ['account', 'set', account.user_id, '--sms-backup', 'off']);
    expect(off.code).toBe(0);
    expect(off.stderr).not.toContain('warning');
    const on = cli(serve, ['account', 'set', account.user_id, '--sms-backup', 'on']);
    expect(on.code).toBe(0);
    expect(on.stderr).toContain('warning: SMS backup is on for this account, but this server has no SMS gateway');
    expect(cli(serve, ['account', 'list']).stdout).toContain('on (no SMS here)');
    expect(cli(serve, ['account', 'set', account.user_id, '--password'], `${PASSWORD}\n`).code).toBe(0);
  });

  it('first tries do not spend the allowance: calls that never left this server give it back', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await postAlert(serve, account.webhook_url, JSON.stringify({ message: `try ${i}` }));
      expect(res.status, res.text).toBe(200);
      ids.push(res.json.call_id);
    }
    for (const id of ids) {
      const call = await waitForCall(serve, id, settled);
      expect(call.status).toBe('unreachable');
      expect(call.error).toMatch(
        /^No phone is registered as ringhook, so nothing could ring: register a softphone app/,
      );
      expect(call.error).not.toMatch(/README/);
      // Why no SMS went, in the history: this server has no gateway.
      expect(call.sms_status).toBe('disabled');
      expect(call.sms_reason).toBe('No SMS was sent: this server has no SMS gateway.');
    }
    expect(cli(serve, ['account', 'show', account.user_id, '--json']).json.calls_this_month).toBe(0);

    // The free plan too: its 3 a month are not spent by calls that rang nothing.
    const free = cli(serve, ['account', 'create', '--phone', '+14155550124', '--plan', 'free', '--json']).json;
    const res = await postAlert(serve, free.webhook_url, JSON.stringify({ message: 'free try' }));
    expect(res.status).toBe(200);
    const call = await waitForCall(serve, res.json.call_id, settled);
    expect(call.sms_reason).toBe('No SMS was sent: SMS backup is off for this account.');
    expect(cli(serve, ['account', 'show', free.user_id, '--json']).json.calls_this_month).toBe(0);
  }, 90_000);

  it('--help has colour only on a terminal; a usage error points at the command own help', () => {
    const help = cli(serve, ['account', 'create', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--phone');
    expect(help.stdout).not.toContain('\u001b[');
    const missing = cli(serve, ['account', 'create']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('ringhook: Missing required argument: --phone (see ringhook account create --help)\n');
  });

  it('/favicon.ico is an icon', async () => {
    const res = await request(`${serve.baseUrl}/favicon.ico`, { method: 'GET', ca: ca(serve) });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-icon');
  });

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`the overview promises nothing the server cannot do (${viewport})`, async () => {
      const page = await signIn(serve, account.user_id, viewport);
      const main = await page.locator('main').innerText();
      expect(await page.locator('#sms-warning').innerText()).toBe(
        'This server has no SMS gateway, so no SMS will be sent when a call is missed. Ask your administrator to set one up.',
      );
      expect(main).not.toContain('the message is sent by SMS');
      expect(main).not.toContain('SMS backup goes out');
      // No caller ID is set: nothing to save, and no "save this number".
      expect(await page.locator('#contact-none').innerText()).toMatch(/no caller ID is set/);
      expect(main).not.toMatch(/save this number/i);
      expect(main).not.toContain('rings within');
      await screenshot(page, 'truth-overview');
      expect(await cutElements(page)).toEqual([]);
      await page.context().close();
    }, 60_000);
  }

  it('the test call banner follows the call, and rejected alerts appear live', async () => {
    const page = await signIn(serve, account.user_id, 'phone');
    await page.goto('/calls');
    await page.waitForSelector('html[data-live="connected"]');
    await page.getByRole('button', { name: 'Send test call' }).click();
    const notice = page.locator('#call-notice');
    await expect
      .poll(() => notice.innerText(), { timeout: 15_000 })
      .toMatch(/^The test call ended: Unreachable\. No phone is registered as ringhook/);
    expect(await page.locator('main').innerText()).not.toContain('should ring');
    await page.waitForSelector('html[data-live="connected"]');
    await page.evaluate('window.notReloaded = true');
    const refused = await postAlert(serve, account.webhook_url, JSON.stringify({ message: 42 }));
    expect(refused.status).toBe(400);
    await page.locator('#calls > li[data-status="invalid_payload"]').first().waitFor({ timeout: 5_000 });
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    await screenshot(page, 'truth-history');
    expect(await cutElements(page)).toEqual([]);
    await page.context().close();
  }, 60_000);
});

describe('a server whose SMS gateway (a real Kannel) refuses its SMS', () => {
  let kannel: KannelPeer;
  let serve: Serve;

  beforeAll(async () => {
    kannel = await startKannel();
    serve = await startServe({
      RINGHOOK_SMS_GATEWAY: 'http',
      RINGHOOK_SMS_HTTP_PRESET: 'kannel',
      RINGHOOK_SMS_FROM: '+15551234567',
      // The wrong password: Kannel refuses every SMS.
      RINGHOOK_SMS_HTTP_URL: kannel.sendsmsUrl(kannel.username, 'not-the-password'),
    });
  }, 120_000);
  afterAll(async () => {
    await serve?.stop();
    await kannel?.stop();
  });

  it('the missed call says the gateway refused; the switch then says the gateway is failing, in the CLI and the dashboard', async () => {
    const created = cli(serve, [
      'account',
      'create',
      '--phone',
      '+14155550125',
      '--plan',
      'premium',
      '--sms-backup',
      'on',
      '--json',
    ]);
    expect(created.code).toBe(0);
    // Nothing known of the gateway yet: no warning.
    expect(created.json.sms_gateway).toBe('untried');
    expect(created.stderr).not.toContain('warning');
    const res = await postAlert(serve, created.json.webhook_url, JSON.stringify({ message: 'BTC crossed 64000' }));
    expect(res.status).toBe(200);
    const call = await waitForCall(serve, res.json.call_id, (c) => settled(c) && c.sms_status !== 'sending', 30_000);
    expect(call.sms_status, kannel.logs()).toBe('failed');
    expect(call.sms_reason).toMatch(/^Not sent: the SMS gateway refused it or could not be reached\.$/);
    // The gateway's own words are kept for the admin (sms_error), not in the owner's sentence.
    expect(call.sms_error).toMatch(/\S/);
    expect(call.sms_reason).not.toContain(call.sms_error);
    expect(kannel.messages()).toHaveLength(0);

    const shown = cli(serve, ['account', 'show', created.json.user_id, '--json']).json;
    expect(shown.sms_gateway).toBe('failing');
    expect(shown.sms_backup_note).toMatch(/^on, but the SMS gateway failed the last SMS it was given \(.+ UTC\): /);
    const set = cli(serve, ['account', 'set', created.json.user_id, '--sms-backup', 'on']);
    expect(set.stderr).toContain(
      'ringhook: warning: SMS backup is on for this account, but the SMS gateway failed the last SMS',
    );

    expect(cli(serve, ['account', 'set', created.json.user_id, '--password'], `${PASSWORD}\n`).code).toBe(0);
    const page = await signIn(serve, created.json.user_id, 'desktop');
    expect(await page.locator('#sms-warning').innerText()).toMatch(
      /^The SMS gateway failed the last SMS it was given \(.+ UTC\), so an SMS may not go out until it works again\. Ask your administrator\.$/,
    );
    await screenshot(page, 'truth-overview-gateway-failing');
    await page.context().close();
  }, 90_000);
});
