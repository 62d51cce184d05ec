// An alert's unknown fields over real HTTPS: 60 KiB of them are stored as at most 4 KiB, marked
// `_truncated`, and the mark shows in the dashboard's history and in `ringhook calls`.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_EXTRA_BYTES } from '../../src/core/webhook/extra-fields.js';
import { SqliteSessionStore } from '../../src/store/sqlite/sessions.js';
import { startDashboardService, type DashboardService } from '../helpers/browser.js';
import { buildOnce, runCli } from '../helpers/cli.js';
import { request } from '../helpers/https-client.js';

let svc: DashboardService;

beforeAll(async () => {
  buildOnce();
  svc = await startDashboardService();
}, 120_000);

afterAll(async () => {
  await svc?.stop();
});

it('stores at most 4 KiB of extra fields, marks the cut, and shows the mark in the history and the CLI', async () => {
  const a = svc.createAccount({ plan: 'premium' });
  const alert: Record<string, unknown> = { message: 'ES broke out', exchange: 'CME' };
  for (let i = 0; i < 120; i++) alert[`field${i}`] = 'x'.repeat(500);
  const body = JSON.stringify(alert);
  expect(body.length).toBeGreaterThan(60_000);
  const res = await request(`${svc.baseUrl}/webhook/${a.userId}/${a.apiKey}`, {
    body,
    headers: { 'content-type': 'application/json' },
    ca: svc.ca,
  });
  expect(res.status).toBe(200);
  const call = (await svc.stores.calls.get(res.json.call_id))!;
  expect(Buffer.byteLength(JSON.stringify(call.extra))).toBeLessThanOrEqual(MAX_EXTRA_BYTES);
  expect(call.extra.exchange).toBe('CME');
  expect(call.extra._truncated).toBe('113 of 121 extra fields shortened or left out: over 4 KiB in all');

  const token = new SqliteSessionStore(svc.stores.db, svc.clock.now).create(a.userId).token;
  const page = await request(`${svc.baseUrl}/calls`, {
    method: 'GET',
    headers: { cookie: `__Host-ringhook_session=${token}` },
    ca: svc.ca,
  });
  expect(page.status).toBe(200);
  expect(page.text).toContain('_truncated');
  expect(page.text).toContain('113 of 121 extra fields shortened or left out');
  expect(page.text.length).toBeLessThan(30_000);

  const cli = runCli(['calls', '--account', a.userId], { RINGHOOK_DATA_DIR: svc.config.dataDir });
  expect(cli.code).toBe(0);
  expect(cli.stdout).toContain('_truncated=113 of 121 extra fields shortened or left out');
});
