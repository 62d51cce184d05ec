// The dashboard with real telephony: an owner presses "Send test call" in Chromium, the managed
// Asterisk rings a SIPp phone that answers and presses 1, and the row goes from queued to
// acknowledged on the open page, live.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { SqliteOwnerAuthStore } from '../../src/store/sqlite/owner-auth.js';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { launchChromium, newContext, screenshot } from '../helpers/browser.js';
import { freeUdpPort, freeUdpPortPair } from '../helpers/ports.js';
import { managedTelephonyEnv, realClock, sqliteDb, startTestService, type TestService } from '../helpers/service.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';
import { createAccount } from '../helpers/accounts.js';
import { buildOnce, runCli } from '../helpers/cli.js';

const PASSWORD = 'correct horse battery staple';
let t: TestService;
let browser: Browser;
let trunkPort: number;

beforeAll(async () => {
  await provisionAsterisk();
  buildOnce();
  trunkPort = await freeUdpPort();
  t = await startTestService(await managedTelephonyEnv(trunkPort), realClock());
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await stopAllSipp();
  await browser?.close();
  await t?.stop();
});

it('Send test call rings the phone and the history row progresses live to acknowledged', async () => {
  const phone = await startSipp({ scenario: 'dtmf-1', port: trunkPort, mediaPort: await freeUdpPortPair() });
  const owner = await createAccount(t.service.stores.accounts, { plan: 'free', name: 'Live Owner' });
  await new SqliteOwnerAuthStore(sqliteDb(t.service.stores)).setPassword(owner.userId, PASSWORD);

  const context = await newContext(browser, t.baseUrl, 'phone');
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel('Account ID').fill(owner.userId);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.goto('/calls');
  await page.getByRole('button', { name: 'Send test call' }).click();
  // The button is a form (it works without JavaScript): the page comes back with the notice, then
  // follows the call live.
  await page.getByText(/Test call placed/).waitFor();
  await page.evaluate('window.notReloaded = true');
  const row = page.locator('#calls > li').first();
  const seen = new Set<string>();
  const deadline = Date.now() + 20_000;
  for (;;) {
    const label = await row.locator('.badge .label').innerText();
    seen.add(label);
    if (label === 'Acknowledged' || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  await phone.stop();
  expect([...seen], JSON.stringify([...seen])).toContain('Acknowledged');
  // Progress was shown on the way, without a reload.
  expect([...seen].some((l) => ['Dialing', 'Ringing', 'Answered'].includes(l))).toBe(true);
  expect(await page.evaluate('window.notReloaded')).toBe(true);
  // The row opens to its details and timeline.
  await row.locator('summary').click();
  expect(await row.innerText()).toMatch(/Talk time/);
  // The key the phone pressed, with its time and what it did: on the row live, and after a reload.
  const keyLine = /Keys pressed\s+1 at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC: acknowledged/;
  const timelineKey = /\d\d:\d\d:\d\d Key 1 pressed: acknowledged/;
  await row.locator('ol.keys').waitFor({ timeout: 5_000 });
  expect(await row.innerText()).toMatch(keyLine);
  expect(await row.locator('ol.timeline').innerText()).toMatch(timelineKey);
  await page.reload();
  const reloaded = page.locator('#calls > li').first();
  await reloaded.locator('summary').click();
  expect(await reloaded.innerText()).toMatch(keyLine);
  expect(await reloaded.locator('ol.timeline').innerText()).toMatch(timelineKey);
  await screenshot(page, 'history-live-test-call');
  await context.close();
  expect(t.takeErrorLogs()).toEqual([]);
  expect((await t.service.stores.calls.usage(owner.userId)).used).toBe(0);
  // `ringhook calls --json`, a real process on the same database: the same key, its time and deed.
  const [listed] = runCli(['calls', '--account', owner.userId, '--json'], { RINGHOOK_DATA_DIR: t.dataDir }).json;
  expect(listed.keys).toEqual([{ key: '1', at: expect.stringMatching(/^\d{4}-.*Z$/), did: 'acknowledged' }]);
  expect(Date.parse(listed.keys[0].at)).toBeGreaterThanOrEqual(Date.parse(listed.answered_at));
}, 90_000);
