// Quiet hours (#41) end to end, on the real clock: the managed Asterisk, a SIPp phone answering on
// the trunk, Kannel for the SMS. A window opens at the current minute and closes at the next (in
// Asia/Kolkata, +05:30: a zone not the machine's): alerts inside it are held (no INVITE reaches
// the phone) and, once it ends, called in one call; in `sms` mode the SMS goes out instead of the
// call; a held alert outlives a restart of the service and is called by the one that follows.
import { afterEach, describe, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import { isFinal } from '../../src/core/calls/call-state.js';
import { createAccount } from '../helpers/accounts.js';
import { startCallingService, type CallingService } from '../helpers/calling-service.js';
import { startKannel } from '../helpers/kannel.js';
import { freeUdpPort } from '../helpers/ports.js';
import { startRtpSink } from '../helpers/rtp-sink.js';
import {
  callEnded,
  type CallRow,
  makeDataDir,
  managedTelephonyEnv,
  realClock,
  smsSettled,
  startTestService,
  type TestService,
} from '../helpers/service.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';

const PHONE = '+14155550123';
const ZONE = 'Asia/Kolkata';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const clockText = (at: number) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
    new Date(at),
  );

/**
 * A window from the current minute to the next, with at least 25 s of it left (else the next
 * minute's is taken): `endsAt` is when it closes.
 */
async function windowNow(): Promise<{ text: string; endsAt: number }> {
  if (Date.now() % 60_000 > 35_000) await sleep(60_000 - (Date.now() % 60_000) + 1_000);
  const start = Date.now() - (Date.now() % 60_000);
  const endsAt = start + 60_000;
  return { text: `daily ${clockText(start)}-${clockText(endsAt)}`, endsAt };
}

async function quietAccount(t: TestService, changes: Partial<Account>): Promise<{ account: Account; endsAt: number }> {
  const { text, endsAt } = await windowNow();
  const a = await createAccount(t.service.stores.accounts, { phone: PHONE, smsBackup: true, requireConfirm: false });
  const account = (await t.service.stores.accounts.update(a.userId, {
    quietHours: text,
    timeZone: ZONE,
    ...changes,
  }))!;
  return { account, endsAt };
}

const post = (t: TestService, a: Account, message: string) =>
  t.post(`/webhook/${a.userId}/${a.apiKey}`, message, { 'content-type': 'text/plain' });

const invites = (log: string) => (log.match(/^INVITE sip:/gm) ?? []).length;

let calling: CallingService | undefined;
afterEach(async () => {
  await stopAllSipp();
});

describe('with a calling service', () => {
  afterEach(async () => {
    expect(calling?.t.takeErrorLogs() ?? []).toEqual([]);
  });

  it('hold: alerts in the window answer held_until, ring nothing while it lasts, and are one call when it ends (answered)', async () => {
    calling = await startCallingService();
    const { t } = calling;
    const sink = await startRtpSink(await freeUdpPort());
    const phone = await startSipp({
      scenario: 'answer',
      port: calling.trunkPort,
      keys: { rtp_sink_port: sink.port },
      timeoutSec: 150,
      traceMessages: true,
    });
    try {
      const { account, endsAt } = await quietAccount(t, { quietMode: 'hold' });
      const first = await post(t, account, 'Gold above 2400');
      await sleep(1_000);
      const second = await post(t, account, 'Silver below 30');
      for (const reply of [first, second]) {
        expect(reply.status, reply.text).toBe(200);
        expect(reply.json.held_until).toBe(new Date(endsAt).toISOString());
        expect(reply.json.delivery).toBeUndefined();
        expect(reply.json.message).toMatch(/quiet hours: it is held and called when they end/);
      }
      const ids = [first.json.call_id as string, second.json.call_id as string];
      for (const id of ids) await t.waitForCall(id, (row) => row.status === 'held', 10_000);
      // During the window: the phone hears nothing.
      await sleep(Math.max(0, endsAt - Date.now() - 3_000));
      expect(invites(await phone.messagesSoFar())).toBe(0);
      expect(ids.map((id) => t.callRow(id).status)).toEqual(['held', 'held']);

      // After it: one call carries both, dialed once the window ended, and the phone answers it.
      const rows: CallRow[] = [];
      for (const id of ids) rows.push(await t.waitForCall(id, (row) => isFinal(row.status), 60_000));
      const carrier = rows.find((r) => r.carried_by === null)!;
      const rider = rows.find((r) => r.carried_by !== null)!;
      expect(carrier.status, JSON.stringify(calling.progress.timeline(carrier.call_id))).toBe('completed');
      expect(rider.carried_by).toBe(carrier.call_id);
      expect(carrier.dialed_at).toBeGreaterThanOrEqual(endsAt);
      expect(carrier.dialed_at - endsAt).toBeLessThan(5_000);
      expect(calling.progress.timeline(carrier.call_id).map((e) => e.event)).toEqual(
        expect.arrayContaining(['held', 'released', 'dialing', 'answered', 'completed']),
      );
      expect(invites(await phone.messagesSoFar())).toBe(1);
      console.log(`released ${carrier.dialed_at - endsAt} ms after the window ended`);
      // Both messages and their ages were spoken: longer than one alone.
      expect((sink.stats().audioBytes / 8000) * 1000).toBeGreaterThan(6_000);
    } finally {
      await phone.stop();
      await sink.close();
    }
  }, 180_000);

  it('sms: an alert in the window answers delivery sms, rings nothing and its SMS goes out through Kannel; outside, delivery call', async () => {
    calling ??= await startCallingService();
    const { t, kannel } = calling;
    const { account, endsAt } = await quietAccount(t, { quietMode: 'sms' });
    const before = kannel.messages().length;
    const reply = await post(t, account, 'ETH crossed 4000');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toMatchObject({ delivery: 'sms', success: true });
    expect(reply.json.held_until).toBeUndefined();
    const row = await t.waitForCall(reply.json.call_id, smsSettled, 30_000);
    // The history names the phone the SMS went to, as it names a called one.
    expect(row).toMatchObject({ status: 'sms_instead', sms_status: 'sent', dialed_at: null, phone: PHONE });
    const [sms] = (await kannel.waitForMessages(before + 1)).slice(before);
    // No call was made, so none was missed: quiet hours' own words.
    expect(sms?.text).toBe('Alert (quiet hours): ETH crossed 4000');

    // After the window the same account is called: the answer says so.
    await sleep(Math.max(0, endsAt - Date.now() + 500));
    const after = await post(t, account, 'ETH crossed 4100');
    expect(after.json.delivery).toBe('call');
  }, 180_000);

  it('without quiet hours the answer is the contract as it was (no delivery field)', async () => {
    calling ??= await startCallingService();
    const a = await createAccount(calling.t.service.stores.accounts, { phone: PHONE, smsBackup: false });
    const reply = await post(calling.t, a, 'plain');
    expect(Object.keys(reply.json).sort()).toEqual(['call_id', 'message', 'success', 'timestamp', 'truncated']);
    await calling.t.waitForCall(reply.json.call_id, callEnded, 30_000);
    await calling.stop();
    calling = undefined;
  }, 60_000);
});

it('a held alert outlives a restart: the service that follows calls it when the window ends', async () => {
  const kannel = await startKannel();
  const trunkPort = await freeUdpPort();
  const dataDir = makeDataDir('rh-quiet-');
  const env = async () => ({
    ...(await managedTelephonyEnv(trunkPort)),
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_RING_TIMEOUT: '5',
    RINGHOOK_SMS_GATEWAY: 'http',
    RINGHOOK_SMS_HTTP_PRESET: 'kannel',
    RINGHOOK_SMS_HTTP_URL: kannel.sendsmsUrl(),
    RINGHOOK_SMS_FROM: 'ringhook',
  });
  let t = await startTestService(await env(), realClock());
  const sink = await startRtpSink(await freeUdpPort());
  const phone = await startSipp({
    scenario: 'answer',
    port: trunkPort,
    keys: { rtp_sink_port: sink.port },
    timeoutSec: 150,
    traceMessages: true,
  });
  try {
    const { account, endsAt } = await quietAccount(t, { quietMode: 'hold' });
    const reply = await post(t, account, 'Oil above 90');
    expect(reply.json.held_until).toBe(new Date(endsAt).toISOString());
    const callId = reply.json.call_id as string;
    await t.waitForCall(callId, (row) => row.status === 'held', 10_000);
    await t.stop();
    expect(t.takeErrorLogs()).toEqual([]);

    t = await startTestService(await env(), realClock());
    expect(t.callRow(callId).status).toBe('held');
    const row = await t.waitForCall(callId, (r) => isFinal(r.status), 90_000);
    expect(row.status, JSON.stringify(t.logs.slice(-20))).toBe('completed');
    expect(row.dialed_at).toBeGreaterThanOrEqual(endsAt);
    expect(invites(await phone.messagesSoFar())).toBe(1);
    expect(t.takeErrorLogs()).toEqual([]);
  } finally {
    await phone.stop();
    await sink.close();
    await t.stop();
    await kannel.stop();
  }
}, 240_000);
