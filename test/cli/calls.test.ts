// `ringhook calls` as a real process over a real database, whose calls were taken by a real
// webhook over HTTPS: what the table and --json say of each call is what happened to it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SMS_NOT_SENT } from '../../src/core/reasons.js';
import { startDashboardService, type DashboardService } from '../helpers/browser.js';
import { buildOnce, runCli } from '../helpers/cli.js';
import { request } from '../helpers/https-client.js';

vi.setConfig({ testTimeout: 120_000 });

let svc: DashboardService;

beforeAll(async () => {
  buildOnce();
  svc = await startDashboardService();
}, 120_000);

afterAll(async () => {
  await svc?.stop();
});

async function alert(userId: string, apiKey: string, message: string): Promise<string> {
  const res = await request(`${svc.baseUrl}/webhook/${userId}/${apiKey}`, {
    body: message,
    headers: { 'content-type': 'text/plain' },
    ca: svc.ca,
  });
  expect(res.status).toBe(200);
  return res.json.call_id;
}

const calls = (...args: string[]) => runCli(['calls', ...args], { RINGHOOK_DATA_DIR: svc.config.dataDir });

describe('ringhook calls', () => {
  it('the SMS column names why no SMS went: no gateway, not "disabled" beside a backup switched on', async () => {
    const a = svc.createAccount({ plan: 'premium', smsBackup: true });
    const callId = await alert(a.userId, a.apiKey, 'ES broke out');
    svc.setCallStatus(callId, 'unconfirmed', { sms_status: 'disabled', sms_error: SMS_NOT_SENT.noGateway });
    const table = calls('--account', a.userId);
    expect(table.code).toBe(0);
    const row = table.stdout.split('\n').find((line) => line.includes(callId)) ?? '';
    expect(row).toContain('not sent: no SMS gateway');
    expect(row).not.toContain('disabled');
    expect(calls('--account', a.userId, '--json').json[0].sms_reason).toBe(
      'No SMS was sent: this server has no SMS gateway.',
    );
  });

  it('--json says until when an alert was held for quiet hours (held_until), also after its release', async () => {
    const a = svc.createAccount({ plan: 'premium' });
    const callId = await alert(a.userId, a.apiKey, 'NQ held');
    const until = Date.parse('2026-11-22T20:00:00Z');
    svc.setCallStatus(callId, 'held', { held_until: until });
    expect(calls('--account', a.userId, '--json').json[0]).toMatchObject({
      status: 'held',
      held_until: '2026-11-22T20:00:00.000Z',
    });
    svc.setCallStatus(callId, 'completed');
    expect(calls('--account', a.userId, '--json').json[0].held_until).toBe('2026-11-22T20:00:00.000Z');
    const never = await alert(a.userId, a.apiKey, 'NQ not held');
    expect(
      calls('--account', a.userId, '--json').json.find((c: { call_id: string }) => c.call_id === never),
    ).toHaveProperty('held_until', null);
  });
});
