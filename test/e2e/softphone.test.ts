// ringhook without a SIP trunk (what `npm start` gives a new user): calls go to the local softphone
// extension of the managed Asterisk (PJSIP/<RINGHOOK_SOFTPHONE_USER>, default ringhook). A real SIP
// phone (SIPp) registers to it with digest authentication as the README tells a user to (From/To
// user and auth user RINGHOOK_SOFTPHONE_USER; before the endpoint carried that name, Asterisk found
// no endpoint for such a REGISTER and answered 401 as to a wrong password), the password
// ringhook prints or keeps in the data dir), then alerts ring it: it refuses (486 → busy), answers
// (→ completed, ringhook's speech heard at the phone). A phone with a wrong password is refused
// (401 again) and an alert while nothing is registered ends unreachable.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import { SqliteCallProgressStore } from '../../src/store/sqlite/progress.js';
import { endpointFor } from '../../src/app/telephony.js';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { runCli } from '../helpers/cli.js';
import { freeUdpPort } from '../helpers/ports.js';
import { startRtpSink } from '../helpers/rtp-sink.js';
import {
  callEnded,
  managedTelephonyEnv,
  realClock,
  sqliteDb,
  startTestService,
  type TestService,
} from '../helpers/service.js';
import { startSipp, stopAllSipp, type SippResult } from '../helpers/sipp.js';
import { createAccount } from '../helpers/accounts.js';
import { reasonText } from '../../src/core/reasons.js';

let t: TestService;
let progress: SqliteCallProgressStore;
/** What the CLI (doctor) needs to reach the same service. */
let cliEnv: Record<string, string>;
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  await provisionAsterisk();
  const env = await managedTelephonyEnv(0);
  delete (env as Record<string, string | undefined>).RINGHOOK_TRUNK_URI;
  t = await startTestService({ ...env, RINGHOOK_RING_TIMEOUT: '5' }, realClock());
  cliEnv = { ...env, RINGHOOK_DATA_DIR: t.dataDir };
  progress = new SqliteCallProgressStore(sqliteDb(t.service.stores));
}, 300_000);

afterAll(async () => {
  await stopAllSipp();
  await t?.stop();
  console.log(`figures: softphone ${JSON.stringify(figures)}`);
});

afterEach(async () => {
  await stopAllSipp();
  expect(t.takeErrorLogs().map((line) => JSON.stringify(line))).toEqual([]);
});

const softphone = () => t.service.telephony!.softphone!;
const asteriskSip = () => `${t.config.telephony.sip.host}:${t.config.telephony.sip.port}`;
/** The endpoint ringhook dials without a trunk (PJSIP/softphone), and its state in Asterisk. */
const endpointState = async () => {
  const { technology, resource } = endpointFor(t.config.telephony)('+14155550123');
  return (await t.service.telephony!.ari.getEndpoint(technology, resource)).state;
};
const events = (callId: string) => progress.timeline(callId).map((e) => e.event);

/** REGISTERs from `port` as the softphone user, with this password, for `expires` seconds. */
async function register(port: number, password: string, expires = 3600): Promise<SippResult> {
  const phone = await startSipp({
    scenario: 'register',
    port,
    remote: asteriskSip(),
    service: softphone().username,
    auth: { username: softphone().username, password },
    keys: { expires },
    timeoutSec: 20,
  });
  return phone.done;
}

/** The status line of the last response in SIPp's unexpected-message log, e.g. "SIP/2.0 401 Unauthorized". */
const refusal = (r: SippResult) =>
  [...r.errors.matchAll(/received 'SIP\/2\.0 (\d{3})/g)].map((m) => Number(m[1])).at(-1);

async function account(): Promise<Account> {
  return createAccount(t.service.stores.accounts, { requireConfirm: false });
}

async function sendAlert(message: string): Promise<string> {
  const a = await account();
  const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, JSON.stringify({ message, ticker: 'AAPL' }), {
    'content-type': 'application/json',
  });
  expect(res.status, res.text).toBe(200);
  return res.json.call_id as string;
}

describe('the local softphone (no trunk)', () => {
  it('a wrong password is refused; with nothing registered an alert ends unreachable', async () => {
    const port = await freeUdpPort();
    const r = await register(port, `${softphone().password}-wrong`);
    figures.wrongPassword = { exit: r.exitCode, response: refusal(r) };
    expect(r.exitCode, r.errors).not.toBe(0);
    expect([401, 403]).toContain(refusal(r));
    const state = await endpointState();
    figures.wrongPassword = { ...(figures.wrongPassword as object), endpoint: state };
    expect(state).toBe('offline');
    // doctor says no phone is registered, and how to register one.
    const doctor = runCli(['doctor'], cliEnv);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(
      /FAIL\s+trunk\s+no RINGHOOK_TRUNK_URI, and calls end unreachable: No phone is registered as ringhook, so nothing could ring: register a softphone/,
    );
    expect(doctor.stdout).toMatch(/fix: register a SIP phone at sip:127\.0\.0\.1:\d+ as ringhook/);

    const callId = await sendAlert('nobody registered');
    const row = await t.waitForCall(callId, callEnded, 20_000);
    figures.unregistered = {
      status: row.status,
      error: row.error,
      reason_detail: row.reason_detail,
      events: events(callId),
    };
    expect(row.status).toBe('unreachable');
    // What a new user reads in the history, and what the admin gets beside it.
    expect(row.error).toBe(
      'No phone is registered as ringhook, so nothing could ring: register a softphone app (Linphone, Zoiper) as user ringhook on this server, or set a SIP trunk to call real phones.',
    );
    expect(row.error).toBe(reasonText('softphone_not_registered', { softphone: 'ringhook' }));
    expect(row.reason_detail).toMatch(
      /^originate failed: ARI POST \/channels\/rh-call_\S+ failed: HTTP 500 \(Allocation failed\)$/,
    );
    // doctor tells the last call's reason, with what to do.
    const after = (
      runCli(['doctor', '--json'], cliEnv).json as Array<{ name: string; ok: unknown; fix?: string }>
    ).find((c) => c.name === 'last-call');
    expect(after).toMatchObject({ ok: false, fix: row.error });
    expect(events(callId).filter((e) => e === 'dialing')).toHaveLength(1);
  }, 60_000);

  it('registers with the right password: the endpoint is online', async () => {
    const port = await freeUdpPort();
    const r = await register(port, softphone().password);
    figures.register = { exit: r.exitCode, ok: r.successfulCalls };
    expect(r.exitCode, `${r.errors}\n${r.screen.slice(-1500)}`).toBe(0);
    expect(r.successfulCalls).toBe(1);
    const state = await endpointState();
    figures.register = { ...(figures.register as object), endpoint: state };
    expect(state).toBe('online');
    const doctor = runCli(['doctor', '--json'], cliEnv);
    expect(
      (doctor.json as Array<{ name: string; ok: unknown; detail: string }>).find((c) => c.name === 'trunk'),
    ).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/softphone "ringhook", which is registered/),
    });
  }, 60_000);

  it('an alert rings the registered phone; it refuses (486) → busy', async () => {
    const port = await freeUdpPort();
    expect((await register(port, softphone().password)).exitCode).toBe(0);
    const phone = await startSipp({ scenario: 'busy', port, timeoutSec: 30 });
    const callId = await sendAlert('AAPL sell signal');
    const row = await t.waitForCall(callId, callEnded, 30_000);
    const sipp = await phone.stop();
    figures.busy = { status: row.status, sip: row.sip_code, phoneCalls: sipp.successfulCalls, events: events(callId) };
    expect(row.status, JSON.stringify(events(callId))).toBe('busy');
    expect(row.sip_code).toBe(486);
    expect(row.answered_at).toBeNull();
    expect(sipp.successfulCalls).toBe(1);
  }, 60_000);

  it('an alert rings the registered phone; it answers → completed, speech heard', async () => {
    const port = await freeUdpPort();
    expect((await register(port, softphone().password)).exitCode).toBe(0);
    const sink = await startRtpSink(await freeUdpPort());
    const phone = await startSipp({ scenario: 'answer', port, keys: { rtp_sink_port: sink.port }, timeoutSec: 60 });
    const callId = await sendAlert('AAPL broke resistance at 187.2');
    const row = await t.waitForCall(callId, callEnded, 45_000);
    const sipp = await phone.stop();
    const rtp = sink.stats();
    await sink.close();
    const heardMs = Math.round((rtp.audioBytes / 8000) * 1000);
    figures.answered = {
      status: row.status,
      hangup: row.hangup_cause,
      talkMs: row.talk_ms,
      heardMs,
      loud: rtp.loudPackets,
      phoneCalls: sipp.successfulCalls,
      events: events(callId),
    };
    expect(row.status, JSON.stringify(events(callId))).toBe('completed');
    expect(row.hangup_cause).toBe(16);
    expect(heardMs).toBeGreaterThan(4000);
    expect(rtp.loudPackets).toBeGreaterThan(50);
  }, 90_000);
});
