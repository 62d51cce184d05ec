// The whole chain through SMPP: webhook → declined call at SIPp → submit_sm at an independent SMSC
// (Perl Net::SMPP) → delivery receipt matched back to the call's history.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { freeUdpPort } from '../helpers/ports.js';
import { managedTelephonyEnv, realClock, startTestService, type TestService } from '../helpers/service.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';
import { startSmsc, type Smsc } from '../helpers/smpp-server.js';
import { createAccount } from '../helpers/accounts.js';

let t: TestService;
let smsc: Smsc;
let trunkPort: number;

beforeAll(async () => {
  await provisionAsterisk();
  smsc = await startSmsc({ receiptDelayS: 0 });
  trunkPort = await freeUdpPort();
  t = await startTestService(
    {
      ...(await managedTelephonyEnv(trunkPort)),
      RINGHOOK_SMS_GATEWAY: 'smpp',
      RINGHOOK_SMPP_URL: smsc.url(),
      RINGHOOK_SMS_FROM: 'ringhook',
    },
    realClock(),
  );
}, 300_000);

afterAll(async () => {
  await stopAllSipp();
  await t?.stop();
  await smsc?.stop();
});

it('a declined call is followed within a second by one SMS, and its delivery receipt reaches the history', async () => {
  const phone = await startSipp({ scenario: 'decline', port: trunkPort });
  const a = await createAccount(t.service.stores.accounts, { smsBackup: true });
  const mark = smsc.events().length;
  const message = 'EURUSD 1.0842 ↑ crossed the 200 SMA';
  const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, message, { 'content-type': 'text/plain' });
  expect(res.status).toBe(200);
  const received = await smsc.waitForEvent((e) => e.event === 'message', { from: mark, timeoutMs: 15_000 });
  await phone.stop();
  expect(received).toMatchObject({ text: `Missed call alert: ${message}`, data_coding: 8 });

  expect(t.callRow(res.json.call_id).status).toBe('rejected');
  const final = await t.waitForCall(res.json.call_id, (r) => r.sms_status === 'delivered', 10_000);
  expect(final.sms_message_id).toBeTruthy();
  // Handed to the SMSC within a second of the call's final state.
  expect(final.sms_at - final.ended_at).toBeLessThan(5_000);
  expect(
    smsc
      .events()
      .slice(mark)
      .filter((e) => e.event === 'message'),
  ).toHaveLength(1);
  expect(t.takeErrorLogs()).toEqual([]);
}, 60_000);
