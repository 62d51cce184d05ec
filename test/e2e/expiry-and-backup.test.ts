// An alert's own expiry and the backup person (#54) against a real `ringhook serve` (managed
// Asterisk), SIPp phones at the trunk and the Perl SMSC (SMPP): an alert whose `expires_in` passes
// while its phone's line is taken ends `expired` with no INVITE and no SMS; a call missed at every
// attempt is called once at the account's verified backup number, whose 1 acknowledges it; a
// backup number that never agreed is never called.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { request } from '../helpers/https-client.js';
import { freeTcpPort, freeUdpPort } from '../helpers/ports.js';
import { makeDataDir, managedTelephonyEnv } from '../helpers/service.js';
import { sipDialogs } from '../helpers/sip-trace.js';
import { type SippOptions, type SippPhone, startSipp, stopAllSipp } from '../helpers/sipp.js';
import { startSmsc, type Smsc } from '../helpers/smpp-server.js';
import { waitFor } from '../helpers/wait.js';
import { buildOnce, runCliJson, type ServeProcess, startServe } from '../soak/peers.js';

const CALLER_ID = '+14155550100';
/** Generous bounds: the machine may be loaded by other test files. */
const CALL_MS = 120_000;

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
  dataDir = makeDataDir('rh-expiry-backup-');
  trunkPort = await freeUdpPort();
  env = {
    ...(await managedTelephonyEnv(trunkPort)),
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(await freeTcpPort()),
    // Long enough for an alert's 10 s expiry to pass while another call rings its phone.
    RINGHOOK_RING_TIMEOUT: '14',
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

type Row = Record<string, any>;

function query<T>(sql: string, ...params: unknown[]): T | undefined {
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true });
  try {
    return db.prepare(sql).get(...params) as T | undefined;
  } finally {
    db.close();
  }
}

const row = (callId: string) => query<Row>('SELECT * FROM calls WHERE call_id = ?', callId);

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

async function alert(a: { user_id: string; api_key: string }, body: string | object): Promise<string> {
  const res = await request(`${base}/webhook/${a.user_id}/${a.api_key}`, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' },
    ca,
  });
  expect(res.status, res.text).toBe(200);
  // The webhook's answer is the one it always was.
  expect(Object.keys(res.json).sort()).toEqual(['call_id', 'message', 'success', 'timestamp', 'truncated']);
  return res.json.call_id as string;
}

const smsWith = (text: string) =>
  smsc.events().filter((e) => e.event === 'message' && JSON.stringify(e).includes(text));

const phone = (scenario: SippOptions['scenario'], calls = 1, extra: Partial<SippOptions> = {}): Promise<SippPhone> =>
  startSipp({ scenario, port: trunkPort, calls, timeoutSec: 300, traceMessages: true, ...extra });

it('expires_in: 10 behind a busy line: the alert ends expired when the line frees, with no INVITE and no SMS', async () => {
  const PHONE = '+14155550301';
  const a = account(PHONE);
  const ringing = await phone('ring-forever', 2);
  const first = await alert(a, 'ZN1! first alert, ringing the phone');
  await waitRow('the first call ringing', first, (r) => r.status === 'ringing');
  const second = await alert(a, { message: 'GC1! gold above 2100', expires_in: 10 });
  const expired = await waitRow('the second alert expired', second, (r) => r.status === 'expired');
  await waitRow('the first call ended, its SMS sent', first, (r) => /^(sent|delivered)$/.test(r.sms_status ?? ''));
  const atPhone = await ringing.stop();
  // One INVITE: the first alert's. The second never left the queue.
  expect(sipDialogs(atPhone.messages).map((d) => d.to)).toEqual([PHONE]);
  expect(expired).toMatchObject({ dialed_at: null, expires_in: 10, sms_status: 'disabled' });
  expect(expired.error).toMatch(/expired before it could \(its sender's expires_in, 10 s\)/);
  expect(expired.sms_error).toMatch(/expired/);
  // It ended no sooner than its expiry, when the line was free (the first call rang 14 s).
  expect(expired.ended_at).toBeGreaterThanOrEqual(expired.received_at + 10_000);
  expect(smsWith('GC1!')).toHaveLength(0);
  expect(smsWith('ZN1!')).toHaveLength(1);
}, 300_000);
