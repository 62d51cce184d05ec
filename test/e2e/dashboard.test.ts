// The owner's dashboard in a real browser: Debian's Chromium (playwright-core) against the real
// ringhook app over HTTPS with a SQLite file. Screenshots go to test-results/screenshots/.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Account } from '../../src/core/account.js';
import { SqliteOwnerAuthStore } from '../../src/store/sqlite/owner-auth.js';
import { LOGIN_LINK_TTL_MS } from '../../src/core/records.js';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import { request } from '../helpers/https-client.js';
import {
  launchChromium,
  newContext,
  screenshot,
  startDashboardService,
  VIEWPORTS,
  type DashboardService,
} from '../helpers/browser.js';
import { addSession } from '../helpers/sign-in.js';
import { reasonText } from '../../src/core/reasons.js';

const PASSWORD = 'correct horse battery staple';
const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';

let svc: DashboardService;
let browser: Browser;
let auth: SqliteOwnerAuthStore;
let owner: Account;
let other: Account;
const contexts: BrowserContext[] = [];
let ownerTab: Page | undefined;

/** A context of its own for this test, closed after it. */
async function context(viewport: 'phone' | 'desktop' = 'desktop'): Promise<BrowserContext> {
  const made = await newContext(browser, svc.baseUrl, viewport);
  contexts.push(made);
  return made;
}

/** A page of its own for this test, signed out: for the tests of signing in. */
async function open(viewport: 'phone' | 'desktop' = 'desktop'): Promise<Page> {
  return watch(await (await context(viewport)).newPage());
}

/** A page of its own on the overview with a session of ACCOUNT's (its sign-in is not what the test is about). */
async function openSignedIn(account: Account, viewport: 'phone' | 'desktop' = 'desktop'): Promise<Page> {
  const made = await context(viewport);
  await addSession(made, svc, account.userId, PASSWORD);
  const page = watch(await made.newPage());
  await page.goto('/');
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return page;
}

/**
 * The owner's page on the overview, at VIEWPORT: one page with one session for the file's tests that need
 * the owner signed in and are not about signing in (a new page and a sign-in cost ~2 s of CPU each).
 */
async function ownerPage(viewport: 'phone' | 'desktop' = 'desktop'): Promise<Page> {
  if (!ownerTab) {
    const made = await newContext(browser, svc.baseUrl, viewport);
    await addSession(made, svc, owner.userId, PASSWORD);
    ownerTab = watch(await made.newPage());
  }
  await ownerTab.setViewportSize(VIEWPORTS[viewport]);
  await ownerTab.goto('/');
  await ownerTab.getByRole('heading', { name: 'Overview' }).waitFor();
  return ownerTab;
}

function watch(page: Page): Page {
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });
  page.on('pageerror', (error) => cspViolations.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return page;
}
const dialogs: string[] = [];
const cspViolations: string[] = [];

async function signIn(page: Page, userId: string, password = PASSWORD): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Account ID').fill(userId);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Posts the sign-in form the page shows, once the answer's page has replaced this one. */
async function retry(page: Page, userId: string, password: string): Promise<void> {
  await page.getByLabel('Account ID').fill(userId);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForEvent('framenavigated'), page.getByRole('button', { name: 'Sign in' }).click()]);
}

async function withPassword(account: Account): Promise<Account> {
  await auth.setPassword(account.userId, PASSWORD);
  return account;
}

const hook = (a: Pick<Account, 'userId' | 'apiKey'>) => `${svc.baseUrl}/webhook/${a.userId}/${a.apiKey}`;
/** The webhook URL as shown (public URL) pointed at the test server. */
const local = (shown: string) => svc.baseUrl + new URL(shown).pathname;
const postAlert = (url: string, body: string, type = 'application/json') =>
  request(url, { method: 'POST', body, headers: { 'content-type': type }, ca: svc.ca });

beforeAll(async () => {
  svc = await startDashboardService();
  browser = await launchChromium();
  auth = new SqliteOwnerAuthStore(svc.stores.db, svc.clock.now);
  owner = await withPassword(svc.createAccount({ plan: 'premium', name: 'Ada Trader', phone: '+14155550123' }));
  other = await withPassword(svc.createAccount({ plan: 'free', name: 'Other Owner', phone: '+442071234567' }));
});

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
  const errors = svc.errorLogs();
  svc.logs.length = 0;
  expect(errors).toEqual([]);
  expect(dialogs).toEqual([]);
  expect(cspViolations.splice(0)).toEqual([]);
});

describe('sign-in', () => {
  /** The sign-in page, a password signed in through it, and the overview: both screenshot at VIEWPORT. */
  async function signInWithPassword(viewport: 'phone' | 'desktop'): Promise<Page> {
    const page = await open(viewport);
    const login = await page.goto('/');
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(login!.headers()['content-security-policy']).toContain("script-src 'self'");
    await screenshot(page, 'login');
    await signIn(page, owner.userId);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await screenshot(page, 'overview');
    return page;
  }

  it('signs in with a password on a phone', async () => {
    await signInWithPassword('phone');
  });

  it('signs in with a password on a desktop; the session cookie is HttpOnly, Secure, SameSite and the pages carry strict headers', async () => {
    const page = await signInWithPassword('desktop');
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === '__Host-ringhook_session')!;
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
    // Only a hash of the token is stored.
    const stored = svc.stores.db.prepare('SELECT token_hash FROM sessions').all() as { token_hash: string }[];
    expect(stored.map((s) => s.token_hash)).not.toContain(session.value);
    const res = await page.request.get('/');
    const headers = res.headers();
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['content-security-policy']).toMatch(/default-src 'none'.*script-src 'self'.*frame-ancestors 'none'/);
    expect(headers['cache-control']).toBe('no-store');
  });

  it('signs in with a one-time link: refused the second time and after 15 minutes', async () => {
    const { token } = auth.createLoginLink(owner.userId);
    const link = `/login/link/${token}`;
    const first = await open('phone');
    await first.goto(link);
    await screenshot(first, 'login-link');
    await first.getByRole('button', { name: 'Sign in' }).click();
    await first.getByRole('heading', { name: 'Overview' }).waitFor();

    const second = await open();
    await second.goto(link);
    await second.getByRole('button', { name: 'Sign in' }).click();
    await second.getByRole('heading', { name: 'Link expired or used' }).waitFor();
    await screenshot(second, 'login-link-used');
    expect(new URL(second.url()).pathname).toBe('/login/link');

    const late = auth.createLoginLink(owner.userId);
    svc.clock.advance(LOGIN_LINK_TTL_MS + 1000);
    // The same signed-out page (its link was refused) takes the late link.
    const third = second;
    await third.goto(`/login/link/${late.token}`);
    await third.getByRole('button', { name: 'Sign in' }).click();
    await third.getByRole('heading', { name: 'Link expired or used' }).waitFor();
    await third.goto('/');
    expect(new URL(third.url()).pathname).toBe('/login');
  });

  it('throttles sign-in after 5 wrong passwords, then lets the owner in once the window passed', async () => {
    const victim = await withPassword(svc.createAccount({ name: 'Throttled' }));
    const page = await open();
    await signIn(page, victim.userId, 'wrong password 0');
    await page.getByText('The account ID or the password is wrong.').waitFor();
    // The answer to a wrong password is the form again, filled in: tried again there, as an owner would.
    for (let i = 1; i < 5; i++) {
      await retry(page, victim.userId, `wrong password ${i}`);
      await page.getByText('The account ID or the password is wrong.').waitFor();
    }
    await retry(page, victim.userId, PASSWORD);
    await page.getByText(/Too many failed sign-in attempts/).waitFor();
    await screenshot(page, 'login-throttled');
    expect(new URL(page.url()).pathname).toBe('/login');
    svc.clock.advance(15 * 60_000 + 1000);
    await retry(page, victim.userId, PASSWORD);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('signs out: the cookie is gone and every page sends to the sign-in page', async () => {
    const page = await openSignedIn(owner);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    expect((await page.context().cookies()).find((c) => c.name === '__Host-ringhook_session')).toBeUndefined();
    for (const path of ['/', '/calls', '/dashboard/regenerate', '/admin']) {
      await page.goto(path);
      expect(new URL(page.url()).pathname).toBe('/login');
    }
    expect((await page.request.get('/dashboard/events')).status()).toBe(401);
  });
});

describe('overview', () => {
  it('shows the webhook URL with a working copy button, both alert templates, plan, usage, limit and phone', async () => {
    const page = await ownerPage();
    const url = page.getByLabel(/Webhook URL field/);
    expect(await url.inputValue()).toBe(`${svc.config.publicUrl}/webhook/${owner.userId}/${owner.apiKey}`);
    await page.getByRole('button', { name: 'Copy' }).first().click();
    await page.getByText('Copied to the clipboard.').first().waitFor({ state: 'attached' });
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(await url.inputValue());
    // Keyboard: the first Tab reaches the skip link, which moves focus to the content.
    await page.goto('/');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.id')).toBe('main');
    const json = JSON.parse(await page.getByLabel(/^JSON/).inputValue());
    expect(json).toEqual({
      message: expect.stringContaining('{{ticker}}'),
      ticker: '{{ticker}}',
      price: '{{close}}',
      action: 'buy',
      strategy: expect.any(String),
      timestamp: '{{time}}',
    });
    expect(await page.getByLabel('Plain text').inputValue()).toContain('{{close}}');
    const text = await page.locator('main').innerText();
    expect(text).toContain('between 50 and 100 characters');
    expect(text).toContain('once per bar close');
    expect(text).toContain('Premium');
    expect(text).toContain('10 calls a minute');
    expect(text).toContain('+14155550123');
    expect(text).toMatch(/Resets\s+2026-12-01 00:00:00 UTC/);
  });

  it('turns SMS backup on and off with a form post', async () => {
    const page = await ownerPage('phone');
    await page.getByRole('button', { name: 'Turn SMS backup on' }).click();
    await page.getByText('SMS backup turned on.').waitFor();
    // This server has no SMS gateway: the switch says so, and promises no SMS (#38).
    expect(await page.locator('#sms-warning').innerText()).toMatch(
      /^This server has no SMS gateway, so no SMS will be sent/,
    );
    expect(await page.locator('main').innerText()).not.toContain('the message is sent by SMS');
    expect(svc.stores.accounts.get(owner.userId)!.smsBackup).toBe(true);
    await screenshot(page, 'overview-sms-on');
    await page.getByRole('button', { name: 'Turn SMS backup off' }).click();
    await page.getByText('SMS backup turned off.').waitFor();
    expect(svc.stores.accounts.get(owner.userId)!.smsBackup).toBe(false);
  });

  it('turns confirmation required off and on with a form post', async () => {
    const page = await ownerPage('phone');
    expect(await page.locator('#confirm-state').innerText()).toBe(owner.requireConfirm ? 'on' : 'off');
    await page.getByRole('button', { name: 'Stop requiring a 1' }).click();
    await page.getByText('Confirmation no longer required').waitFor();
    expect(svc.stores.accounts.get(owner.userId)!.requireConfirm).toBe(false);
    await page.getByRole('button', { name: 'Require a 1 to confirm' }).click();
    await page.getByText('Confirmation required: a call counts as heard only when you press 1').waitFor();
    expect(svc.stores.accounts.get(owner.userId)!.requireConfirm).toBe(true);
    await screenshot(page, 'overview-confirm-on');
    const token = await page.locator('input[name="_csrf"]').first().inputValue();
    const bad = await page.request.post('/dashboard/require-confirm', {
      form: { _csrf: token, require_confirm: 'maybe' },
      maxRedirects: 0,
    });
    expect(bad.status()).toBe(400);
    expect(svc.stores.accounts.get(owner.userId)!.requireConfirm).toBe(true);
  });

  it('sets quiet hours with a form post, says what will happen; a bad window or zone is refused and changes nothing', async () => {
    const page = await ownerPage('phone');
    expect(await page.locator('#quiet-effect').innerText()).toBe('none: every alert is called at once');
    await page.getByLabel('Windows').fill('Mon-Fri 22:00-07:00, sat-sun 00:00-09:00');
    await page.getByLabel('Time zone').fill('America/New_York');
    await page.getByLabel('An alert in quiet hours').selectOption('sms');
    await page.getByRole('button', { name: 'Save quiet hours' }).click();
    await page.getByText('Saved: your quiet hours.').waitFor();
    expect(svc.stores.accounts.get(owner.userId)).toMatchObject({
      quietHours: 'mon-fri 22:00-07:00, sat-sun 00:00-09:00',
      timeZone: 'America/New_York',
      quietMode: 'sms',
    });
    // This server has no SMS gateway: sms mode holds, and the card says so.
    expect(await page.locator('#quiet-effect').innerText()).toMatch(
      /^mon-fri 22:00-07:00, sat-sun 00:00-09:00 \(America\/New_York\); alerts in them are held, and called when they end/,
    );
    expect(await page.locator('#quiet-warning').innerText()).toMatch(/^This server cannot send SMS at the moment/);
    await screenshot(page, 'overview-quiet-hours');
    const token = await page.locator('input[name="_csrf"]').first().inputValue();
    for (const form of [
      { quiet_hours: 'weekdays 22:00-07:00', time_zone: 'UTC', quiet_mode: 'hold' },
      { quiet_hours: 'daily 22:00-07:00', time_zone: 'Mars/Olympus', quiet_mode: 'hold' },
      { quiet_hours: 'daily 22:00-07:00', time_zone: 'UTC', quiet_mode: 'silent' },
    ]) {
      const bad = await page.request.post('/dashboard/quiet-hours', {
        form: { _csrf: token, ...form },
        maxRedirects: 0,
      });
      expect(bad.status()).toBe(400);
      // The overview again, the error in the quiet hours card and what was typed kept.
      const body = await bad.text();
      expect(body).toMatch(/id="quiet-error">The form was not valid: /);
      expect(body).toContain(`name="quiet_hours" maxlength="300" value="${form.quiet_hours}"`);
      expect(body).toContain(`name="time_zone" maxlength="64" value="${form.time_zone}"`);
    }
    expect(svc.stores.accounts.get(owner.userId)).toMatchObject({ timeZone: 'America/New_York', quietMode: 'sms' });
    await page.getByLabel('Windows').fill('');
    await page.getByLabel('An alert in quiet hours').selectOption('hold');
    await page.getByRole('button', { name: 'Save quiet hours' }).click();
    await page.getByText('Saved: your quiet hours.').waitFor();
    expect(svc.stores.accounts.get(owner.userId)!.quietHours).toBe('');
  });

  it('chooses the language, voice and intro with a form post; bad choices are refused and change nothing', async () => {
    const page = await ownerPage('phone');
    expect(await page.locator('#voice-language-now').innerText()).toBe('English (English)');
    expect(await page.locator('#voice-intro-now').innerText()).toBe('Alert from ringhook.');
    // The keys during a call, said on the overview as the call says them (in the account's language).
    expect(await page.locator('#keys-list').innerText()).toMatch(
      /1\s+confirms[\s\S]*2 or \*\s+says the message again[\s\S]*0\s+says these keys/,
    );
    expect(await page.locator('#keys-said').innerText()).toContain(LANGUAGES.en.prompts.keys);
    await page.getByLabel('Language of the call').selectOption('de');
    await page.getByLabel('Voice', { exact: true }).selectOption('');
    await page.getByLabel(/Spoken intro/).fill('Kursalarm für Ada.');
    await page.getByRole('button', { name: 'Save language and voice' }).click();
    await page.getByText('Saved: your calls now speak with this language, voice and intro.').waitFor();
    expect(svc.stores.accounts.get(owner.userId)).toMatchObject({
      language: 'de',
      voice: 'espeak-ng',
      intro: 'Kursalarm für Ada.',
    });
    expect(await page.locator('#voice-language-now').innerText()).toBe('German (Deutsch)');
    expect(await page.locator('#keys-said').innerText()).toContain(LANGUAGES.de.prompts.keys);
    await screenshot(page, 'overview-voice');

    const token = await page.locator('input[name="_csrf"]').first().inputValue();
    for (const form of [
      { language: 'klingon', voice: '', intro: '' },
      { language: 'de', voice: 'slt', intro: '' },
      { language: 'en', voice: 'robot', intro: '' },
      { language: 'en', voice: '', intro: 'x'.repeat(61) },
    ]) {
      const bad = await page.request.post('/dashboard/voice', { form: { _csrf: token, ...form }, maxRedirects: 0 });
      expect(bad.status(), JSON.stringify(form)).toBe(400);
      const body = await bad.text();
      expect(body).toMatch(/id="voice-error">The form was not valid: /);
      expect(body).toContain(`name="intro" maxlength="60" value="${form.intro}"`);
    }
    const refused = await page.request.post('/dashboard/voice', {
      form: { _csrf: token, language: 'de', voice: 'slt', intro: '' },
      maxRedirects: 0,
    });
    expect(await refused.text()).toMatch(/does not speak German: offered for de: espeak-ng/);
    const noToken = await page.request.post('/dashboard/voice', {
      form: { language: 'fr', voice: '', intro: '' },
      maxRedirects: 0,
    });
    expect(noToken.status()).toBe(403);
    expect(svc.stores.accounts.get(owner.userId)).toMatchObject({
      language: 'de',
      voice: 'espeak-ng',
      intro: 'Kursalarm für Ada.',
    });

    // Back to English with the Festival voice and the language's own intro.
    await page.getByLabel('Language of the call').selectOption('en');
    await page.getByLabel('Voice', { exact: true }).selectOption('slt-hts');
    await page.getByLabel(/Spoken intro/).fill('');
    await page.getByRole('button', { name: 'Save language and voice' }).click();
    await page.getByText('Saved: your calls now speak').waitFor();
    expect(svc.stores.accounts.get(owner.userId)).toMatchObject({ language: 'en', voice: 'slt-hts', intro: null });
    owner = svc.stores.accounts.update(owner.userId, { voice: 'slt' })!;
  });

  it('"hear it": a WAV of the intro and a sample alert in the account\'s voice, behind the session', async () => {
    const page = await ownerPage();
    const src = await page.locator('audio#voice-sample').getAttribute('src');
    expect(src).toMatch(/^\/dashboard\/voice-sample\.wav/);
    const wavOf = async (res: Awaited<ReturnType<typeof page.request.get>>) => {
      expect(res.status()).toBe(200);
      expect(res.headers()['content-type']).toBe('audio/wav');
      const wav = await res.body();
      expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
      expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
      expect(wav.readUInt32LE(24)).toBe(8000);
      expect(Number(res.headers()['content-length'])).toBe(wav.length);
      return wav;
    };
    const english = await wavOf(await page.request.get(src!));
    // A few seconds of speech: more than a second, far less than the bound.
    expect(english.length).toBeGreaterThan(16_000);
    expect(english.length).toBeLessThan(1024 * 1024);
    svc.stores.accounts.update(owner.userId, { language: 'de', voice: 'espeak-ng', intro: 'Kursalarm.' });
    const german = await wavOf(await page.request.get('/dashboard/voice-sample.wav'));
    expect(german.equals(english)).toBe(false);
    owner = svc.stores.accounts.update(owner.userId, { language: 'en', voice: 'slt', intro: null })!;

    const anonymous = await context();
    const res = await anonymous.request.get('/dashboard/voice-sample.wav', { maxRedirects: 0 });
    expect(res.status()).toBe(401);
    expect(res.headers()['content-type']).not.toBe('audio/wav');
  });

  it('offers the caller id as a contact card to save and let through Do Not Disturb; signed out, no card', async () => {
    const page = await ownerPage();
    expect(await page.locator('#caller-id').innerText()).toBe('+14155550100');
    // What the phones need, in their own settings' names (#54): saved, starred on Android.
    await page.locator('#contact-why summary').click();
    const why = await page.locator('#contact-why').innerText();
    for (const words of ['Do Not Disturb', 'Repeated Calls', 'repeat callers', 'starred', 'favourite'])
      expect(why).toContain(words);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the contact card' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('ringhook-alerts.vcf');
    const card = await page.request.get('/dashboard/contact.vcf');
    expect(card.headers()['content-type']).toBe('text/vcard; charset=utf-8');
    expect(await card.text()).toMatch(
      /^BEGIN:VCARD\r\nVERSION:3\.0\r\nFN:ringhook alerts\r\n[\s\S]*TEL;TYPE=VOICE:\+14155550100\r\n/,
    );
    const anonymous = await context();
    const res = await anonymous.request.get('/dashboard/contact.vcf', { maxRedirects: 0 });
    expect(res.status()).toBe(303);
    expect(res.headers().location).toBe('/login');
  });

  it('regenerates the webhook URL after a confirmation; the old URL answers 401 at once', async () => {
    const page = await ownerPage();
    const oldUrl = await page.getByLabel(/Webhook URL field/).inputValue();
    expect((await postAlert(local(oldUrl), JSON.stringify({ message: 'before regenerating the URL' }))).status).toBe(
      200,
    );
    await page.getByRole('link', { name: /Regenerate webhook URL/ }).click();
    await page.getByText('The current webhook URL stops working at once.').waitFor();
    await screenshot(page, 'regenerate-confirm');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'regenerate-confirm');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('button', { name: 'Yes, regenerate the URL' }).click();
    await page.getByText(/A new webhook URL was made/).waitFor();
    const newUrl = await page.getByLabel(/Webhook URL field/).inputValue();
    expect(newUrl).not.toBe(oldUrl);
    const refused = await postAlert(local(oldUrl), JSON.stringify({ message: 'after regenerating the URL' }));
    expect(refused.status).toBe(401);
    expect((await postAlert(local(newUrl), JSON.stringify({ message: 'to the new URL' }))).status).toBe(200);
    owner = svc.stores.accounts.get(owner.userId)!;
  });
});

describe('call history', () => {
  it('sends a test call and shows it progress live, without reloading the page', async () => {
    const page = await ownerPage();
    await page.goto('/calls');
    await page.getByRole('button', { name: 'Send test call' }).click();
    await page.getByText(/Test call placed/).waitFor();
    const callId = svc.testCalls.at(-1)!;
    const row = page.locator(`[id="call-${callId}"]`);
    await expect.poll(() => row.locator('.badge .label').innerText()).toBe('Queued');
    await page.waitForSelector('html[data-live="connected"]');
    await page.evaluate('window.notReloaded = true');

    svc.setCallStatus(callId, 'dialing');
    await expect.poll(() => row.locator('.badge .label').innerText()).toBe('Dialing');
    svc.setCallStatus(callId, 'ringing');
    await expect.poll(() => row.locator('.badge .label').innerText()).toBe('Ringing');
    svc.setCallStatus(callId, 'answered', { ring_ms: 3200 });
    await expect.poll(() => row.locator('.badge .label').innerText()).toBe('Answered');
    svc.setCallStatus(callId, 'completed', { ring_ms: 3200, talk_ms: 7400 });
    await expect.poll(() => row.locator('.badge .label').innerText()).toBe('Completed');
    expect(await row.locator('summary').innerText()).toMatch(/3\.2 s \/ 7\.4 s/);
    await row.locator('summary').click();
    expect(await row.innerText()).toMatch(/Ring time\s+3\.2 s[\s\S]*Talk time\s+7\.4 s/);

    // A new alert arrives while the page is open: it appears at the top.
    const alert = await postAlert(
      hook(owner),
      JSON.stringify({
        message: 'ES broke 6000',
        ticker: 'ES1!',
        price: 6001.25,
        action: 'sell',
        strategy: 'Breakout',
        timestamp: '2026-11-22T14:05:00Z',
        exchange: 'CME',
      }),
    );
    expect(alert.status).toBe(200);
    const alertRow = page.locator(`[id="call-${alert.json.call_id}"]`);
    await alertRow.waitFor();
    expect(await page.locator('#calls > li').first().getAttribute('id')).toBe(`call-${alert.json.call_id}`);
    svc.setCallStatus(alert.json.call_id, 'no_answer', { ring_ms: 30000, sms_status: 'delivered', sms_parts: 1 });
    await expect.poll(() => alertRow.locator('.badge .label').innerText()).toBe('No answer');
    expect(await alertRow.locator('summary .sms').innerText()).toBe('Delivered');
    await alertRow.locator('summary').click();
    const text = await alertRow.innerText();
    for (const expected of [
      'ES broke 6000',
      'ES1!',
      '6001.25',
      'sell',
      'Breakout',
      '2026-11-22T14:05:00Z',
      'exchange',
      'CME',
      'SMS',
      'delivered',
    ])
      expect(text).toContain(expected);
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    await screenshot(page, 'history');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'history');
  });

  it("renders an attacker's alert message as text: no script runs, no element is made", async () => {
    const res = await postAlert(
      hook(owner),
      JSON.stringify({
        message: XSS,
        ticker: '<b>T</b>',
        strategy: '"><svg onload=alert(3)>',
        '<img src=y onerror=alert(4)>': XSS,
      }),
    );
    expect(res.status).toBe(200);
    const plainText = await postAlert(hook(owner), XSS, 'text/plain');
    expect(plainText.status).toBe(200);
    const page = await ownerPage();
    await page.goto('/calls');
    const row = page.locator(`[id="call-${res.json.call_id}"]`);
    expect(await row.locator('.message').innerText()).toBe(XSS);
    expect(await page.locator(`[id="call-${plainText.json.call_id}"] .message`).innerText()).toBe(XSS);
    await row.locator('summary').click();
    expect(await row.innerText()).toContain('<b>T</b>');
    expect(await page.locator('#calls img, #calls script, #calls svg, #calls b').count()).toBe(0);
    // Live updates insert the row through the same escaping.
    await page.waitForSelector('html[data-live="connected"]');
    const live = await postAlert(hook(owner), XSS, 'text/plain');
    await page.locator(`[id="call-${live.json.call_id}"]`).waitFor();
    expect(await page.locator('#calls img, #calls script, #calls svg').count()).toBe(0);
    await page.waitForTimeout(300);
    expect(dialogs).toEqual([]);
    await screenshot(page, 'history-xss');
  });

  it('filters by status and pages with a cursor, newest first', async () => {
    const pager = await withPassword(svc.createAccount({ plan: 'premium', name: 'Pager' }));
    for (let i = 0; i < 30; i++) {
      svc.clock.advance(7_000);
      const r = await postAlert(hook(pager), JSON.stringify({ message: `alert number ${i}` }));
      expect(r.status).toBe(200);
      if (i % 3 === 0) svc.setCallStatus(r.json.call_id, 'busy');
    }
    const page = await openSignedIn(pager);
    await page.goto('/calls');
    const messages = () => page.locator('#calls .message').allInnerTexts();
    const first = await messages();
    expect(first).toHaveLength(25);
    expect(first[0]).toBe('alert number 29');
    await page.getByRole('link', { name: 'Older' }).click();
    expect(await messages()).toEqual([
      'alert number 4',
      'alert number 3',
      'alert number 2',
      'alert number 1',
      'alert number 0',
    ]);
    await page.getByRole('link', { name: 'Newest' }).click();
    await page.getByLabel('Status').selectOption('busy');
    await page.getByRole('button', { name: 'Filter' }).click();
    const busy = await messages();
    expect(busy).toEqual([27, 24, 21, 18, 15, 12, 9, 6, 3, 0].map((n) => `alert number ${n}`));
    expect(await page.locator('#calls .badge .label').allInnerTexts()).toEqual(Array(10).fill('Busy'));
    await screenshot(page, 'history-filtered');
  });

  it("never shows another account's calls, whatever the URL", async () => {
    const theirs = await postAlert(hook(other), JSON.stringify({ message: "the other owner's secret alert" }));
    expect(theirs.status).toBe(200);
    const page = await ownerPage();
    for (const path of [`/calls?user_id=${other.userId}`, `/calls?account=${other.userId}`]) {
      await page.goto(path);
      expect(await page.locator('main').innerText()).not.toContain('secret alert');
    }
    const row = await page.request.get(`/dashboard/calls/${theirs.json.call_id}/row`);
    expect(row.status()).toBe(404);
    for (const path of ['/admin', `/admin/accounts/${other.userId}`]) {
      const res = await page.goto(path);
      expect(res!.status()).toBe(404);
      expect(await page.locator('main').innerText()).not.toContain('secret alert');
    }
    await screenshot(page, 'not-found');
  });
});

describe('dense layout', () => {
  it("a typical account's overview is under 2,000 px tall at 1280 × 800, in two columns, and nothing is wider than a 390 px phone", async () => {
    const typical = await withPassword(
      svc.createAccount({ plan: 'premium', name: 'Typical Trader', phone: '+14155550177', smsBackup: true }),
    );
    // An alert with a long message, before the account allows TradingView's addresses only.
    const long = await postAlert(
      hook(typical),
      JSON.stringify({ message: `BTCUSD ${'crossed the upper band '.repeat(12)}` }),
    );
    expect(long.status).toBe(200);
    svc.stores.accounts.update(typical.userId, {
      quietHours: 'mon-fri 22:00-07:00, sat-sun 00:00-09:00',
      timeZone: 'Europe/Berlin',
      dedupeSeconds: 60,
      webhookSources: 'tradingview',
    });
    svc.stores.callbacks.configure(typical.userId, {
      url: 'https://hooks.example.com/ringhook-events',
      secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=',
    });
    for (const [i, type] of (['call.queued', 'call.ringing', 'call.answered', 'call.final'] as const).entries()) {
      svc.stores.callbacks.enqueue({
        messageId: `msg_typical_${i}`,
        eventKey: `typical-${i}`,
        userId: typical.userId,
        callId: null,
        type,
        body: '{}',
        createdAt: svc.clock.now() + i,
      });
    }
    const page = await openSignedIn(typical);
    const measure = () =>
      page.evaluate<{ height: number; width: number }>(
        '({ height: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth })',
      );
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/');
    const desktop = await measure();
    console.log(`overview of a typical account at 1280 × 800: ${desktop.height} px tall`);
    await screenshot(page, 'overview-typical');
    expect(desktop.height).toBeLessThan(2000);
    expect(desktop.width).toBeLessThanOrEqual(1280);
    // The URL and the message side by side at the top; delivery on the left, protection and integrations on the right.
    const url = (await page.locator('#webhook-title').boundingBox())!;
    const message = (await page.locator('#templates-title').boundingBox())!;
    expect(Math.abs(message.y - url.y)).toBeLessThan(5);
    expect(message.y).toBeLessThan(200);
    const delivery = (await page.locator('#delivery').boundingBox())!;
    const protection = (await page.locator('#protection').boundingBox())!;
    expect(protection.x).toBeGreaterThan(delivery.x + delivery.width - 1);
    expect(protection.y).toBeLessThan(delivery.y + delivery.height);
    expect(await page.locator('#delivery h2').innerText()).toMatch(/delivery/i);
    expect(await page.locator('#delivery').innerText()).toMatch(
      /Confirmation required[\s\S]*SMS backup[\s\S]*Quiet hours[\s\S]*Language and voice/,
    );
    expect(await page.locator('#integrations').innerText()).toContain('Status callbacks');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/');
    const phone = await measure();
    console.log(`overview at 390 px: ${phone.width} px wide, ${phone.height} px tall`);
    await screenshot(page, 'overview-typical');
    expect(phone.width).toBeLessThanOrEqual(390);
    // The callbacks table scrolls inside its card.
    const table = await page.locator('#callback-deliveries').evaluate((t) => ({
      box: t.parentElement!.getBoundingClientRect().right,
      scrolls: t.parentElement!.scrollWidth > t.parentElement!.clientWidth,
    }));
    expect(table.box).toBeLessThanOrEqual(390);
    expect(table.scrolls).toBe(true);

    // The history with a long message: one line per call on a desktop, nothing wider than the phone.
    await page.goto('/calls');
    expect((await measure()).width).toBeLessThanOrEqual(390);
    await screenshot(page, 'history-typical');
    await page.setViewportSize({ width: 1280, height: 800 });
    const line = (await page.locator(`[id="call-${long.json.call_id}"] summary`).boundingBox())!;
    expect(line.height).toBeLessThan(40);
  });

  it('a history row opens to its details and timeline: detection in words and each key pressed with its time, kept open by live updates', async () => {
    const res = await postAlert(hook(owner), JSON.stringify({ message: 'ETH crossed 3,400: the timeline row' }));
    expect(res.status).toBe(200);
    const callId: string = res.json.call_id;
    const { progress } = svc.stores;
    const step = (ms: number) => svc.clock.advance(ms);
    step(400);
    progress.transition(callId, 'dialing', { phone: owner.phone, dialedAt: svc.clock.now() });
    step(1200);
    progress.transition(callId, 'ringing', { ringingAt: svc.clock.now() });
    step(3200);
    progress.transition(callId, 'answered', { answeredAt: svc.clock.now(), ringMs: 3200 });
    step(5000);
    progress.recordDetection(callId, 'NOTSURE', 'INITIALSILENCE-5000');
    step(2300);
    const pressedAt = svc.clock.now();
    progress.note(callId, 'digit', '2: the message again');
    const page = await ownerPage();
    await page.goto('/calls');
    const row = page.locator(`[id="call-${callId}"]`);
    const timeline = row.locator('ol.timeline');
    expect(await timeline.isVisible()).toBe(false);
    await row.locator('summary').click();
    await timeline.waitFor();
    const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);
    const steps = await timeline.locator('li').allInnerTexts();
    expect(steps).toEqual([
      expect.stringMatching(/Alert received$/),
      expect.stringMatching(/Dialing$/),
      expect.stringMatching(/Ringing$/),
      expect.stringMatching(/Answered$/),
      expect.stringMatching(/Detection: not sure: person or machine: silence at the start \(5 s\)$/),
      `${clock(pressedAt)} Key 2 pressed: the message again`,
    ]);
    expect(await row.innerText()).not.toMatch(/INITIALSILENCE|NOTSURE/);
    // The call ends while the row is open: the live update makes it again, still open, with the end.
    step(4000);
    progress.note(callId, 'digit', '1: acknowledged');
    progress.transition(callId, 'acknowledged', { endedAt: svc.clock.now(), talkMs: 11_600 });
    svc.events.emit({ callId, userId: owner.userId, status: 'acknowledged', at: svc.clock.now() });
    await expect.poll(() => row.locator('.badge .label').innerText()).toBe('Acknowledged');
    expect(await row.locator('details').getAttribute('open')).not.toBeNull();
    expect(await timeline.locator('li').allInnerTexts()).toEqual(
      expect.arrayContaining([
        `${clock(svc.clock.now())} Key 1 pressed: acknowledged`,
        expect.stringMatching(/Acknowledged$/),
      ]),
    );
    expect(await row.locator('summary').innerText()).toMatch(/3\.2 s \/ 11\.6 s/);
    await screenshot(page, 'history-row-open');
    // Every status can be filtered on, the refusals and quiet hours' included.
    const choices = await Promise.all(
      (await page.locator('#status-filter option').all()).map((o) => o.getAttribute('value')),
    );
    expect(choices).toEqual(expect.arrayContaining(['duplicate', 'held', 'source_not_allowed', 'sms_instead']));
  });
});

describe('forms', () => {
  it('refuses a form post without the CSRF token, with a wrong one, or from another origin (403)', async () => {
    const page = await ownerPage();
    const token = await page.locator('input[name="_csrf"]').first().inputValue();
    const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      page.request.post('/dashboard/sms-backup', { form, headers, maxRedirects: 0 });
    expect((await post({ sms_backup: 'on' })).status()).toBe(403);
    expect((await post({ sms_backup: 'on', _csrf: 'x'.repeat(43) })).status()).toBe(403);
    expect((await post({ sms_backup: 'on', _csrf: token }, { origin: 'https://evil.example' })).status()).toBe(403);
    expect((await page.request.post('/dashboard/regenerate', { form: {}, maxRedirects: 0 })).status()).toBe(403);
    expect((await page.request.post('/dashboard/test-call', { form: {}, maxRedirects: 0 })).status()).toBe(403);
    expect(svc.stores.accounts.get(owner.userId)!.smsBackup).toBe(false);
    expect(svc.stores.accounts.get(owner.userId)!.apiKey).toBe(owner.apiKey);
    // The real form passes.
    expect((await post({ sms_backup: 'on', _csrf: token }, { origin: svc.baseUrl })).status()).toBe(303);
    expect((await post({ sms_backup: 'off', _csrf: token })).status()).toBe(303);
    // Sign-in itself needs the token of the sign-in form.
    const fresh = await context();
    const login = await fresh.request.post('/login', {
      form: { user_id: owner.userId, password: PASSWORD },
      maxRedirects: 0,
    });
    expect(login.status()).toBe(403);
  });
});

describe('admin', () => {
  let admin: Account;
  let seen: string;
  // Its reason in words for everyone; what Asterisk reported, for the admin only.
  const reason = reasonText('softphone_not_registered', { softphone: 'ringhook' });
  const detail = 'originate failed: ARI POST /channels/rh-call_x failed: HTTP 500 (Allocation failed)';

  beforeAll(async () => {
    admin = await withPassword(svc.createAccount({ name: 'Operator' }));
    svc.clock.advance(60_000);
    const alert = await postAlert(hook(owner), JSON.stringify({ message: 'seen by the admin' }));
    expect(alert.status).toBe(200);
    seen = alert.json.call_id;
    svc.setCallStatus(seen, 'unreachable', { error: reason, reason_detail: detail });
  });

  it("the owner sees a call's reason in words, not what Asterisk reported", async () => {
    const page = await ownerPage();
    await page.goto('/calls');
    await page.locator(`#call-${seen} summary`).click();
    const ownerView = await page.locator(`#call-${seen}`).innerText();
    expect(ownerView).toContain(reason);
    expect(ownerView).not.toContain('Allocation failed');
  });

  for (const viewport of ['phone', 'desktop'] as const) {
    it(`an admin sees every account read-only (${viewport})`, async () => {
      auth.setAdmin(admin.userId, true);
      const page = await openSignedIn(admin, viewport);
      await page.getByRole('link', { name: 'All accounts' }).click();
      const text = await page.locator('main').innerText();
      expect(text).toContain('Ada Trader');
      expect(text).toContain('Other Owner');
      await screenshot(page, 'admin');
      await page.getByRole('link', { name: 'Ada Trader' }).click();
      await page.locator(`#call-${seen} summary`).click();
      const shown = await page.locator('main').innerText();
      expect(shown).toContain('read-only');
      expect(shown).toContain('seen by the admin');
      expect(shown).toContain(reason);
      expect(shown).toMatch(
        /Details\s+originate failed: ARI POST \/channels\/rh-call_x failed: HTTP 500 \(Allocation failed\)/,
      );
      expect(shown).not.toContain(owner.apiKey);
      expect(await page.locator('main form[method="post"]').count()).toBe(0);
      await screenshot(page, 'admin-account');
    });
  }

  it('the admin flag is needed: the same account without it gets 404', async () => {
    auth.setAdmin(admin.userId, false);
    const page = await openSignedIn(admin);
    expect((await page.goto('/admin'))!.status()).toBe(404);
  });
});

describe('without telephony', () => {
  it('says clearly that test calls are not available', async () => {
    const bare = await startDashboardService({ testCalls: 'none', callerId: null });
    try {
      const account = bare.createAccount({ name: 'No phone line' });
      await new SqliteOwnerAuthStore(bare.stores.db).setPassword(account.userId, PASSWORD);
      const made = await newContext(browser, bare.baseUrl);
      contexts.push(made);
      await addSession(made, bare, account.userId, PASSWORD);
      const page = await made.newPage();
      await page.goto('/');
      await page.getByText(/telephony is not configured/).waitFor();
      expect(await page.getByRole('button', { name: 'Send test call' }).count()).toBe(0);
      await page.getByText(/no caller ID is set/).waitFor();
      expect((await page.request.get('/dashboard/contact.vcf')).status()).toBe(404);
      const token = await page.locator('input[name="_csrf"]').first().inputValue();
      const res = await page.request.post('/dashboard/test-call', { form: { _csrf: token }, maxRedirects: 0 });
      expect(res.headers().location).toBe('/calls?notice=telephony-off');
      await page.goto('/');
      await page
        .getByText('The sample cannot be played: this server places no calls, so it has no speech engine running.')
        .waitFor();
      expect((await page.request.get('/dashboard/voice-sample.wav')).status()).toBe(404);
      expect(bare.errorLogs()).toEqual([]);
    } finally {
      await bare.stop();
    }
  });
});
