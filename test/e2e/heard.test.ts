// Heard, not just answered, against the managed Asterisk and SIPp phones: answering-machine
// detection while the message plays (TALK_DETECT), confirmation required, one line per phone.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import type { SqliteCallProgressStore } from '../../src/store/sqlite/progress.js';
import type { KannelPeer } from '../helpers/kannel.js';
import { freeUdpPort } from '../helpers/ports.js';
import { startRtpSink } from '../helpers/rtp-sink.js';
import { smsSettled, type TestService } from '../helpers/service.js';
import { startCallingService, type CallingService } from '../helpers/calling-service.js';
import { sipDialogs, mostAtOnce } from '../helpers/sip-trace.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';
import { createAccount } from '../helpers/accounts.js';

const PHONE = '+14155550123';
let calling: CallingService;
let t: TestService;
let kannel: KannelPeer;
let trunkPort: number;
let progress: SqliteCallProgressStore;

beforeAll(async () => {
  calling = await startCallingService({ RINGHOOK_AMD: 'on' });
  ({ t, kannel, trunkPort, progress } = calling);
}, 180_000);

afterAll(async () => {
  await calling?.stop();
});

afterEach(async () => {
  await stopAllSipp();
  expect(t.takeErrorLogs().map((line) => JSON.stringify(line))).toEqual([]);
});

async function account(requireConfirm: boolean): Promise<Account> {
  return createAccount(t.service.stores.accounts, { phone: PHONE, smsBackup: true, requireConfirm });
}

async function sendAlert(a: Account, message: string): Promise<string> {
  const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, message, { 'content-type': 'text/plain' });
  expect(res.status, res.text).toBe(200);
  return res.json.call_id as string;
}

const events = (callId: string) =>
  progress
    .timeline(callId)
    .map((e) => (e.detail && (e.event === 'digit' || e.event === 'amd') ? `${e.event} ${e.detail}` : e.event));

describe('answering-machine detection while the message plays', () => {
  it('a phone that answers and sends no audio at all: the message is spoken at once, the detection is not sure, and without a 1 the call ends unconfirmed with its SMS', async () => {
    const sink = await startRtpSink(await freeUdpPort());
    const phone = await startSipp({
      scenario: 'answer',
      port: trunkPort,
      keys: { rtp_sink_port: sink.port },
      timeoutSec: 90,
    });
    const before = kannel.messages().length;
    const callId = await sendAlert(await account(true), 'NVDA crossed 140');
    const row = await t.waitForCall(callId, smsSettled, 60_000);
    await phone.stop();
    const rtp = sink.stats();
    await sink.close();
    expect(row.status, JSON.stringify(events(callId))).toBe('unconfirmed');
    expect(row).toMatchObject({ amd_status: 'NOTSURE', sms_status: expect.stringMatching(/^(sent|delivered)$/) });
    expect(row.amd_cause).toMatch(/^INITIALSILENCE/);
    expect(events(callId)).toEqual(
      expect.arrayContaining(['answered', expect.stringMatching(/^amd NOTSURE/), 'hangup', 'unconfirmed']),
    );
    // The message was spoken, while the detection listened.
    expect(rtp.loudPackets).toBeGreaterThan(50);
    await t.waitForCall(callId, () => kannel.messages().length > before, 10_000);
    expect(
      kannel
        .messages()
        .slice(before)
        .map((m) => m.text),
    ).toEqual(['Missed call alert: NVDA crossed 140']);
  }, 90_000);

  it('a phone that hangs up 1.5 s after answering, while the detection listens: its end is seen, no verdict is kept; the message had begun and no 1 is required: completed, no SMS', async () => {
    const phone = await startSipp({
      scenario: 'answer-hangup',
      port: trunkPort,
      keys: { rtp_sink_port: await freeUdpPort() },
      timeoutSec: 60,
    });
    const callId = await sendAlert(await account(false), 'hung up during AMD');
    // The SMS backup's decision is its own write after the end: the row is read once it is there (read at
    // the end alone, sms_status was still null in a fresh-clone run beside six files, #53).
    const row = await t.waitForCall(callId, smsSettled, 30_000);
    await phone.stop();
    expect(events(callId)).toContain('answered');
    // ringhook did not hang up: the phone's own BYE ended it.
    expect(events(callId)).not.toContain('hangup');
    expect(row.talk_ms).toBeLessThan(5000);
    expect(row).toMatchObject({ status: 'completed', amd_status: null, sms_status: 'not_needed' });
  }, 60_000);
});

describe('one line per phone', () => {
  /** Five alerts to one number within 200 ms: the first goes out at once, the others wait for the line. */
  async function fiveAlerts(a: Account): Promise<string[]> {
    const ids: string[] = [];
    for (const [i, text] of ['first AAPL', 'second MSFT', 'third NVDA', 'fourth TSLA', 'fifth SPY'].entries()) {
      if (i > 0) await new Promise((r) => setTimeout(r, 40));
      ids.push(await sendAlert(a, text));
    }
    return ids;
  }

  it('answered: the phone never has two calls at once; the first call carries the first alert, the next the other four in order', async () => {
    const sink = await startRtpSink(await freeUdpPort());
    const phone = await startSipp({
      scenario: 'answer',
      port: trunkPort,
      keys: { rtp_sink_port: sink.port },
      calls: 2,
      timeoutSec: 150,
      traceMessages: true,
    });
    const ids = await fiveAlerts(await account(false));
    const rows = [];
    for (const id of ids) rows.push(await t.waitForCall(id, smsSettled, 120_000));
    const trace = await phone.done;
    await sink.close();
    const dialogs = sipDialogs(trace.messages);
    expect(dialogs, trace.messages.slice(0, 2000)).toHaveLength(2);
    expect(mostAtOnce(dialogs)).toBe(1);
    expect(rows.map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed', 'completed']);
    expect(rows.map((r) => r.carried_by)).toEqual([null, null, ids[1], ids[1], ids[1]]);
    expect(rows.map((r) => r.channel_id)).toEqual([
      `rh-${ids[0]}`,
      `rh-${ids[1]}`,
      `rh-${ids[1]}`,
      `rh-${ids[1]}`,
      `rh-${ids[1]}`,
    ]);
    // The merged call said how many and spoke them in order of arrival (its timeline's speech is not
    // stored; the call lasted long enough for four messages).
    expect(rows[1]!.talk_ms).toBeGreaterThan(rows[0]!.talk_ms);
  }, 180_000);

  it('busy: one SMS for the first alert, the merged follow-up carries the other four and its miss sends one SMS for them', async () => {
    const phone = await startSipp({
      scenario: 'busy-slow',
      port: trunkPort,
      calls: 2,
      timeoutSec: 60,
      traceMessages: true,
    });
    const before = kannel.messages().length;
    const a = await createAccount(t.service.stores.accounts, { phone: PHONE, smsBackup: true, requireConfirm: true });
    const ids = await fiveAlerts(a);
    const rows = [];
    for (const id of ids) rows.push(await t.waitForCall(id, smsSettled, 60_000));
    const trace = await phone.done;
    expect(mostAtOnce(sipDialogs(trace.messages))).toBe(1);
    expect(sipDialogs(trace.messages)).toHaveLength(2);
    expect(rows.map((r) => r.status)).toEqual(['busy', 'busy', 'busy', 'busy', 'busy']);
    expect(rows.map((r) => r.carried_by)).toEqual([null, null, ids[1], ids[1], ids[1]]);
    await t.waitForCall(ids[0]!, () => kannel.messages().length >= before + 2, 10_000);
    expect(
      kannel
        .messages()
        .slice(before)
        .map((m) => m.text),
    ).toEqual([
      'Missed call alert: first AAPL',
      'Missed call, 4 alerts: 1) second MSFT 2) third NVDA 3) fourth TSLA 4) fifth SPY',
    ]);
    // One SMS per alert at most: the four share one message id.
    expect(new Set(rows.slice(1).map((r) => r.sms_message_id)).size).toBe(1);
  }, 90_000);
});
