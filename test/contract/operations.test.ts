// /healthz and /metrics over real HTTPS, and the metrics token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/https-client.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { createAccount } from '../helpers/accounts.js';

let t: TestService;
const TOKEN = 'metrics-token-0123456789';

beforeAll(async () => {
  t = await startTestService({ RINGHOOK_METRICS_TOKEN: TOKEN });
});

afterAll(async () => {
  await t.stop();
});

describe('operations', () => {
  it('/healthz says the process and database are up and telephony is off', async () => {
    const res = await request(`${t.baseUrl}/healthz`, { method: 'GET', ca: t.ca });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, checks: { process: 'ok', database: 'ok', telephony: 'off' } });
  });

  it('/metrics wants the bearer token, then counts alerts by result and times the webhook', async () => {
    const a = await createAccount(t.service.stores.accounts);
    await t.post(`/webhook/${a.userId}/${a.apiKey}`, 'one', { 'content-type': 'text/plain' });
    await t.post(`/webhook/${a.userId}/${a.apiKey}`, '', { 'content-type': 'text/plain' });
    await t.post(`/webhook/${a.userId}/wrong`, 'x', { 'content-type': 'text/plain' });

    expect((await request(`${t.baseUrl}/metrics`, { method: 'GET', ca: t.ca })).status).toBe(401);
    expect((await request(`${t.baseUrl}/metrics`, { method: 'GET', ca: t.ca, headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
    const res = await request(`${t.baseUrl}/metrics`, { method: 'GET', ca: t.ca, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('ringhook_alerts_total{result="accepted"} 1');
    expect(res.text).toContain('ringhook_alerts_total{result="invalid_payload"} 1');
    expect(res.text).toContain('ringhook_alerts_total{result="unauthorized"} 1');
    expect(res.text).toMatch(/ringhook_webhook_duration_seconds_count 3/);
    expect(res.text).toContain('ringhook_active_calls 0');
  });
});
