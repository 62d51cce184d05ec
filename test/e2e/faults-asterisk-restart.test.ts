// Asterisk restarted by an operator, not killed: the managed Asterisk's own CLI (`asterisk -rx`
// through its control socket, run inside its mount namespace and chroot: asteriskCli) during calls.
//
// What was observed (Asterisk 22.10, provisioned root file system, managed mode):
// - Asterisk re-execs itself in place: same pid, the supervisor sees no exit and emits no `ready`
//   (no "Asterisk exited; restarting" warning); only `/ari/asterisk/info` status.startup_time
//   changes. ringhook notices through the events websocket alone: closed (1006) about 1.1 s after
//   `core restart now`, then ECONNREFUSED, then HTTP 404 while res_ari loads, reconnected
//   0.3–0.7 s after the drop (2–3 attempts), with a warning and no error.
// - `core restart now` hangs every channel up BEFORE the websocket closes, so ringhook gets the
//   events (nothing to reconcile): ChannelHangupRequest {soft: true, cause: 4} (4 is
//   AST_SOFTHANGUP_SHUTDOWN, "soft hangup requested by system shutdown"), then ChannelDestroyed with
//   cause 0 "Unknown". The SIPp phone gets its BYE (answered) or CANCEL (ringing). The dialer
//   recognises the shutdown's soft hangup: the call ends `interrupted` ("Asterisk stopped during
//   the call"), and its SMS backup goes out once. (Before, these were classified like a far-end
//   hangup: an answered call `completed` with no SMS after ~1 s of the message, a ringing call
//   `failed` with no explanation.)
// - `core restart gracefully` stops taking new calls at once (CLI commands answer "cannot be run
//   during shutdown"), lets the answered call run to its natural end (completed, cause 16, the
//   whole message and prompt played), then restarts as above. An alert that arrives during that
//   drain has its originate refused with HTTP 500 "Allocation failed" (the trunk endpoint is not
//   offline, so Asterisk itself is refusing), and just before the restart with HTTP 503 "Shutdown
//   in progress": nothing was dialed, so the dialer sends it back to the queue (back-off 0.5 s
//   doubling to 5 s) and places it once Asterisk is back (before, it ended `unreachable` at once).
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import type { SqliteCallProgressStore } from '../../src/store/sqlite/progress.js';
import type { ManagedAsterisk } from '../../src/pbx/asterisk.js';
import type { AriClient } from '../../src/pbx/ari.js';
import { asteriskCli } from '../helpers/asterisk.js';
import { startCallingService, type CallingService } from '../helpers/calling-service.js';
import type { KannelPeer } from '../helpers/kannel.js';
import { freeUdpPort } from '../helpers/ports.js';
import { startRtpSink } from '../helpers/rtp-sink.js';
import { callEnded, smsSettled, type CallRow, type TestService } from '../helpers/service.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';
import { createAccount } from '../helpers/accounts.js';
import { reasonText } from '../../src/core/reasons.js';

let calling: CallingService;
let t: TestService;
let kannel: KannelPeer;
let trunkPort: number;
let progress: SqliteCallProgressStore;
let ari: AriClient;
let asterisk: ManagedAsterisk;

beforeAll(async () => {
  calling = await startCallingService();
  ({ t, kannel, trunkPort, progress } = calling);
  ari = t.service.telephony!.ari;
  asterisk = t.service.telephony!.asterisk!;
}, 300_000);

afterEach(async () => {
  await stopAllSipp();
});

afterAll(async () => {
  await calling?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const events = (callId: string) => progress.timeline(callId).map((e) => e.event);
const dialings = (callId: string) => events(callId).filter((e) => e === 'dialing').length;
const smsAtCentre = (message: string) =>
  kannel.messages().filter((m) => m.text === `Missed call alert: ${message}`).length;

async function account(): Promise<Account> {
  return createAccount(t.service.stores.accounts, { smsBackup: true, requireConfirm: false });
}

async function sendAlert(a: Account, message: string): Promise<string> {
  const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, JSON.stringify({ message, ticker: 'AAPL' }), {
    'content-type': 'application/json',
  });
  expect(res.status, res.text).toBe(200);
  return res.json.call_id as string;
}

async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(50);
  }
}

const startupTime = async () => (await ari.asteriskInfo()).status?.startup_time;

/** What the supervisor and the ARI client report while Asterisk restarts. */
function watchRestart() {
  const seen = {
    supervisorExits: 0,
    supervisorReady: 0,
    disconnects: 0,
    disconnectedAt: 0,
    reconnectedAt: 0,
    downMs: 0,
    attempts: 0,
  };
  const onExit = () => void seen.supervisorExits++;
  const onReady = () => void seen.supervisorReady++;
  const onDisconnected = () => {
    if (seen.disconnects++ === 0) seen.disconnectedAt = Date.now();
  };
  let resolve!: () => void;
  const reconnected = new Promise<void>((r) => (resolve = r));
  const onReconnected = ({ downMs, attempts }: { downMs: number; attempts: number }) => {
    seen.reconnectedAt = Date.now();
    seen.downMs = downMs;
    seen.attempts = attempts;
    resolve();
  };
  asterisk.on('exit', onExit);
  asterisk.on('ready', onReady);
  ari.on('disconnected', onDisconnected);
  ari.once('reconnected', onReconnected);
  return {
    seen,
    reconnected: (timeoutMs: number) =>
      Promise.race([reconnected.then(() => true), sleep(timeoutMs).then(() => false)]),
    detach() {
      asterisk.off('exit', onExit);
      asterisk.off('ready', onReady);
      ari.off('disconnected', onDisconnected);
      ari.off('reconnected', onReconnected);
    },
  };
}

/** A new alert after the restart is placed on the restarted Asterisk: busy at a new SIPp. */
async function nextAlertPlaced(a: Account, message: string): Promise<CallRow> {
  const phone = await startSipp({ scenario: 'busy', port: trunkPort, calls: 1, timeoutSec: 30 });
  const callId = await sendAlert(a, message);
  const row = await t.waitForCall(callId, callEnded, 20_000);
  const sipp = await phone.done;
  expect(row.status, JSON.stringify(events(callId))).toBe('busy');
  expect(sipp.successfulCalls).toBe(1);
  expect(dialings(callId)).toBe(1);
  return row;
}

async function restartNowDuring(kind: 'answered' | 'ringing') {
  t.takeErrorLogs(); // only what this test causes counts
  const sink = kind === 'answered' ? await startRtpSink(await freeUdpPort()) : undefined;
  const phone = await startSipp({
    scenario: kind === 'answered' ? 'answer' : 'ring-forever',
    port: trunkPort,
    calls: 1,
    timeoutSec: 60,
    ...(sink && { keys: { rtp_sink_port: sink.port } }),
  });
  const a = await account();
  const message = `core restart now during a ${kind} call ${Date.now()}`;
  const callId = await sendAlert(a, message);
  await until(`call ${kind}`, () => progress.get(callId)?.status === kind, 15_000);
  await sleep(kind === 'answered' ? 1_000 : 500); // the message is being spoken / the phone rings
  expect(progress.get(callId)?.status).toBe(kind);

  const startedBefore = await startupTime();
  const pidBefore = asterisk.pid;
  const watch = watchRestart();
  const commandAt = Date.now();
  const cliOutput = await asteriskCli(asterisk, 'core restart now');
  const back = await watch.reconnected(30_000);
  watch.detach();
  expect(back, 'ringhook reconnected to the restarted Asterisk by itself').toBe(true);
  expect(watch.seen.disconnects, 'ringhook noticed the restart').toBeGreaterThan(0);
  const startedAfter = await startupTime();
  expect(startedAfter, 'Asterisk really restarted').not.toBe(startedBefore);

  // No call stays non-final.
  const row = await t.waitForCall(callId, callEnded, 30_000);
  const finalAfterCommandMs = row.ended_at - commandAt;
  const sms = await t.waitForCall(callId, smsSettled, 20_000);
  const sipp = await phone.stop();
  await sink?.close();

  const next = await nextAlertPlaced(a, `after core restart now (${kind})`);
  await sleep(1_500); // a duplicate SMS or a redial would show by now
  const later = t.callRow(callId);
  const smsCount = smsAtCentre(message);
  const errors = t.takeErrorLogs();

  console.log(
    `figures: asterisk restart now (${kind} call)`,
    JSON.stringify({
      cli_output: cliOutput.trim(),
      pid_same: asterisk.pid === pidBefore,
      supervisor_exits: watch.seen.supervisorExits,
      supervisor_ready: watch.seen.supervisorReady,
      disconnect_after_command_ms: watch.seen.disconnectedAt - commandAt,
      reconnect_after_command_ms: watch.seen.reconnectedAt - commandAt,
      down_ms: watch.seen.downMs,
      attempts: watch.seen.attempts,
      final: row.status,
      hangup_cause: row.hangup_cause,
      hangup_cause_text: row.hangup_cause_text,
      error: row.error,
      talk_ms: row.talk_ms,
      ring_ms: row.ring_ms,
      final_after_command_ms: finalAfterCommandMs,
      timeline: progress.timeline(callId).map((e) => (e.detail ? `${e.event}: ${e.detail}` : e.event)),
      sms_status: sms.sms_status,
      sms_at_centre: smsCount,
      phone_calls: { ok: sipp.successfulCalls, failed: sipp.failedCalls },
      next: next.status,
      error_logs: errors.length,
    }),
  );

  // Never redialed, the final state never changes afterwards, never two SMS.
  expect(dialings(callId), JSON.stringify(events(callId))).toBeLessThanOrEqual(1);
  expect(later.status).toBe(row.status);
  expect(smsCount).toBeLessThanOrEqual(1);
  // The restart explains a warning (events socket down), not an error.
  expect(errors).toEqual([]);

  // Asterisk stopped during the call (ChannelHangupRequest soft, cause 4 = AST_SOFTHANGUP_SHUTDOWN):
  // `interrupted` with an error that says so, and the SMS backup goes out once.
  expect(row.status, JSON.stringify(progress.timeline(callId))).toBe('interrupted');
  expect(row.error ?? '(no error)', 'the history says what happened').toBe(reasonText('asterisk_stopped'));
  expect(row.reason_detail).toMatch(/^Asterisk stopped during the call/);
  expect(sms.sms_status, 'the SMS backup of a call cut by the restart').toMatch(/^(sent|delivered)$/);
  expect(smsCount, 'one SMS at the centre').toBe(1);
}

it('core restart now during an answered call: reconnects, the call ends (interrupted), one SMS, not redialed, the next alert is placed', async () => {
  await restartNowDuring('answered');
}, 120_000);

it('core restart now during a ringing call: reconnects, the call ends (interrupted), one SMS, not redialed, the next alert is placed', async () => {
  await restartNowDuring('ringing');
}, 120_000);

it('core restart gracefully during an answered call: the call plays to its end, Asterisk restarts after it, an alert sent during the drain is placed after the restart', async () => {
  t.takeErrorLogs();
  const sink = await startRtpSink(await freeUdpPort());
  // Two calls: the one held during the drain, then (once Asterisk is back) the alert sent during the drain.
  const phone = await startSipp({
    scenario: 'answer',
    port: trunkPort,
    calls: 2,
    timeoutSec: 90,
    keys: { rtp_sink_port: sink.port },
  });
  const a = await account();
  const message1 = `held through core restart gracefully ${Date.now()}`;
  const callId = await sendAlert(a, message1);
  await until('call answered', () => progress.get(callId)?.status === 'answered', 15_000);

  const startedBefore = await startupTime();
  const pidBefore = asterisk.pid;
  const watch = watchRestart();
  const commandAt = Date.now();
  // Returns when Asterisk restarts, i.e. after the held call: not awaited here.
  const cli = asteriskCli(asterisk, 'core restart gracefully', 60_000).then((out) => ({ out, at: Date.now() }));
  cli.catch(() => {});
  // The drain has begun once the CLI refuses commands "during shutdown".
  await until(
    'Asterisk draining',
    async () => /during shutdown/.test(await asteriskCli(asterisk, 'core show channels count').catch(() => '')),
    15_000,
  );
  const drainSeenMs = Date.now() - commandAt;
  const message2 = `sent during the graceful drain ${Date.now()}`;
  const callId2 = await sendAlert(a, message2);

  // The held call is not cut: it plays the message and the prompt, then ends by itself.
  const row1 = await t.waitForCall(callId, callEnded, 40_000);
  expect(row1.status, JSON.stringify(progress.timeline(callId))).toBe('completed');
  expect(row1.hangup_cause).toBe(16);
  expect(progress.timeline(callId).find((e) => e.event === 'hangup')?.detail).toBe('no digit after the message');
  const cliDone = await cli;
  const back = await watch.reconnected(30_000);
  watch.detach();
  expect(back, 'ringhook reconnected to the restarted Asterisk by itself').toBe(true);
  expect(await startupTime(), 'Asterisk really restarted').not.toBe(startedBefore);
  // Asterisk restarted only once the held call was over.
  expect(watch.seen.disconnectedAt).toBeGreaterThanOrEqual(row1.ended_at);

  // The alert of the drain reaches a final state either way; the phone gets it at most once.
  const row2 = await t.waitForCall(callId2, callEnded, 60_000);
  const sms2 = await t.waitForCall(callId2, smsSettled, 20_000);
  const sipp = await phone.stop();
  await sink.close();
  const next = await nextAlertPlaced(a, 'after core restart gracefully');
  await sleep(1_500);
  const errors = t.takeErrorLogs();

  console.log(
    'figures: asterisk restart gracefully (answered call + alert during the drain)',
    JSON.stringify({
      pid_same: asterisk.pid === pidBefore,
      supervisor_exits: watch.seen.supervisorExits,
      supervisor_ready: watch.seen.supervisorReady,
      drain_seen_ms: drainSeenMs,
      held_call: row1.status,
      held_talk_ms: row1.talk_ms,
      held_ended_after_command_ms: row1.ended_at - commandAt,
      cli_returned_after_command_ms: cliDone.at - commandAt,
      disconnect_after_held_call_ms: watch.seen.disconnectedAt - row1.ended_at,
      down_ms: watch.seen.downMs,
      attempts: watch.seen.attempts,
      drain_alert: row2.status,
      drain_alert_error: row2.error,
      drain_alert_timeline: progress.timeline(callId2).map((e) => (e.detail ? `${e.event}: ${e.detail}` : e.event)),
      drain_alert_sms: sms2.sms_status,
      sms_at_centre: smsAtCentre(message1) + smsAtCentre(message2),
      phone_calls: { ok: sipp.successfulCalls, failed: sipp.failedCalls },
      next: next.status,
      error_logs: errors.length,
    }),
  );

  // The SMS backup's decision is its own write after the end: read once it is there (read at the end
  // alone, sms_status was still null in a run beside nine other files).
  expect((await t.waitForCall(callId, smsSettled, 20_000)).sms_status).toBe('not_needed');
  expect(smsAtCentre(message1)).toBe(0);
  expect(smsAtCentre(message2)).toBeLessThanOrEqual(1);
  expect(
    (sipp.successfulCalls ?? 0) + (sipp.failedCalls ?? 0),
    'the phone got each call at most once',
  ).toBeLessThanOrEqual(2);
  expect(errors).toEqual([]);

  // Asterisk refused the originate only because it was shutting down: the alert waited in the
  // queue and was placed once Asterisk was back (answered by the phone, `completed`).
  expect(row2.status, JSON.stringify(progress.timeline(callId2))).toBe('completed');
  expect(sipp.successfulCalls, 'the phone got the alert sent during the drain').toBe(2);
}, 180_000);
