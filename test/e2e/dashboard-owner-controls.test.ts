// The owner's "Duplicates and sources" card (#41) in a real browser: Debian's Chromium against the
// real ringhook app over HTTPS with a SQLite file; what the card sets is then tried on the real webhook.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Account } from '../../src/core/account.js';
import { SqliteOwnerAuthStore } from '../../src/store/sqlite/owner-auth.js';
import { request } from '../helpers/https-client.js';
import {
  launchChromium,
  newContext,
  screenshot,
  startDashboardService,
  type DashboardService,
} from '../helpers/browser.js';
import { addSession } from '../helpers/sign-in.js';

const PASSWORD = 'correct horse battery staple';

let svc: DashboardService;
let browser: Browser;
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];

async function open(service: DashboardService): Promise<Page> {
  const context = await newContext(browser, service.baseUrl, 'phone');
  contexts.push(context);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return page;
}

/** ACCOUNT's overview. The session comes from the sign-in form posted over HTTPS (test/helpers/sign-in.ts): no test here is about signing in. */
async function signedIn(service: DashboardService, account: Account): Promise<Page> {
  await new SqliteOwnerAuthStore(service.stores.db, service.clock.now).setPassword(account.userId, PASSWORD);
  const page = await open(service);
  await addSession(page.context(), service, account.userId, PASSWORD);
  await page.goto('/');
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return page;
}

const alert = (service: DashboardService, account: Account, body: string) =>
  request(`${service.baseUrl}/webhook/${account.userId}/${account.apiKey}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
    ca: service.ca,
  });

async function save(page: Page, dedupe: string, sources: string): Promise<void> {
  await page.getByLabel('Duplicate window (seconds)').fill(dedupe);
  await page.getByLabel('Allowed sources').fill(sources);
  await page.getByRole('button', { name: 'Save duplicates and sources' }).click();
}

beforeAll(async () => {
  svc = await startDashboardService();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
  expect(svc.errorLogs()).toEqual([]);
  svc.logs.length = 0;
  expect(pageErrors.splice(0)).toEqual([]);
});

describe('duplicates and sources card', () => {
  it('sets a duplicate window: the second identical alert is answered "duplicate": true with the first call_id', async () => {
    const owner = svc.createAccount({ plan: 'premium', name: 'Dedupe Owner' });
    const page = await signedIn(svc, owner);
    expect(await page.locator('#dedupe-effect').innerText()).toBe('Off: every alert rings, identical or not.');
    await save(page, '60', 'any');
    await page.getByText('Saved: your duplicate window and allowed sources.').waitFor();
    expect(svc.stores.accounts.get(owner.userId)).toMatchObject({ dedupeSeconds: 60, webhookSources: 'any' });
    expect(await page.locator('#dedupe-effect').innerText()).toMatch(
      /^Two identical alerts within 60 s ring once: the second is answered with the first alert's call_id/,
    );
    await screenshot(page, 'overview-owner-controls');
    const body = JSON.stringify({ message: 'BTCUSD crossed 100000', ticker: 'BTCUSD' });
    const first = await alert(svc, owner, body);
    expect(first.status).toBe(200);
    expect(first.json.duplicate).toBeUndefined();
    const second = await alert(svc, owner, body);
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ duplicate: true, call_id: first.json.call_id });
  });

  it('sets the sources to TradingView: a webhook from 127.0.0.1 is refused 403', async () => {
    const owner = svc.createAccount({ plan: 'premium', name: 'Door Owner' });
    const before = await alert(svc, owner, JSON.stringify({ message: 'open door' }));
    expect(before.status).toBe(200);
    const page = await signedIn(svc, owner);
    expect(await page.locator('#sources-effect').innerText()).toMatch(/^Any address may send alerts/);
    await save(page, 'off', 'TradingView');
    await page.getByText('Saved: your duplicate window and allowed sources.').waitFor();
    expect(svc.stores.accounts.get(owner.userId)!.webhookSources).toBe('tradingview');
    expect(await page.locator('#sources-effect').innerText()).toBe(
      "Only TradingView's four addresses may send alerts: others get 403.",
    );
    const refused = await alert(svc, owner, JSON.stringify({ message: 'closed door' }));
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('source_not_allowed');
    expect(refused.json.error).toMatch(/TradingView's webhook addresses, as set for this account/);
  });

  it('a bad window or source shows its error in its card, what was typed kept, the other cards as saved, and changes nothing', async () => {
    const owner = svc.createAccount({ plan: 'premium', name: 'Bad Input Owner' });
    svc.stores.accounts.update(owner.userId, { quietHours: 'daily 22:00-07:00', timeZone: 'Asia/Tokyo' });
    const page = await signedIn(svc, owner);
    await save(page, '30', '203.0.113.0/24');
    await page.getByText('Saved: your duplicate window and allowed sources.').waitFor();
    for (const [dedupe, sources, error] of [
      [
        '90000',
        'any',
        /The form was not valid: the duplicate window must be "off" or a number of seconds from 0 to 86400/,
      ],
      ['soon', 'any', /the duplicate window must be "off"/],
      ['10', '203.0.113.300', /The form was not valid: the allowed sources: /],
      ['10', 'tradingview, 198.51.100.7', /"tradingview" stands alone/],
    ] as const) {
      await page.goto('/');
      // Another card's field typed into and not saved: the refused form's page shows it as saved.
      await page.getByLabel('Windows').fill('typed elsewhere, not posted');
      await save(page, dedupe, sources);
      await page.locator('#controls-error').waitFor();
      expect(await page.locator('#controls-error').innerText()).toMatch(error);
      expect(await page.getByRole('heading', { name: 'Overview' }).count()).toBe(1);
      expect(await page.getByLabel('Duplicate window (seconds)').inputValue()).toBe(dedupe);
      expect(await page.getByLabel('Allowed sources').inputValue()).toBe(sources);
      expect(await page.getByLabel('Windows').inputValue()).toBe('daily 22:00-07:00');
      expect(await page.getByLabel('Time zone').inputValue()).toBe('Asia/Tokyo');
      // The error is in the card of the form that was sent, and the page says nothing was saved.
      expect(await page.locator('#protection #controls-error').count()).toBe(1);
      expect(await page.locator('main .notice.error[role="alert"]').first().innerText()).toMatch(/Nothing was saved/);
      expect(await page.locator('#dedupe-effect').innerText()).toMatch(/30 s/);
      if (dedupe === '90000') await screenshot(page, 'overview-form-error');
      expect(svc.stores.accounts.get(owner.userId)).toMatchObject({
        dedupeSeconds: 30,
        webhookSources: '203.0.113.0/24',
      });
    }
    await page.goto('/');
    expect(await page.locator('#sources-effect').innerText()).toBe(
      'Only the addresses 203.0.113.0/24 may send alerts: others get 403.',
    );
  });
});

describe('with RINGHOOK_WEBHOOK_SOURCES set', () => {
  let restricted: DashboardService | undefined;
  afterAll(async () => {
    await restricted?.stop();
  });

  it("the card says the server's rule applies whatever the owner sets, and the webhook does as it says", async () => {
    restricted = await startDashboardService({ webhookSources: 'tradingview' });
    const owner = restricted.createAccount({ plan: 'premium', name: 'Server Door Owner' });
    const page = await signedIn(restricted, owner);
    expect(await page.locator('#sources-effect').innerText()).toBe(
      "This server accepts alerts only from TradingView's four addresses (RINGHOOK_WEBHOOK_SOURCES): others get 403, whatever is set here.",
    );
    const refused = await alert(restricted, owner, JSON.stringify({ message: 'server door' }));
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('source_not_allowed');
    expect(refused.json.error).toMatch(/as set for the server \(RINGHOOK_WEBHOOK_SOURCES\)/);
    expect(restricted.errorLogs()).toEqual([]);
  });
});
