// Ring again (#54) against a real `ringhook serve` (managed Asterisk), SIPp phones at the trunk and
// the Perl SMSC (SMPP): a missed call's alert is called again from the same caller ID, its SMS
// backup goes out once, after the first miss; kill -9 between two attempts neither loses nor
// doubles one; an account left at the default still gets exactly one call.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { request } from '../helpers/https-client.js';
import { freeTcpPort, freeUdpPort } from '../helpers/ports.js';
import { makeDataDir, managedTelephonyEnv } from '../helpers/service.js';
import { sipDialogs } from '../helpers/sip-trace.js';
import { type SippPhone, startSipp, stopAllSipp } from '../helpers/sipp.js';
import { startSmsc, type Smsc } from '../helpers/smpp-server.js';
import { waitFor } from '../helpers/wait.js';
import { buildOnce, runCliJson, type ServeProcess, startServe } from '../soak/peers.js';

const CALLER_ID = '+14155550100';
/** Generous bounds: the machine may be loaded by other test files. */
const CALL_MS = 90_000;

let env: Record<string, string>;
let dataDir: string;
let serve: ServeProcess | null = null;
let smsc: Smsc;
let trunkPort: number;
let base: string;
let ca: string;

beforeAll(async () => {
  await provisionAsterisk();
  buildOnce();
  smsc = await startSmsc({ receiptDelayS: 0 });
  dataDir = makeDataDir('rh-ring-again-');
  trunkPort = await freeUdpPort();
  env = {
    ...(await managedTelephonyEnv(trunkPort)),
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(await freeTcpPort()),
    RINGHOOK_RING_TIMEOUT: '6',
    RINGHOOK_CALLER_ID: CALLER_ID,
    RINGHOOK_SMS_GATEWAY: 'smpp',
    RINGHOOK_SMPP_URL: smsc.url(),
    RINGHOOK_SMS_FROM: 'ringhook',
  };
  serve = await startServe(env);
  ca = fs.readFileSync(path.join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8');
  base = `https://127.0.0.1:${env.RINGHOOK_PORT}`;
}, 300_000);

afterEach(async () => {
  await stopAllSipp();
});

afterAll(async () => {
  await serve?.stop();
  await smsc?.stop();
});

interface Row {
  status: string;
  attempt: number;
  retry_at: number | null;
  attempts: string | null;
  sms_status: string | null;
  dialed_at: number | null;
}

function row(callId: string): Row | undefined {
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true });
  try {
    return db
      .prepare('SELECT status, attempt, retry_at, attempts, sms_status, dialed_at FROM calls WHERE call_id = ?')
      .get(callId) as Row | undefined;
  } finally {
    db.close();
  }
}

const waitRow = (what: string, callId: string, ok: (r: Row) => boolean, timeoutMs = CALL_MS) =>
  waitFor(
    what,
    () => {
      const r = row(callId);
      return r && ok(r) ? r : undefined;
    },
    timeoutMs,
    200,
  );

function account(phone: string, ...options: string[]): { user_id: string; api_key: string } {
  return runCliJson(
    ['account', 'create', '--phone', phone, '--plan', 'premium', '--sms-backup', 'on', ...options],
    env,
  );
}

async function alert(a: { user_id: string; api_key: string }, message: string): Promise<string> {
  const res = await request(`${base}/webhook/${a.user_id}/${a.api_key}`, {
    method: 'POST',
    body: message,
    headers: { 'content-type': 'text/plain' },
    ca,
  });
  expect(res.status).toBe(200);
  // The webhook's answer is the one it always was.
  expect(Object.keys(res.json).sort()).toEqual(['call_id', 'message', 'success', 'timestamp', 'truncated']);
  return res.json.call_id as string;
}

/** The From header of every INVITE the phone got. */
function invitesFrom(log: string): string[] {
  return [...log.matchAll(/^INVITE sip:[^\n]*\n(?:[^\n]+\n)*?From:\s*([^\n]+)/gim)].map((m) => m[1]!.trim());
}

const smsTo = (phone: string) =>
  smsc.events().filter((e) => e.event === 'message' && String(e.destination_addr ?? '').endsWith(phone.slice(2)));

const phone = (scenario: 'ring-forever' | 'dtmf-1', calls = 1): Promise<SippPhone> =>
  startSipp({ scenario, port: trunkPort, calls, timeoutSec: 240, traceMessages: true });

it('a first call that rings out is tried again from the same caller ID; the second is answered and 1 acknowledges; one SMS, after the first miss', async () => {
  const PHONE = '+14155550201';
  const a = account(PHONE, '--ring-again', '1', '--ring-again-after', '20');
  const smsBefore = smsTo(PHONE).length;
  const first = await phone('ring-forever');
  const callId = await alert(a, 'ES1! broke 6000');
  const missed = await waitRow(
    'the first call missed and rung again',
    callId,
    (r) => r.status === 'queued' && r.attempt === 2,
  );
  const atFirst = await first.stop();
  // The SMS backup keeps its timing: after the first miss, before the second call.
  await smsc.waitForEvent((e) => e.event === 'message' && smsTo(PHONE).length > smsBefore, { timeoutMs: CALL_MS });
  const second = await phone('dtmf-1');
  const done = await waitRow('the second call acknowledged', callId, (r) => r.status === 'acknowledged');
  const atSecond = await second.stop();
  const [call1] = sipDialogs(atFirst.messages);
  const [call2] = sipDialogs(atSecond.messages);
  expect(sipDialogs(atFirst.messages).map((d) => d.to)).toEqual([PHONE]);
  expect(sipDialogs(atSecond.messages).map((d) => d.to)).toEqual([PHONE]);
  // Within iOS's three minutes of the first call's start, and not before the gap asked for.
  const gapMs = call2!.startedAt - call1!.startedAt;
  console.log(`ring again: second INVITE ${gapMs} ms after the first (asked: 20 s)`);
  expect(gapMs).toBeGreaterThanOrEqual(19_000);
  expect(gapMs).toBeLessThanOrEqual(170_000);
  const from = [...invitesFrom(atFirst.messages), ...invitesFrom(atSecond.messages)];
  expect(from).toHaveLength(2);
  for (const f of from) expect(f).toContain(CALLER_ID);
  expect(JSON.parse(missed.attempts!)).toEqual([{ at: expect.any(Number), outcome: 'no_answer' }]);
  expect(done).toMatchObject({ attempt: 2, sms_status: expect.stringMatching(/^(sent|delivered)$/) });
  expect(smsTo(PHONE).length - smsBefore).toBe(1);
  // The plan counts the alert once, not once per call.
  expect(runCliJson(['account', 'show', a.user_id], env)).toMatchObject({ calls_this_month: 1 });
  // The history shows each attempt.
  const history = runCliJson(['calls', '--account', a.user_id], env) as Array<Record<string, unknown>>;
  expect(history.find((c) => c.call_id === callId)).toMatchObject({
    status: 'acknowledged',
    attempt: 2,
    earlier_attempts: [{ at: expect.any(String), outcome: 'no_answer' }],
  });
}, 300_000);

it('kill -9 of serve between two attempts: after the restart the attempt happens exactly once', async () => {
  const PHONE = '+14155550202';
  const a = account(PHONE, '--ring-again', '1', '--ring-again-after', '60');
  const first = await phone('ring-forever');
  const callId = await alert(a, 'NQ1! under 21000');
  const scheduled = await waitRow('the retry scheduled', callId, (r) => r.status === 'queued' && r.attempt === 2);
  await first.stop();
  expect(await serve!.stop('SIGKILL')).toBeNull();
  // Two calls may come in: the second would be the double.
  const second = await phone('dtmf-1', 2);
  serve = await startServe(env);
  const done = await waitRow('the attempt after the restart', callId, (r) => r.status === 'acknowledged');
  // Nothing else is due for this alert: it is final. Its INVITEs are all in the log once SIPp stops.
  const atSecond = await second.stop();
  expect(sipDialogs(atSecond.messages).map((d) => d.to)).toEqual([PHONE]);
  expect(sipDialogs(atSecond.messages)[0]!.startedAt).toBeGreaterThanOrEqual(scheduled.retry_at! - 1_000);
  expect(done.attempt).toBe(2);
}, 300_000);

it('an account left at the default: exactly one INVITE, the call ends final, with its one SMS', async () => {
  const PHONE = '+14155550203';
  const a = account(PHONE);
  const smsBefore = smsTo(PHONE).length;
  const ringing = await phone('ring-forever', 2);
  const callId = await alert(a, 'CL1! above 80');
  const done = await waitRow('the call ended', callId, (r) => r.status === 'no_answer' && r.sms_status !== null);
  await smsc.waitForEvent((e) => e.event === 'message' && smsTo(PHONE).length > smsBefore, { timeoutMs: CALL_MS });
  const atPhone = await ringing.stop();
  expect(sipDialogs(atPhone.messages).map((d) => d.to)).toEqual([PHONE]);
  expect(done).toMatchObject({ attempt: 1, retry_at: null, attempts: null });
  expect(smsTo(PHONE).length - smsBefore).toBe(1);
}, 300_000);
