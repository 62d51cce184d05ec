// SMS gateway faults through the whole service, beyond "down" (faults-sms.test.ts): an alert whose
// call is busy (SIPp 486) with the SMS backup on, and the SMSC (Perl Net::SMPP, restarted on the
// same port with each fault) rejecting the submit, dropping the connection mid-submit, answering
// after RINGHOOK_SMS_TIMEOUT_MS, and answering slowly but in time. In every case: at most one
// submit and one message at the SMSC per alert, the outcome recorded, nothing re-sent once the
// gateway may have taken the message.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { freeUdpPort } from '../helpers/ports.js';
import { managedTelephonyEnv, realClock, startTestService, type TestService, smsSettled } from '../helpers/service.js';
import { startSipp, stopAllSipp, type SippPhone } from '../helpers/sipp.js';
import { startSmsc, type Smsc, type SmscOptions } from '../helpers/smpp-server.js';
import { createAccount } from '../helpers/accounts.js';

const SMS_TIMEOUT_MS = 1_500;
let t: TestService;
let smsc: Smsc | undefined;
let smscPort: number;
let trunkPort: number;
let phone: SippPhone;
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  await provisionAsterisk();
  const probe = await startSmsc({ receiptDelayS: 0 });
  smscPort = probe.port;
  const url = probe.url();
  await probe.stop();
  trunkPort = await freeUdpPort();
  t = await startTestService(
    {
      ...(await managedTelephonyEnv(trunkPort)),
      RINGHOOK_SMS_GATEWAY: 'smpp',
      RINGHOOK_SMPP_URL: url,
      RINGHOOK_SMS_FROM: 'ringhook',
      RINGHOOK_SMS_TIMEOUT_MS: String(SMS_TIMEOUT_MS),
      RINGHOOK_SMS_RETRY_DELAY_MS: '10',
    },
    realClock(),
  );
  phone = await startSipp({ scenario: 'busy', port: trunkPort, calls: 4, timeoutSec: 90 });
}, 300_000);

afterAll(async () => {
  await stopAllSipp();
  await t?.stop();
  await smsc?.stop();
  console.log('figures: sms gateway faults', JSON.stringify(figures));
});

const row = (callId: string) => t.callRow(callId);

const waitSms = (callId: string, timeoutMs = 30_000) =>
  t.waitForCall(callId, (r) => smsSettled(r) && r.sms_status !== 'pending', timeoutMs);

/** One busy alert against an SMSC started with `options`; returns its row and the SMSC's counts. */
async function busyAlertWith(name: string, options: SmscOptions, settleMs: number) {
  await smsc?.stop();
  smsc = await startSmsc({ receiptDelayS: 0, port: smscPort, ...options });
  const a = await createAccount(t.service.stores.accounts, { smsBackup: true });
  const text = `alert with the SMS gateway ${name}`;
  const started = Date.now();
  const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, text);
  expect(res.status, res.text).toBe(200);
  const r = await waitSms(res.json.call_id);
  const smsMs = Date.now() - started;
  // Give a re-send every chance to show up (the link rebinds by itself), then count.
  await new Promise((res) => setTimeout(res, settleMs));
  const events = smsc.events();
  const submits = events.filter((e) => e.event === 'submit_sm').length;
  const messages = events.filter((e) => e.event === 'message').map((e) => e.text);
  const binds = events.filter((e) => e.event === 'bind').length;
  expect(r.status).toBe('busy');
  expect(submits, JSON.stringify(events)).toBeLessThanOrEqual(1);
  expect(messages.length).toBeLessThanOrEqual(1);
  for (const m of messages) expect(m).toBe(`Missed call alert: ${text}`);
  const final = row(res.json.call_id);
  // A failure is final (never sent late); a sent SMS may only go on to its delivery receipt.
  if (r.sms_status === 'failed') expect(final.sms_status).toBe('failed');
  else expect(['sent', 'delivered']).toContain(final.sms_status);
  figures[name] = {
    sms: r.sms_status,
    final_sms: final.sms_status,
    error: r.sms_error,
    submits,
    messages: messages.length,
    binds,
    alert_to_sms_ms: smsMs,
  };
  return { row: r, submits, messages };
}

it('rejecting (submit_sm_resp 0x45): failed with the SMPP status, one submit, not retried', async () => {
  const { row: r, submits, messages } = await busyAlertWith('rejecting', { rejectStatus: 0x45 }, 2_000);
  expect(r.sms_status).toBe('failed');
  expect(r.sms_error).toMatch(/refused/);
  expect(submits).toBe(1);
  expect(messages).toEqual([]);
}, 60_000);

it('connection dropped mid-submit: failed ("may have accepted it"), the SMSC saw it once, not re-sent after the rebind', async () => {
  const { row: r, submits, messages } = await busyAlertWith('dropped mid-submit', { dropOnSubmit: true }, 3_000);
  expect(r.sms_status).toBe('failed');
  expect(r.sms_error).toMatch(/may have accepted/);
  expect(submits).toBe(1);
  expect(messages.length).toBe(1);
  // The link did reconnect (a re-send would have been seen on the new session).
  expect(smsc!.events().filter((e) => e.event === 'bind').length).toBeGreaterThanOrEqual(2);
}, 60_000);

it('slow gateway (answer after the timeout): failed, the SMSC took it once, not re-sent', async () => {
  const {
    row: r,
    submits,
    messages,
  } = await busyAlertWith('slow past the timeout', { submitDelayS: (SMS_TIMEOUT_MS + 1_500) / 1000 }, 3_000);
  expect(r.sms_status).toBe('failed');
  expect(r.sms_error).toMatch(/within 1500 ms.*may have accepted/);
  expect(submits).toBe(1);
  expect(messages.length).toBe(1);
}, 60_000);

it('slow gateway answering in time: sent, one message', async () => {
  const { row: r, submits, messages } = await busyAlertWith('slow in time', { submitDelayS: 0.5 }, 1_000);
  expect(['sent', 'delivered']).toContain(r.sms_status);
  expect(submits).toBe(1);
  expect(messages.length).toBe(1);
  await phone.stop();
  t.takeErrorLogs();
}, 60_000);
