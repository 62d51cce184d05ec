// SMS gateway faults through the whole service: an alert whose call is busy (SIPp 486), with the SMSC
// (Perl Net::SMPP) down, then back: at most one SMS per alert, every failure in the history.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { request } from '../helpers/https-client.js';
import { freeUdpPort } from '../helpers/ports.js';
import { managedTelephonyEnv, realClock, startTestService, type TestService, smsSettled } from '../helpers/service.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';
import { startSmsc, type Smsc } from '../helpers/smpp-server.js';
import { createAccount } from '../helpers/accounts.js';

let t: TestService;
let smsc: Smsc;
let smscPort: number;
let trunkPort: number;

beforeAll(async () => {
  await provisionAsterisk();
  smsc = await startSmsc({ receiptDelayS: 0 });
  smscPort = smsc.port;
  const url = smsc.url();
  await smsc.stop(); // the gateway is down when the service starts
  trunkPort = await freeUdpPort();
  t = await startTestService(
    {
      ...(await managedTelephonyEnv(trunkPort)),
      RINGHOOK_SMS_GATEWAY: 'smpp',
      RINGHOOK_SMPP_URL: url,
      RINGHOOK_SMS_FROM: 'ringhook',
      RINGHOOK_SMS_RETRY_DELAY_MS: '10',
    },
    realClock(),
  );
}, 300_000);

afterAll(async () => {
  await stopAllSipp();
  await t?.stop();
  await smsc?.stop();
});

const row = (callId: string) => t.callRow(callId);

const waitSms = (callId: string, timeoutMs = 30_000) => t.waitForCall(callId, (r) => smsSettled(r) && r.sms_status !== 'pending', timeoutMs);

it('gateway down: the busy call records the SMS failure; gateway back: the next busy call gets exactly one SMS', async () => {
  const a = await createAccount(t.service.stores.accounts, { smsBackup: true });
  // /healthz checks the gateway for real: down is reported, but the service stays healthy (200).
  const healthDown = await request(`${t.baseUrl}/healthz`, { method: 'GET', ca: t.ca });
  expect(healthDown.status).toBe(200);
  expect(healthDown.json).toMatchObject({ ok: true, checks: { sms: 'down', ari: 'ok', asterisk: 'ok' }, down: ['sms'] });
  const phone = await startSipp({ scenario: 'busy', port: trunkPort, calls: 2, timeoutSec: 60 });
  const first = await t.post(`/webhook/${a.userId}/${a.apiKey}`, 'alert while the SMS gateway is down');
  expect(first.status).toBe(200);
  const failed = await waitSms(first.json.call_id);
  expect(failed.status).toBe('busy');
  expect(failed.sms_status).toBe('failed');
  expect(failed.sms_error).toBeTruthy();

  smsc = await startSmsc({ receiptDelayS: 0, port: smscPort });
  const second = await t.post(`/webhook/${a.userId}/${a.apiKey}`, 'alert once the gateway is back');
  expect(second.status).toBe(200);
  await smsc.waitForEvent((e) => e.event === 'message', { timeoutMs: 20_000 });
  const sent = await waitSms(second.json.call_id);
  expect(['sent', 'delivered']).toContain(sent.sms_status);
  const healthUp = await request(`${t.baseUrl}/healthz`, { method: 'GET', ca: t.ca });
  expect(healthUp.json).toMatchObject({ ok: true, checks: { sms: 'ok' } });
  expect(healthUp.json.down).toBeUndefined();
  await phone.stop();
  // Give a duplicate every chance to show up, then count: one SMS, for the second alert only.
  await new Promise((r) => setTimeout(r, 1_000));
  const messages = smsc.events().filter((e) => e.event === 'message');
  expect(messages.map((m) => m.text)).toEqual(['Missed call alert: alert once the gateway is back']);
  // The first alert's SMS is not sent late either (at most one SMS per alert, failures final).
  expect(row(first.json.call_id).sms_status).toBe('failed');
  console.log(
    'figures: sms gateway down',
    JSON.stringify({
      first: { status: failed.status, sms: failed.sms_status, error: failed.sms_error },
      second: { status: sent.status, sms: sent.sms_status },
      smsc_messages: messages.length,
    }),
  );
  t.takeErrorLogs();
}, 90_000);
