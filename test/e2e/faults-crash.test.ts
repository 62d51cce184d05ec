// kill -9 of a real `ringhook serve` (managed Asterisk, SIPp phone, Perl SMSC) in the middle of a
// load of alerts over several accounts. After the restart: every alert answered 200 is in the
// history (0 lost); no alert dialed twice (INVITEs counted at SIPp, before and after the restart);
// queued → dialed (or expired), in flight → interrupted; every missed alert's text reaches the SMS
// centre once. Alerts waiting for the same phone ride in one call (one line per phone): a call is the
// group of alerts with the same carrier (carried_by, or the alert's own id when it led the call).
// Which alerts ride together, and so which share an SMS, depends on when each arrived and on where
// the kill lands (between two of a call's writes, it may leave them to two SMS): the SMS are checked
// alert by alert, not against an expected grouping.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { SMS_NOT_SENT } from '../../src/core/reasons.js';
import { SMS_PREFIX } from '../../src/sms/text.js';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { request } from '../helpers/https-client.js';
import { freeUdpPort } from '../helpers/ports.js';
import { serveChildEnv } from '../helpers/service.js';
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
/** Missed: the SMS backup applies. */
const MISSED = new Set(['busy', 'interrupted']);
/** A claimed SMS on its way to the SMS centre, or waiting for it: not yet its outcome. */
const SMS_UNDER_WAY = new Set(['sending', 'waiting']);
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
  // A gateway that takes 0.2 s to answer each part: an SMS is claimed ('sending') well before the
  // SMS centre has it, so the check below must wait for each SMS's outcome, not its claim.
  smsc = await startSmsc({ receiptDelayS: 0, submitDelayS: 0.2 });
  trunkPort = await freeUdpPort();
  env = await serveChildEnv({
    dataDirPrefix: 'rh-crash-',
    trunkPort,
    smsc,
    extra: { RINGHOOK_MAX_CALLS: '3', RINGHOOK_RING_TIMEOUT: '20' },
  });
  dataDir = env.RINGHOOK_DATA_DIR!;
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
  sms_error: string | null;
  carrier: string;
}

function snapshot(): Map<string, Row> {
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true });
  try {
    const rows = db
      .prepare(
        'SELECT call_id, status, user_id, message, sms_status, sms_error, coalesce(carried_by, call_id) AS carrier FROM calls WHERE accepted = 1 ORDER BY received_at, rowid',
      )
      .all() as Row[];
    return new Map(rows.map((r) => [r.call_id, r]));
  } finally {
    db.close();
  }
}

it(`kill -9 during ${ACCOUNTS * PER_ACCOUNT} alerts over ${ACCOUNTS} accounts: 0 lost, 0 dialed twice, recovery rules hold, every missed alert in one SMS`, async () => {
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
  // Wait (bounded) until every call has reached a final state and every missed call's SMS its
  // outcome: sent (the SMS centre reports a message before it answers it), or not sent and why.
  const deadline = Date.now() + 90_000;
  const settled = (c: Row) =>
    FINAL.has(c.status) && (!MISSED.has(c.status) || (c.sms_status !== null && !SMS_UNDER_WAY.has(c.sms_status)));
  let now = snapshot();
  while ([...now.values()].some((c) => !settled(c)) && Date.now() < deadline) {
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
  // Every missed alert's text reaches the SMS centre exactly once, whatever SMS it rode in; the only
  // exception is an SMS claimed before the kill ('sending' then): it may have gone or not, and is
  // never sent again (at most once), its alert saying why. No SMS for an alert not missed, and an SMS
  // carries alerts of one call only, in order of arrival.
  const texts = smsc
    .events()
    .filter((e) => e.event === 'message')
    .map((e) => String(e.text));
  const smsAlerts = texts.map((text) => ({ text, messages: alertsIn(text) }));
  const byMessage = new Map([...now.values()].map((c) => [c.message, c]));
  const missed = [...now.values()].filter((c) => MISSED.has(c.status));
  for (const c of missed) {
    const times = smsAlerts.filter((s) => s.messages.includes(c.message)).length;
    const claimedAtKill = atKill.get(c.call_id)?.sms_status === 'sending';
    if (claimedAtKill && c.sms_status === 'failed') {
      expect(c.sms_error, c.call_id).toBe(SMS_NOT_SENT.stoppedHandingOver);
      expect(times, `${c.message}: SMS claimed at the kill, at most once`).toBeLessThanOrEqual(1);
    } else {
      expect(['sent', 'delivered'], `${c.message}: ${c.sms_status} ${c.sms_error}`).toContain(c.sms_status);
      expect(times, `${c.message}: in the SMS centre's messages`).toBe(1);
    }
  }
  for (const { text, messages } of smsAlerts) {
    const alerts = messages.map((m) => byMessage.get(m));
    expect(
      alerts.every((c) => c !== undefined && MISSED.has(c.status)),
      `an SMS for missed alerts only: ${text}`,
    ).toBe(true);
    expect(new Set(alerts.map((c) => c!.carrier)).size, `an SMS for one call: ${text}`).toBe(1);
    const order = alerts.map((c) => [...now.keys()].indexOf(c!.call_id));
    expect(order, `in order of arrival: ${text}`).toEqual([...order].sort((a, b) => a - b));
  }
  // How often a call's SMS carried exactly its alerts (kills between two writes split them).
  const callsMissed = new Set(missed.map((c) => c.carrier));
  const asCalled = smsAlerts.filter(
    ({ messages }) =>
      messages.length === missed.filter((c) => c.carrier === byMessage.get(messages[0]!)!.carrier).length,
  ).length;
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
      missed_calls: callsMissed.size,
      sms_as_called: asCalled,
      sms_not_sent: missed.filter((c) => c.sms_status === 'failed').length,
    }),
  );
}, 240_000);

/**
 * The alerts' messages in a missed-call SMS: "Missed call alert: <message>", or "Missed call, N
 * alerts: 1) <message> 2) <message> …" (src/sms/text.ts; these messages never hold "N) ").
 */
function alertsIn(text: string): string[] {
  if (text.startsWith(SMS_PREFIX)) return [text.slice(SMS_PREFIX.length)];
  const group = /^Missed call, (\d+) alerts: 1\) (.*)$/s.exec(text);
  if (!group) throw new Error(`not a missed-call SMS: ${text}`);
  const messages = group[2]!.split(/ \d+\) /);
  if (messages.length !== Number(group[1]))
    throw new Error(`${group[1]} alerts announced, ${messages.length} listed: ${text}`);
  return messages;
}
