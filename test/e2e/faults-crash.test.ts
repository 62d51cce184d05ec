// kill -9 of a real `ringhook serve` (managed Asterisk, SIPp phone, Perl SMSC) in the middle of a
// load of alerts over several accounts. After the restart: every alert answered 200 is in the
// history (0 lost); no alert dialed twice (INVITEs counted at SIPp, before and after the restart);
// queued → dialed (or expired), in flight → interrupted; every missed call has exactly one SMS.
// Alerts waiting for the same phone ride in one call (one line per phone): a call is the group of
// alerts with the same carrier (carried_by, or the alert's own id when it led the call).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { request } from '../helpers/https-client.js';
import { freeTcpPort, freeUdpPort } from '../helpers/ports.js';
import { makeDataDir, managedTelephonyEnv } from '../helpers/service.js';
import { startSmsc, type Smsc } from '../helpers/smpp-server.js';
import {
  buildOnce,
  runCliJson,
  startCountingPhone,
  startServe,
  type CountingPhone,
  type ServeProcess,
} from '../soak/peers.js';

const ACCOUNTS = Number(process.env.RINGHOOK_CRASH_ACCOUNTS ?? 4);
/** Premium allows 10 alerts a minute per account. */
const PER_ACCOUNT = 10;
const IN_FLIGHT = new Set(['dialing', 'ringing', 'answered']);
const FINAL = new Set([
  'completed',
  'acknowledged',
  'busy',
  'no_answer',
  'unreachable',
  'rejected',
  'failed',
  'interrupted',
  'expired',
]);

let env: Record<string, string>;
let dataDir: string;
let serve: ServeProcess | null = null;
let phone: CountingPhone | null = null;
let smsc: Smsc;
let trunkPort: number;

beforeAll(async () => {
  await provisionAsterisk();
  buildOnce();
  smsc = await startSmsc({ receiptDelayS: 0 });
  dataDir = makeDataDir('rh-crash-');
  trunkPort = await freeUdpPort();
  env = {
    ...(await managedTelephonyEnv(trunkPort)),
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(await freeTcpPort()),
    RINGHOOK_MAX_CALLS: '3',
    RINGHOOK_RING_TIMEOUT: '20',
    RINGHOOK_SMS_GATEWAY: 'smpp',
    RINGHOOK_SMPP_URL: smsc.url(),
    RINGHOOK_SMS_FROM: 'ringhook',
  };
}, 300_000);

afterAll(async () => {
  await phone?.stop();
  await serve?.stop();
  await smsc?.stop();
});

interface Row {
  call_id: string;
  status: string;
  user_id: string;
  message: string;
  sms_status: string | null;
  carrier: string;
}

function snapshot(): Map<string, Row> {
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true });
  try {
    const rows = db
      .prepare(
        'SELECT call_id, status, user_id, message, sms_status, coalesce(carried_by, call_id) AS carrier FROM calls WHERE accepted = 1 ORDER BY received_at, rowid',
      )
      .all() as Row[];
    return new Map(rows.map((r) => [r.call_id, r]));
  } finally {
    db.close();
  }
}

it(`kill -9 during ${ACCOUNTS * PER_ACCOUNT} alerts over ${ACCOUNTS} accounts: 0 lost, 0 dialed twice, recovery rules hold, one SMS per missed call`, async () => {
  serve = await startServe(env);
  const ca = fs.readFileSync(path.join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8');
  const base = `https://127.0.0.1:${env.RINGHOOK_PORT}`;
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) =>
    runCliJson(
      [
        'account',
        'create',
        '--phone',
        `+1415555${String(100 + i).padStart(4, '0')}`,
        '--plan',
        'premium',
        '--sms-backup',
        'on',
      ],
      env,
    ),
  ) as Array<{ user_id: string; api_key: string; phone: string }>;
  phone = await startCountingPhone(trunkPort, 1500);

  // The load: every account sends its alerts one after the other, all accounts at once. serve is
  // killed when about half have been answered; the requests in flight then fail (not 200).
  const answered = new Map<string, string>(); // call_id → message
  let failedRequests = 0;
  let killed: Promise<number | null> | null = null;
  const total = ACCOUNTS * PER_ACCOUNT;
  await Promise.all(
    accounts.map(async (a, k) => {
      for (let i = 0; i < PER_ACCOUNT; i++) {
        const message = `crash test alert ${i} of account ${k}`;
        try {
          const res = await request(`${base}/webhook/${a.user_id}/${a.api_key}`, {
            method: 'POST',
            body: message,
            headers: { 'content-type': 'text/plain' },
            ca,
          });
          if (res.status === 200) answered.set(res.json.call_id, message);
          else failedRequests++;
        } catch {
          failedRequests++;
        }
        if (!killed && answered.size >= total / 2) killed = serve!.stop('SIGKILL');
      }
    }),
  );
  expect(await killed).toBeNull();
  const atKill = snapshot();
  const before = await phone.stop();
  phone = await startCountingPhone(trunkPort, 100);

  serve = await startServe(env);
  // Wait (bounded) until every call has reached a final state and every missed call its SMS.
  const deadline = Date.now() + 90_000;
  let now = snapshot();
  while (
    [...now.values()].some(
      (c) => !FINAL.has(c.status) || (['busy', 'interrupted'].includes(c.status) && !c.sms_status),
    ) &&
    Date.now() < deadline
  ) {
    await new Promise((r) => setTimeout(r, 200));
    now = snapshot();
  }
  const after = await phone.stop();
  phone = null;

  // 0 lost: every alert answered 200 is in the history, with its message.
  for (const [callId, message] of answered) expect(now.get(callId)?.message, callId).toBe(message);
  // Every call is final.
  expect([...now.values()].filter((c) => !FINAL.has(c.status))).toEqual([]);
  // Recovery rules.
  const queuedAtKill = [...atKill.entries()].filter(([, c]) => c.status === 'queued');
  const inFlightAtKill = [...atKill.entries()].filter(([, c]) => IN_FLIGHT.has(c.status));
  const finalAtKill = [...atKill.entries()].filter(([, c]) => FINAL.has(c.status));
  for (const [id] of queuedAtKill) expect(['busy', 'expired']).toContain(now.get(id)!.status);
  for (const [id] of inFlightAtKill) expect(now.get(id)!.status).toBe('interrupted');
  for (const [id, c] of finalAtKill) expect(now.get(id)!.status).toBe(c.status);
  // 0 dialed twice: after the restart each number got exactly one INVITE per call made of alerts
  // queued at the kill; before it, at most one per call that had left the queue.
  const calls = (list: Array<[string, Row]>, userId: string) =>
    new Set(
      list
        .filter(([id]) => now.get(id)!.user_id === userId && now.get(id)!.status !== 'expired')
        .map(([id]) => now.get(id)!.carrier),
    ).size;
  for (const a of accounts) {
    expect(after.get(a.phone)?.size ?? 0, `INVITEs to ${a.phone} after the restart`).toBe(
      calls(queuedAtKill, a.user_id),
    );
    const sentBefore = before.get(a.phone)?.size ?? 0;
    expect(sentBefore).toBeGreaterThanOrEqual(calls(finalAtKill, a.user_id));
    expect(sentBefore).toBeLessThanOrEqual(calls([...finalAtKill, ...inFlightAtKill], a.user_id));
  }
  // One SMS per missed call (busy or interrupted), none twice; a merged call's SMS lists its alerts.
  const texts = smsc
    .events()
    .filter((e) => e.event === 'message')
    .map((e) => String(e.text));
  const missed = new Map<string, Row[]>();
  for (const c of now.values()) {
    if (['busy', 'interrupted'].includes(c.status)) missed.set(c.carrier, [...(missed.get(c.carrier) ?? []), c]);
  }
  for (const [carrier, group] of missed) {
    const lead = now.get(carrier)!;
    const expected =
      group.length === 1
        ? `Missed call alert: ${lead.message}`
        : `Missed call, ${group.length} alerts: 1) ${lead.message}`;
    expect(texts.filter((t) => t.startsWith(expected) && (group.length > 1 || t === expected)).length, expected).toBe(
      1,
    );
  }
  expect(texts.length).toBe(missed.size);
  console.log(
    'figures: kill -9',
    JSON.stringify({
      answered_200: answered.size,
      failed_requests: failedRequests,
      in_history: now.size,
      queued_at_kill: queuedAtKill.length,
      in_flight_at_kill: inFlightAtKill.length,
      final_at_kill: finalAtKill.length,
      invites_before: [...before.values()].reduce((n, s) => n + s.size, 0),
      invites_after: [...after.values()].reduce((n, s) => n + s.size, 0),
      calls_after: [...new Set([...queuedAtKill].map(([id]) => now.get(id)!.carrier))].length,
      sms: texts.length,
    }),
  );
}, 240_000);
