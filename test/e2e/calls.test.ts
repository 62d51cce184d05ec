// The whole path of an alert: HTTPS webhook → SQLite → dialer → the managed Asterisk 22 → a SIPp
// phone on the trunk, and, when the call is missed, the SMS backup through a real Kannel.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import type { SqliteCallProgressStore } from '../../src/store/sqlite/progress.js';
import { startCallingService, type CallingService } from '../helpers/calling-service.js';
import type { KannelPeer } from '../helpers/kannel.js';
import { shiftedRtpPcap } from '../helpers/pcap.js';
import { freeUdpPort, freeUdpPortPair } from '../helpers/ports.js';
import { startRtpSink } from '../helpers/rtp-sink.js';
import { request } from '../helpers/https-client.js';
import { callEnded, smsSettled, type TestService } from '../helpers/service.js';
import { sipDialogs } from '../helpers/sip-trace.js';
import { startSipp, stopAllSipp, type SippScenario } from '../helpers/sipp.js';
import { createAccount } from '../helpers/accounts.js';
import { waitFor } from '../helpers/wait.js';
import { reasonText } from '../../src/core/reasons.js';

let t: TestService;
let kannel: KannelPeer;
let trunkPort: number;
let progress: SqliteCallProgressStore;

const PHONE = '+14155550123';
const LINE_PHONE = '+14155550188';

let calling: CallingService;

beforeAll(async () => {
  calling = await startCallingService();
  ({ t, kannel, trunkPort, progress } = calling);
}, 300_000);

afterAll(async () => {
  await calling?.stop();
});

afterEach(async () => {
  await stopAllSipp();
  expect(t.takeErrorLogs().map((line) => JSON.stringify(line))).toEqual([]);
});

async function account(smsBackup = false): Promise<Account> {
  return createAccount(t.service.stores.accounts, { phone: PHONE, smsBackup, requireConfirm: false });
}

async function sendAlert(a: Account, message: string): Promise<string> {
  const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, JSON.stringify({ message, ticker: 'AAPL' }), {
    'content-type': 'application/json',
  });
  expect(res.status, res.text).toBe(200);
  return res.json.call_id as string;
}

const finalCall = (callId: string, timeoutMs?: number) => t.waitForCall(callId, callEnded, timeoutMs);
const smsStatus = (callId: string) => t.waitForCall(callId, smsSettled, 10_000);

const events = (callId: string) =>
  progress.timeline(callId).map((e) => (e.detail && e.event === 'digit' ? `digit ${e.detail.split(':')[0]}` : e.event));

describe('answered calls', () => {
  it('rings the phone, speaks intro, message and prompt (RTP heard at the phone), ends as completed', async () => {
    const sink = await startRtpSink(await freeUdpPort());
    const phone = await startSipp({
      scenario: 'answer',
      port: trunkPort,
      keys: { rtp_sink_port: sink.port },
      timeoutSec: 60,
    });
    const a = await account(true);
    const before = kannel.messages().length;
    const callId = await sendAlert(a, 'AAPL broke resistance at 187.2');
    // The SMS backup's decision is its own write after the end: the row is read once it is there (read
    // at the end alone, sms_status was still null in a fresh-clone run beside two busy loops, #53).
    const row = await t.waitForCall(callId, smsSettled, 30_000);
    await phone.stop();
    const rtp = sink.stats();
    await sink.close();

    expect(row.status, JSON.stringify(events(callId))).toBe('completed');
    expect(row).toMatchObject({ phone: PHONE, hangup_cause: 16, sms_status: 'not_needed' });
    expect(row.talk_ms).toBeGreaterThan(4000);
    expect(row.ring_ms).toBeGreaterThanOrEqual(0);
    expect(row.answered_at).toBeGreaterThan(row.dialed_at - 1);
    expect(events(callId)).toEqual(expect.arrayContaining(['dialing', 'answered', 'hangup', 'completed']));
    // Intro + message + prompt last several seconds: the phone must have received that much audio.
    const heardMs = (rtp.audioBytes / 8000) * 1000;
    expect(heardMs).toBeGreaterThan(4000);
    expect(rtp.loudPackets).toBeGreaterThan(50);
    // Answered: no SMS.
    await new Promise((r) => setTimeout(r, 300));
    expect(kannel.messages().length).toBe(before);
  }, 60_000);

  it('digit 1 ends the call as acknowledged', async () => {
    const phone = await startSipp({ scenario: 'dtmf-1', port: trunkPort, mediaPort: await freeUdpPortPair() });
    const callId = await sendAlert(await account(), 'NVDA sell signal');
    const row = await finalCall(callId);
    await phone.stop();
    expect(row.status, JSON.stringify(events(callId))).toBe('acknowledged');
    expect(events(callId)).toEqual(expect.arrayContaining(['answered', 'digit 1', 'acknowledged']));
  }, 60_000);

  it('digit 2 plays the message again, then 1 acknowledges', async () => {
    const late1 = await shiftedRtpPcap('/usr/share/sip-tester/dtmf_2833_1.pcap', 1000, 80_000);
    const phone = await startSipp({
      scenario: 'dtmf-2-then-1',
      port: trunkPort,
      mediaPort: await freeUdpPortPair(),
      files: { 'dtmf_2833_1_after_2.pcap': late1 },
    });
    const callId = await sendAlert(await account(), 'ES long entry');
    const row = await finalCall(callId);
    await phone.stop();
    expect(row.status, JSON.stringify(events(callId))).toBe('acknowledged');
    const e = events(callId);
    expect(e.indexOf('digit 2')).toBeGreaterThan(-1);
    expect(e.indexOf('digit 1')).toBeGreaterThan(e.indexOf('digit 2'));
  }, 60_000);
});

describe('calls that are not answered', () => {
  const cases: Array<[SippScenario | 'nothing', string, number | null]> = [
    ['busy', 'busy', 486],
    ['decline', 'rejected', 603],
    ['unavailable', 'unreachable', 480],
    ['service-unavailable', 'unreachable', 503],
    ['ring-forever', 'no_answer', null],
    ['nothing', 'unreachable', null],
  ];

  it.each(cases)(
    '%s → %s',
    async (scenario, expected, sipCode) => {
      const phone = scenario === 'nothing' ? null : await startSipp({ scenario, port: trunkPort, timeoutSec: 30 });
      const callId = await sendAlert(await account(false), `scenario ${scenario}`);
      const row = await finalCall(callId);
      await phone?.stop();
      expect(row.status, JSON.stringify(events(callId))).toBe(expected);
      if (sipCode !== null) expect(row.sip_code).toBe(sipCode);
      expect(row.answered_at).toBeNull();
      expect(row.ended_at).not.toBeNull();
      // SMS backup is off for this account.
      expect((await smsStatus(callId)).sms_status).toBe('disabled');
    },
    60_000,
  );

  it('busy with SMS backup on: the SMS centre receives "Missed call alert: …" once', async () => {
    const phone = await startSipp({ scenario: 'busy', port: trunkPort });
    const before = kannel.messages().length;
    const message = 'BTCUSD crossed 100000 🚀';
    const callId = await sendAlert(await account(true), message);
    const row = await finalCall(callId);
    await phone.stop();
    expect(row.status).toBe('busy');
    const sms = await smsStatus(callId);
    expect(sms.sms_status).toMatch(/^(sent|delivered)$/);
    const [got] = (await kannel.waitForMessages(before + 1)).slice(before);
    expect(got!.text).toBe(`Missed call alert: ${message}`);
    expect(got!.to).toContain('14155550123');
    await new Promise((r) => setTimeout(r, 500));
    expect(kannel.messages().length).toBe(before + 1);
    // /metrics counts the call's outcome and the SMS.
    const metrics = await request(`${t.baseUrl}/metrics`, { method: 'GET', ca: t.ca });
    expect(metrics.text).toMatch(/^ringhook_calls_total\{outcome="busy"\} [1-9]\d*$/m);
    expect(metrics.text).toMatch(/^ringhook_sms_total\{result="sent"\} [1-9]\d*$/m);
  }, 60_000);
});

describe('test calls and Asterisk faults', () => {
  it('a suspended account gets no test call; a call queued before the suspension ends failed, never dialed, with no SMS', async () => {
    const a = await account(true);
    await t.service.stores.accounts.update(a.userId, { status: 'suspended' });
    expect(await t.service.telephony!.placeTestCall((await t.service.stores.accounts.get(a.userId))!)).toEqual({
      accepted: false,
      reason: 'suspended',
    });
    expect(await t.service.stores.calls.list({ userId: a.userId })).toEqual([]);

    const b = await account(true);
    const before = kannel.messages().length;
    // Accepted as the webhook does (the account still active), suspended before the dialer can look.
    const alert = {
      form: 'text' as const,
      message: 'queued before the suspension',
      truncated: false,
      originalLength: 28,
      fields: {},
      extra: {},
    };
    const accepting = t.service.stores.calls.accept(b.userId, 'premium', alert);
    await t.service.stores.accounts.update(b.userId, { status: 'suspended' });
    const accepted = await accepting;
    expect(accepted.accepted).toBe(true);
    const callId = (accepted as { callId: string }).callId;
    t.service.telephony!.enqueue(callId);
    const row = await smsStatus(callId);
    expect(row).toMatchObject({
      status: 'failed',
      error: reasonText('account_suspended'),
      dialed_at: null,
      sms_status: 'disabled',
    });
    expect(events(callId)).not.toContain('dialing');
    await new Promise((r) => setTimeout(r, 300));
    expect(kannel.messages().length).toBe(before);
  }, 30_000);

  it('an account suspended while its alert waits for the line: the alert ends failed, no INVITE for it, no SMS', async () => {
    // Two accounts on one phone: the first's call holds the line (it rings, then busy), so the
    // second's alert, handed to the dialer with its account still active, waits behind it.
    const phone = await startSipp({ scenario: 'busy-slow', port: trunkPort, calls: 2, traceMessages: true });
    // A number of its own: an INVITE Asterisk still retransmits from an earlier test is not counted.
    const own = (smsBackup: boolean) =>
      createAccount(t.service.stores.accounts, { phone: LINE_PHONE, smsBackup, requireConfirm: false });
    const first = await sendAlert(await own(false), 'holds the line');
    await t.waitForCall(first, (row) => row.status !== 'queued', 10_000);
    const b = await own(true);
    const before = kannel.messages().length;
    const waiting = await sendAlert(b, 'waits for the line');
    await t.service.stores.accounts.update(b.userId, { status: 'suspended' });
    expect((await finalCall(first)).status).toBe('busy');
    const row = await smsStatus(waiting);
    expect(row).toMatchObject({
      status: 'failed',
      error: reasonText('account_suspended'),
      dialed_at: null,
      sms_status: 'disabled',
    });
    expect(events(waiting)).not.toContain('dialing');
    // Time for a second call to go out, were it placed.
    await new Promise((r) => setTimeout(r, 2_000));
    const dialogs = sipDialogs((await phone.stop()).messages).filter((d) => d.to.includes(LINE_PHONE.slice(1)));
    expect(dialogs).toHaveLength(1);
    expect(kannel.messages().length).toBe(before);
  }, 60_000);

  it('a test call rings the phone, is recorded as a test and uses no allowance', async () => {
    const sink = await startRtpSink(await freeUdpPort());
    const phone = await startSipp({ scenario: 'answer', port: trunkPort, keys: { rtp_sink_port: sink.port } });
    const a = await createAccount(t.service.stores.accounts, { phone: PHONE, plan: 'free', requireConfirm: false });
    const placed = await t.service.telephony!.placeTestCall(a);
    expect(placed.accepted).toBe(true);
    const callId = (placed as { callId: string }).callId;
    const row = await finalCall(callId);
    await phone.stop();
    await sink.close();
    expect(row).toMatchObject({ kind: 'test', status: 'completed' });
    expect((await t.service.stores.calls.usage(a.userId)).used).toBe(0);
  }, 60_000);

  it('Asterisk down when alerts arrive: accepted, then each placed once Asterisk is back', async () => {
    const phone = await startSipp({ scenario: 'busy', port: trunkPort, calls: 3 });
    const asterisk = t.service.telephony!.asterisk!;
    const restarted = new Promise((resolve) => asterisk.once('ready', resolve));
    // The alerts are sent once ringhook knows Asterisk is gone: sent before (50 ms after the kill was
    // too soon on a loaded machine), each is dialed, refused and queued, and rightly dialed twice.
    const gone = new Promise((resolve) => t.service.telephony!.ari.once('disconnected', resolve));
    process.kill(asterisk.pid!, 'SIGKILL');
    await gone;
    // Several calls wait, so they are dialed at the moment the events socket comes back, while
    // the calls of before the drop are reconciled: a new call must not be taken for a lost one.
    const callIds = await Promise.all(
      [1, 2, 3].map(async (n) => sendAlert(await account(), `placed after the restart ${n}`)),
    );
    await restarted;
    for (const callId of callIds) {
      const row = await finalCall(callId);
      expect(row.status, JSON.stringify(events(callId))).toBe('busy');
      expect(events(callId).filter((e) => e === 'dialing')).toHaveLength(1);
    }
    await phone.stop();
    // The supervisor's restart is logged as a warning, not an error.
  }, 60_000);

  it('Asterisk killed during a call: the call ends as interrupted and the SMS backup goes out', async () => {
    const sink = await startRtpSink(await freeUdpPort());
    const phone = await startSipp({ scenario: 'answer', port: trunkPort, keys: { rtp_sink_port: sink.port } });
    const before = kannel.messages().length;
    const callId = await sendAlert(await account(true), 'cut off mid-sentence');
    await waitFor(
      'the call to be answered',
      () => (progress.get(callId)?.status === 'answered' ? true : undefined),
      10_000,
      20,
    );
    const asterisk = t.service.telephony!.asterisk!;
    const restarted = new Promise((resolve) => asterisk.once('ready', resolve));
    process.kill(asterisk.pid!, 'SIGKILL');
    await restarted;
    const row = await finalCall(callId, 20_000);
    await phone.stop();
    await sink.close();
    expect(row.status, JSON.stringify(events(callId))).toBe('interrupted');
    expect((await smsStatus(callId)).sms_status).toMatch(/^(sent|delivered)$/);
    await kannel.waitForMessages(before + 1);
  }, 60_000);
});
