// The ARI websocket cut while Asterisk lives: ringhook in external mode talks to a managed Asterisk
// (startTestAsterisk) through a small TCP proxy on loopback. During a ringing call (SIPp
// ring-forever, ring timeout 5 s) the proxy destroys every socket and refuses new ones for 1.5 s,
// then lets them through: ringhook reconnects by itself, the call still ends with its real outcome
// (no_answer at the ring timeout), and a new alert afterwards is placed.
// A second test keeps new sockets refused for 7 s, longer than the ring timeout: Asterisk ends the
// channel (CANCEL to SIPp) while ringhook is not listening, so its ChannelDestroyed is lost. The
// client reconnects after ~11.3 s (its backoff: 7 attempts); the dialer's reconcile at the
// reconnect finds the channel gone and ends the call `interrupted` ("the call ended while the
// connection to Asterisk was down") within a few ms, well before its give-up timer (ring timeout
// + 15 s after the dial); the SMS backup is recorded as disabled (no gateway here); not redialed.
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SqliteCallProgressStore } from '../../src/store/sqlite/progress.js';
import { startTestAsterisk, type TestAsterisk } from '../helpers/asterisk.js';
import { callEnded, realClock, smsSettled, sqliteDb, startTestService, type TestService } from '../helpers/service.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';
import { createAccount } from '../helpers/accounts.js';
import { waitFor } from '../helpers/wait.js';
import { reasonText } from '../../src/core/reasons.js';

interface Proxy {
  port: number;
  connections: () => number;
  /** Destroys every open socket and refuses new connections for `refuseMs`. */
  cut(refuseMs: number): number;
  close(): Promise<void>;
}

async function startProxy(target: { host: string; port: number }): Promise<Proxy> {
  const open = new Set<net.Socket>();
  let refuseUntil = 0;
  let accepted = 0;
  const server = net.createServer((client) => {
    if (Date.now() < refuseUntil) return void client.destroy();
    accepted++;
    const upstream = net.connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => accepted,
    cut: (refuseMs) => {
      refuseUntil = Date.now() + refuseMs;
      const n = open.size;
      for (const s of [...open]) s.destroy();
      open.clear();
      return n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}

let ast: TestAsterisk;
let proxy: Proxy;
let t: TestService;
let progress: SqliteCallProgressStore;

beforeAll(async () => {
  ast = await startTestAsterisk();
  const ari = new URL(ast.ariUrl);
  proxy = await startProxy({ host: ari.hostname, port: Number(ari.port) });
  t = await startTestService(
    {
      RINGHOOK_TELEPHONY: 'external',
      RINGHOOK_ARI_URL: `http://127.0.0.1:${proxy.port}`,
      RINGHOOK_ARI_USER: ast.ariUser,
      RINGHOOK_ARI_PASSWORD: ast.ariPassword,
      RINGHOOK_MEDIA_DIR: ast.mediaDir,
      // The external Asterisk's trunk already points at this port; ringhook then dials PJSIP/<number>@trunk.
      RINGHOOK_TRUNK_URI: `sip:127.0.0.1:${ast.trunkPort}`,
      RINGHOOK_RING_TIMEOUT: '5',
    },
    realClock(),
  );
  progress = new SqliteCallProgressStore(sqliteDb(t.service.stores));
  await waitFor('ARI connected', () => (t.service.telephony!.ari.isConnected ? true : undefined), 15_000, 50);
  expect(t.service.telephony!.ari.isConnected).toBe(true);
}, 300_000);

afterAll(async () => {
  await stopAllSipp();
  await t?.stop();
  await proxy?.close();
  await ast?.stop();
});

const row = (callId: string) => t.callRow(callId);

const finalRow = (callId: string, timeoutMs: number) => t.waitForCall(callId, callEnded, timeoutMs);

it('ARI websocket cut during a ringing call: reconnects, the call ends no_answer, the next alert is placed', async () => {
  const ari = t.service.telephony!.ari;
  const reconnected = new Promise<{ downMs: number; attempts: number }>((resolve) => ari.once('reconnected', resolve));
  const phone = await startSipp({ scenario: 'ring-forever', port: ast.trunkPort, calls: 1, timeoutSec: 40 });
  const a = await createAccount(t.service.stores.accounts);
  const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, 'alert ringing while ARI is cut');
  expect(res.status, res.text).toBe(200);
  const callId = res.json.call_id as string;
  await waitFor(
    'the call to be ringing',
    () => (progress.get(callId)?.status === 'ringing' ? true : undefined),
    10_000,
    20,
  );
  expect(
    progress.get(callId)?.status,
    JSON.stringify([progress.timeline(callId), row(callId), t.logs.filter((l) => l.level !== 'debug').slice(-15)]),
  ).toBe('ringing');
  const dialedAt = progress.timeline(callId).find((e) => e.event === 'dialing')!.at;

  const cutAt = Date.now();
  const destroyed = proxy.cut(1_500);
  const back = await Promise.race([reconnected, new Promise<null>((r) => setTimeout(() => r(null), 15_000))]);
  expect(back, 'ringhook reconnected by itself').not.toBeNull();
  const reconnectMs = Date.now() - cutAt;
  // The channel still rings in Asterisk after the reconnect: the call is not ended early.
  const statusAfterReconnect = row(callId).status;
  expect(statusAfterReconnect).toBe('ringing');

  const r = await finalRow(callId, 30_000);
  const endedAfterDialMs = progress.timeline(callId).at(-1)!.at - dialedAt;
  await phone.stop();
  expect(r.status, JSON.stringify(progress.timeline(callId))).toBe('no_answer');

  // A new alert afterwards is placed (busy at a new SIPp).
  const phone2 = await startSipp({ scenario: 'busy', port: ast.trunkPort, calls: 1, timeoutSec: 30 });
  const res2 = await t.post(`/webhook/${a.userId}/${a.apiKey}`, 'alert after the reconnect');
  expect(res2.status).toBe(200);
  const r2 = await finalRow(res2.json.call_id, 20_000);
  const sipp2 = await phone2.done;
  expect(r2.status).toBe('busy');
  expect(sipp2.successfulCalls).toBe(1);
  console.log(
    'figures: ARI websocket cut',
    JSON.stringify({
      sockets_destroyed: destroyed,
      proxy_connections: proxy.connections(),
      reconnect_ms: reconnectMs,
      down_ms: back!.downMs,
      attempts: back!.attempts,
      status_after_reconnect: statusAfterReconnect,
      final: r.status,
      hangup_cause: r.hangup_cause,
      error: r.error,
      ended_after_dial_ms: endedAfterDialMs,
      timeline: progress.timeline(callId).map((e) => e.event),
      next: r2.status,
    }),
  );
  expect(t.takeErrorLogs()).toEqual([]); // the cut is a warning, not an error
}, 60_000);

it('ARI websocket cut for longer than the ring timeout during a ringing call: the lost end is found at the reconnect, the call is ended once and not redialed, the next alert is placed', async () => {
  t.takeErrorLogs(); // only what this test causes counts
  const ari = t.service.telephony!.ari;
  const ringTimeoutMs = t.config.telephony.ringTimeoutSec * 1000;
  const refuseMs = ringTimeoutMs + 2_000; // 7 s: Asterisk ends the channel while the socket is refused
  let reconnectedAt = 0;
  const reconnected = new Promise<{ downMs: number; attempts: number }>((resolve) =>
    ari.once('reconnected', (e) => {
      reconnectedAt = Date.now();
      resolve(e);
    }),
  );
  const phone = await startSipp({ scenario: 'ring-forever', port: ast.trunkPort, calls: 1, timeoutSec: 40 });
  let phoneDoneAt = 0;
  void phone.done.then(() => (phoneDoneAt = Date.now()));
  // SMS backup on, but this service has no SMS gateway: the backup is recorded as disabled.
  const a = await createAccount(t.service.stores.accounts, { phone: '+14155550124', smsBackup: true });
  const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, 'alert ringing while ARI is cut for long');
  expect(res.status, res.text).toBe(200);
  const callId = res.json.call_id as string;
  await waitFor(
    'the call to be ringing',
    () => (progress.get(callId)?.status === 'ringing' ? true : undefined),
    10_000,
    20,
  );
  expect(progress.get(callId)?.status, JSON.stringify([progress.timeline(callId), row(callId)])).toBe('ringing');
  const dialedAt = progress.timeline(callId).find((e) => e.event === 'dialing')!.at;
  await new Promise((r) => setTimeout(r, 1_000));

  const cutAt = Date.now();
  const destroyed = proxy.cut(refuseMs);
  const back = await Promise.race([reconnected, new Promise<null>((r) => setTimeout(() => r(null), 30_000))]);
  expect(back, 'ringhook reconnected by itself').not.toBeNull();
  // Asterisk ended the channel at its ring timeout, while ringhook could not hear it: the phone's
  // call (SIPp -m 1) was over before the socket came back, so its ChannelDestroyed was lost.
  await phone.done;
  expect(phoneDoneAt, 'the phone hung up before the reconnect').toBeLessThan(reconnectedAt);
  const statusAtReconnect = row(callId).status;

  // It must not stay ringing: ended at once after the reconnect (reconcile), well before the
  // give-up timer (ring timeout + 15 s after the dial) would have to.
  const r = await finalRow(callId, 30_000);
  const endedAfterReconnectMs = r.ended_at - reconnectedAt;
  const sms = await t.waitForCall(callId, smsSettled, 10_000);

  // A new alert afterwards is placed (busy at a new SIPp).
  const phone2 = await startSipp({ scenario: 'busy', port: ast.trunkPort, calls: 1, timeoutSec: 30 });
  const res2 = await t.post(`/webhook/${a.userId}/${a.apiKey}`, 'alert after the long cut');
  expect(res2.status).toBe(200);
  const r2 = await finalRow(res2.json.call_id, 20_000);
  const sipp2 = await phone2.done;
  await new Promise((res) => setTimeout(res, 1_000)); // a redial would show by now
  const timeline = progress.timeline(callId);
  const errors = t.takeErrorLogs();
  console.log(
    'figures: ARI websocket cut longer than the ring timeout',
    JSON.stringify({
      ring_timeout_ms: ringTimeoutMs,
      refuse_ms: refuseMs,
      sockets_destroyed: destroyed,
      cut_after_dial_ms: cutAt - dialedAt,
      reconnect_ms: reconnectedAt - cutAt,
      down_ms: back!.downMs,
      attempts: back!.attempts,
      phone_hung_up_after_cut_ms: phoneDoneAt - cutAt,
      status_at_reconnect: statusAtReconnect,
      final: r.status,
      error: r.error,
      ended_after_reconnect_ms: endedAfterReconnectMs,
      ended_after_dial_ms: r.ended_at - dialedAt,
      timeline: timeline.map((e) => (e.detail ? `${e.event}: ${e.detail}` : e.event)),
      sms_status: sms.sms_status,
      next: r2.status,
      error_logs: errors.length,
    }),
  );

  // Ended by the reconcile after the reconnect, with an error that says why; the SMS backup applies
  // (interrupted), and is recorded as disabled because there is no gateway.
  expect(r.status, JSON.stringify(timeline)).toBe('interrupted');
  expect(r.error).toBe(reasonText('events_lost'));
  expect(r.reason_detail).toMatch(/ended while the connection to Asterisk was down/);
  expect(r.ended_at).toBeGreaterThanOrEqual(reconnectedAt - 50);
  expect(endedAfterReconnectMs, 'ended by the reconcile, not left to the give-up timer').toBeLessThan(10_000);
  expect(sms.sms_status).toBe('disabled');
  expect(
    timeline.filter((e) => e.event.startsWith('sms_')),
    'no SMS sent',
  ).toEqual([]);
  // Not redialed, and its final state does not change afterwards.
  expect(timeline.filter((e) => e.event === 'dialing')).toHaveLength(1);
  expect(row(callId).status).toBe('interrupted');
  expect(r2.status).toBe('busy');
  expect(sipp2.successfulCalls).toBe(1);
  // The cut is a warning, not an error.
  expect(errors).toEqual([]);
}, 90_000);
