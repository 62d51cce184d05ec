// The dashboard's decision keys (#56) over real HTTPS on a real SQLite file: the card in the
// overview's Integrations group says the keys need a callback URL when the account has none and
// refuses them then (nothing saved); with one it saves the keys (the text `account set --keys`
// takes), says what a call offers, and a bad value is its one line in the card, nothing saved. The
// history row shows a decision, and the callback card lists the call.decision delivery with its label.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { request } from '../helpers/https-client.js';
import { sessionByLink } from '../helpers/sign-in.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;

beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t?.stop();
});

const signIn = (userId: string) => sessionByLink(t, t.service.stores.ownerAuth, userId);

const overview = (cookie: string) => request(`${t.baseUrl}/`, { method: 'GET', ca: t.ca, headers: { cookie } });

async function postKeys(cookie: string, keys: string) {
  const csrf = /name="_csrf" value="([^"]+)"/.exec((await overview(cookie)).text)![1]!;
  return request(`${t.baseUrl}/dashboard/decision-keys`, {
    method: 'POST',
    ca: t.ca,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, keys }).toString(),
  });
}

describe('the dashboard: decision keys', () => {
  it('without a callback URL: the card says keys need one, and refuses them (nothing saved)', async () => {
    const a = await createAccount(t.service.stores.accounts, { plan: 'premium' });
    const cookie = await signIn(a.userId);
    const page = (await overview(cookie)).text;
    expect(page).toContain('id="decision-keys-title">Decision keys</h3>');
    expect(page).toContain('Decision keys need a status callback URL, where the decision is sent');
    expect(page).toMatch(/id="decision-keys-effect">none: a call offers no decision\./);

    const refused = await postKeys(cookie, '7=buy,8=skip');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('decision keys need a status callback URL');
    expect(refused.text).toMatch(/id="decision-keys" name="keys" maxlength="200" value="7=buy,8=skip"/);
    expect((await t.service.stores.accounts.get(a.userId))!.decisionKeys).toBe('');
    // Off never needs one.
    expect((await postKeys(cookie, 'off')).status).toBe(303);
  });

  it('with a callback URL: saved and said; a bad value is one line in the card, nothing saved', async () => {
    const a = await createAccount(t.service.stores.accounts, { plan: 'premium' });
    await t.service.stores.callbacks.configure(a.userId, {
      url: 'https://bot.example.com/ringhook',
      secret: 'whsec_a',
    });
    const cookie = await signIn(a.userId);
    expect((await overview(cookie)).text).not.toContain('id="decision-keys-need-url"');

    const saved = await postKeys(cookie, '7 = buy, 8=skip');
    expect(saved.status).toBe(303);
    expect((await t.service.stores.accounts.get(a.userId))!.decisionKeys).toBe('7=buy,8=skip');
    const page = (await overview(cookie)).text;
    expect(page).toContain('after the message the call says &quot;Press 7 for buy, 8 for skip&quot;');
    expect(page).toMatch(/id="decision-keys" name="keys" maxlength="200" value="7=buy,8=skip"/);

    const bad = await postKeys(cookie, '1=buy');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('the decision keys: key 1 is taken (1 confirms): use 3–9 or #');
    expect((await t.service.stores.accounts.get(a.userId))!.decisionKeys).toBe('7=buy,8=skip');

    expect((await postKeys(cookie, '')).status).toBe(303);
    expect((await t.service.stores.accounts.get(a.userId))!.decisionKeys).toBe('');
  });

  it("a decision in the history row, and the call.decision delivery in the callback card's list", async () => {
    const a = await createAccount(t.service.stores.accounts, { plan: 'premium' });
    const stores = t.service.stores;
    await stores.callbacks.configure(a.userId, { url: 'https://bot.example.com/ringhook', secret: 'whsec_a' });
    await stores.accounts.update(a.userId, { decisionKeys: '7=buy,8=skip' });
    const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, 'BTC broke 100k');
    const callId = res.json.call_id as string;
    // The call's steps as the call desk writes them (the script's wiring is the desk's).
    await stores.progress.transition(callId, 'dialing', { phone: a.phone, dialedAt: t.clock.now() });
    await stores.progress.transition(callId, 'ringing', { ringingAt: t.clock.now() });
    await stores.progress.transition(callId, 'answered', { answeredAt: t.clock.now() });
    const stepped = await stores.progress.step({
      callId,
      to: 'acknowledged',
      fields: { endedAt: t.clock.now() },
      decision: { key: '7', label: 'buy' },
    });
    expect(stepped.moved).toBe(true);
    const cookie = await signIn(a.userId);
    const page = (await overview(cookie)).text;
    expect(page).toMatch(/<code>call\.decision<\/code> buy \(7\)/);
    const history = await request(`${t.baseUrl}/calls`, { method: 'GET', ca: t.ca, headers: { cookie } });
    expect(history.text).toContain(
      '<span class="tag decision" title="The decision key pressed in the call (#56).">decision: buy (7)</span>',
    );
  });
});
