// Status callbacks end to end: the real service (HTTPS webhook, SQLite file) sends its call events
// to real HTTPS receivers that check every signature with the `standardwebhooks` package. Retries,
// 410, the SSRF rule on a name resolving to 127.0.0.1, a restart in the middle of the retries, a
// rotation's two signatures, and the dashboard's note over real HTTPS.
import { afterEach, describe, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import { setCallbackUrl, rotateCallbackSecret } from '../../src/callbacks/index.js';
import { createAccount } from '../helpers/accounts.js';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { request } from '../helpers/https-client.js';
import { sessionByLink } from '../helpers/sign-in.js';
import { makeDataDir, realClock, sqliteDb, startTestService, type TestService } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

const ALLOW_LOOPBACK = { RINGHOOK_CALLBACK_ALLOW: '127.0.0.1/32' };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(): Promise<CallbackReceiver> {
  const r = await startCallbackReceiver();
  cleanups.push(() => r.close());
  return r;
}

async function service(r: CallbackReceiver, env: Record<string, string> = ALLOW_LOOPBACK): Promise<TestService> {
  const t = await startTestService(env, realClock(), { callbackCa: r.ca });
  cleanups.push(() => t.stop());
  return t;
}

async function accountWithCallback(t: TestService, r: CallbackReceiver, url = r.url): Promise<Account> {
  const account = await createAccount(t.service.stores.accounts, { requireConfirm: false });
  const { secret } = await setCallbackUrl(t.service.stores.callbacks, account.userId, url);
  expect(secret).toMatch(/^whsec_/);
  r.secrets.push(secret!);
  return account;
}

async function alert(t: TestService, a: Account, message = 'AAPL crossed 190'): Promise<string> {
  const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, JSON.stringify({ message }), {
    'content-type': 'application/json',
  });
  expect(res.status, res.text).toBe(200);
  return res.json.call_id as string;
}

const outbox = (t: TestService) =>
  sqliteDb(t.service.stores).prepare('SELECT * FROM callback_outbox ORDER BY id').all() as Array<Record<string, any>>;

/** Signs in with a login link over HTTPS and returns the session cookie. */
const signIn = (t: TestService, userId: string) => sessionByLink(t, t.service.stores.ownerAuth, userId);

describe('status callbacks', () => {
  it('a receiver that answers 500 then 200 gets the event again after a backoff, signed, delivered once', async () => {
    const r = await receiver();
    r.answers.push(500);
    const t = await service(r);
    const a = await accountWithCallback(t, r);
    const callId = await alert(t, a);

    await waitFor('the retried delivery', () => (r.delivered().length === 1 ? true : undefined), 15_000);
    const [first, second] = r.received;
    expect(r.received).toHaveLength(2);
    expect(first).toMatchObject({ answered: 500, type: 'call.queued', verifiedBy: [0] });
    expect(second).toMatchObject({ answered: 200, type: 'call.queued', verifiedBy: [0], id: first!.id });
    expect(second!.data).toMatchObject({ call_id: callId, user_id: a.userId, kind: 'alert' });
    // The first retry waits 2.5 to 5 s (5 s backoff, jitter between half and all of it).
    const waited = second!.at - first!.at;
    expect(waited).toBeGreaterThanOrEqual(2_400);
    expect(waited).toBeLessThan(8_000);
    console.log(`retry after ${waited} ms`);
    await waitFor('the outbox row settled', () => (outbox(t)[0]?.status === 'delivered' ? true : undefined));
    expect(outbox(t)[0]).toMatchObject({ type: 'call.queued', attempts: 2, last_http_status: 200, call_id: callId });
    // Nothing more is sent for it.
    await new Promise((done) => setTimeout(done, 1_500));
    expect(r.received).toHaveLength(2);
    expect(t.takeErrorLogs()).toEqual([]);
  }, 30_000);

  it('a receiver that answers 410 turns the callback off, and the dashboard says so', async () => {
    const r = await receiver();
    r.answers.push(410);
    const t = await service(r);
    const a = await accountWithCallback(t, r);
    await alert(t, a);
    await waitFor('the 410', () => (r.received.length === 1 ? true : undefined), 10_000);
    const settings = await waitFor('callbacks off', async () => {
      const s = await t.service.stores.callbacks.settings(a.userId);
      return s?.url === null ? s : undefined;
    });
    expect(settings.offNote).toContain('410');
    expect(outbox(t)[0]).toMatchObject({ status: 'gone', last_http_status: 410 });

    // The next alert sends nothing.
    await alert(t, a, 'second alert');
    await new Promise((done) => setTimeout(done, 2_000));
    expect(r.received).toHaveLength(1);

    const cookie = await signIn(t, a.userId);
    const overview = await request(`${t.baseUrl}/`, { method: 'GET', ca: t.ca, headers: { cookie } });
    expect(overview.status).toBe(200);
    expect(overview.text).toMatch(/id="callback-off-note"[^>]*>Callbacks were turned off on [^<]*410 Gone/);
    expect(overview.text).toContain('Status callbacks are <span id="callback-state">off</span>');
    expect(overview.text).toMatch(/data-status="gone"/);
    expect(t.takeErrorLogs()).toEqual([]);
  }, 30_000);

  it('the dashboard sets the URL (the secret shown once), refuses a bad one in one line, and turns callbacks off', async () => {
    const r = await receiver();
    const t = await service(r);
    const a = await createAccount(t.service.stores.accounts, { requireConfirm: false });
    const cookie = await signIn(t, a.userId);
    const post = async (url: string) => {
      const overview = await request(`${t.baseUrl}/`, { method: 'GET', ca: t.ca, headers: { cookie } });
      const csrf = /name="_csrf" value="([^"]+)"/.exec(overview.text)![1]!;
      return request(`${t.baseUrl}/dashboard/callback-url`, {
        method: 'POST',
        ca: t.ca,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ _csrf: csrf, url }).toString(),
      });
    };
    const bad = await post('http://example.com/hook');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('The form was not valid: the callback URL must start with https://. Nothing was saved');
    // Shown in the callbacks card of the overview, with what was typed.
    expect(bad.text).toContain('id="callback-error"');
    expect(bad.text).toMatch(/id="callback-url" name="url" value="http:\/\/example\.com\/hook"/);
    expect(await t.service.stores.callbacks.settings(a.userId)).toBeUndefined();

    const saved = await post(r.url);
    expect(saved.status).toBe(200);
    const secret = /id="callback-secret" readonly value="(whsec_[^"]+)"/.exec(saved.text)?.[1];
    expect(secret).toBeDefined();
    r.secrets.push(secret!);
    const overview = await request(`${t.baseUrl}/`, { method: 'GET', ca: t.ca, headers: { cookie } });
    expect(overview.text).toContain(`<code id="callback-url-now">${r.url}</code>`);
    expect(overview.text).not.toContain(secret);
    await alert(t, a);
    await waitFor('delivered with the secret the page showed', () => (r.delivered().length === 1 ? true : undefined));

    const off = await post('');
    expect(off.status).toBe(303);
    expect((await t.service.stores.callbacks.settings(a.userId))!.url).toBeNull();
    await alert(t, a, 'after off');
    await new Promise((done) => setTimeout(done, 1_500));
    expect(r.received).toHaveLength(1);
    expect(t.takeErrorLogs()).toEqual([]);
  }, 30_000);

  it('refuses a callback URL whose name resolves to 127.0.0.1 without RINGHOOK_CALLBACK_ALLOW', async () => {
    const r = await receiver();
    const t = await service(r, {});
    const a = await accountWithCallback(t, r, `https://localhost:${r.port}/ringhook-events`);
    await alert(t, a);
    const row = await waitFor('a refused try', () => {
      const [first] = outbox(t);
      return first && first.attempts > 0 ? first : undefined;
    });
    expect(row.status).toBe('pending');
    expect(row.last_error).toMatch(/^localhost resolves to (127\.0\.0\.1|::1) is a loopback address/);
    expect(row.last_http_status).toBeNull();
    expect(r.received).toEqual([]);
  }, 30_000);

  it('keeps the outbox across a restart in the middle of the retries, and sends it after', async () => {
    const r = await receiver();
    r.answers.push(503);
    const dataDir = makeDataDir();
    const env = { ...ALLOW_LOOPBACK, RINGHOOK_DATA_DIR: dataDir };
    const first = await startTestService(env, realClock(), { callbackCa: r.ca });
    let a: Account;
    try {
      a = await accountWithCallback(first, r);
      await alert(first, a);
      await waitFor('the failed first try', () => (outbox(first)[0]?.attempts === 1 ? true : undefined), 10_000);
      expect(outbox(first)[0]).toMatchObject({ status: 'pending', last_http_status: 503 });
    } finally {
      await first.stop();
    }
    expect(r.received).toHaveLength(1);

    const second = await service(r, env);
    await waitFor('delivered after the restart', () => (r.delivered().length === 1 ? true : undefined), 15_000);
    expect(r.received).toHaveLength(2);
    expect(r.received[1]!.id).toBe(r.received[0]!.id);
    await waitFor('settled', () => (outbox(second)[0]?.status === 'delivered' ? true : undefined));
    expect(outbox(second)[0]).toMatchObject({ attempts: 2, last_http_status: 200 });
  }, 40_000);

  it('signs with both secrets while a rotation overlaps', async () => {
    const r = await receiver();
    const t = await service(r);
    const a = await accountWithCallback(t, r);
    const rotated = await rotateCallbackSecret(t.service.stores.callbacks, a.userId, Date.now());
    r.secrets.push(rotated!.secret);
    await alert(t, a);
    await waitFor('delivered', () => (r.delivered().length === 1 ? true : undefined), 10_000);
    const [got] = r.received;
    expect(got!.signature.split(' ')).toHaveLength(2);
    expect(got!.verifiedBy).toEqual([0, 1]);
    // A receiver that kept only the old secret, or took only the new one, verifies alike.
    r.secrets.splice(0, 1);
    await alert(t, a, 'another');
    await waitFor('second delivered', () => (r.delivered().length === 2 ? true : undefined), 10_000);
    expect(r.received[1]!.verifiedBy).toEqual([0]);
  }, 30_000);
});
