// Status callbacks from real calls: the managed Asterisk 22 dials a SIPp phone, a real Kannel
// sends the SMS backup, and a real HTTPS receiver checks each callback with `standardwebhooks`.
// The receiver fails the first event once: the call's later events wait behind it (in order per call).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import { setCallbackUrl } from '../../src/callbacks/index.js';
import { createAccount } from '../helpers/accounts.js';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { startCallingService, type CallingService } from '../helpers/calling-service.js';
import { freeUdpPort } from '../helpers/ports.js';
import { startRtpSink } from '../helpers/rtp-sink.js';
import { callEnded, smsSettled } from '../helpers/service.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';
import { waitFor } from '../helpers/wait.js';

let calling: CallingService;
let r: CallbackReceiver;

beforeAll(async () => {
  r = await startCallbackReceiver();
  calling = await startCallingService({ RINGHOOK_CALLBACK_ALLOW: '127.0.0.1/32' }, { callbackCa: r.ca });
}, 300_000);

afterAll(async () => {
  await calling?.stop();
  await r?.close();
});

afterEach(async () => {
  await stopAllSipp();
  expect(calling.t.takeErrorLogs().map((line) => JSON.stringify(line))).toEqual([]);
});

async function account(smsBackup: boolean): Promise<Account> {
  const a = await createAccount(calling.t.service.stores.accounts, {
    phone: '+14155550123',
    smsBackup,
    requireConfirm: false,
  });
  const { secret } = await setCallbackUrl(calling.t.service.stores.callbacks, a.userId, r.url);
  r.secrets.push(secret!);
  return a;
}

async function sendAlert(a: Account, message: string): Promise<string> {
  const res = await calling.t.post(`/webhook/${a.userId}/${a.apiKey}`, JSON.stringify({ message }), {
    'content-type': 'application/json',
  });
  expect(res.status, res.text).toBe(200);
  return res.json.call_id as string;
}

const deliveredFor = (callId: string) => r.delivered().filter((c) => c.data.call_id === callId);

describe('callbacks from real calls', () => {
  it('an answered call: queued (failed once, then sent), ringing, answered, final, in that order', async () => {
    const sink = await startRtpSink(await freeUdpPort());
    const phone = await startSipp({ scenario: 'answer', port: calling.trunkPort, keys: { rtp_sink_port: sink.port } });
    r.answers.push(500);
    const start = r.received.length;
    const a = await account(false);
    const callId = await sendAlert(a, 'AAPL broke resistance at 187.2');
    const row = await calling.t.waitForCall(callId, callEnded, 60_000);
    await phone.stop();
    await sink.close();
    expect(row.status).toBe('completed');
    const final = await waitFor(
      'call.final delivered',
      () => deliveredFor(callId).find((c) => c.type === 'call.final'),
      20_000,
    );
    const got = r.received.slice(start).filter((c) => c.data.call_id === callId);
    console.log(got.map((c) => `${c.type} ${c.answered} +${c.at - got[0]!.at} ms`).join('\n'));
    expect(got.map((c) => `${c.type} ${c.answered}`)).toEqual([
      'call.queued 500',
      'call.queued 200',
      'call.ringing 200',
      'call.answered 200',
      'call.final 200',
    ]);
    expect(got.every((c) => c.verifiedBy.length === 1)).toBe(true);
    expect(final.data).toMatchObject({ outcome: 'completed', answered: true, reason: null });
  }, 90_000);

  it('a busy phone with SMS backup: queued, ringing, final (busy, with its reason), sms.sent through Kannel', async () => {
    const phone = await startSipp({ scenario: 'busy', port: calling.trunkPort });
    const before = calling.kannel.messages().length;
    const a = await account(true);
    const callId = await sendAlert(a, 'BTCUSD crossed 100000');
    await calling.t.waitForCall(callId, callEnded, 60_000);
    await phone.stop();
    const row = await calling.t.waitForCall(callId, smsSettled, 20_000);
    expect(row.sms_status).toMatch(/^(sent|delivered)$/);
    await calling.kannel.waitForMessages(before + 1);
    await waitFor('sms.sent delivered', () => deliveredFor(callId).find((c) => c.type === 'sms.sent'), 20_000);
    const got = deliveredFor(callId);
    // The SIPp phone says 180 Ringing before 486 Busy Here.
    expect(got.map((c) => c.type)).toEqual(['call.queued', 'call.ringing', 'call.final', 'sms.sent']);
    expect(got[2]!.data).toMatchObject({ outcome: 'busy', answered: false, reason: row.error });
    expect(got[2]!.data.reason).toEqual(expect.any(String));
    expect(got[3]!.data).toMatchObject({ parts: 1 });
  }, 90_000);
});
