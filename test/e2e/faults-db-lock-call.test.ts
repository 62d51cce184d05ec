// The dialer's writes under lock contention: a second process holds SQLite's write lock
// (BEGIN IMMEDIATE, 7 s, longer than the connection's 5 s busy timeout) while a call rings (SIPp
// ring-forever, ring timeout 5 s) and ends. The call's writes wait without blocking the event loop,
// so the webhook keeps answering (200, or 503 after its own 1 s wait), and every transition of the
// call is recorded once the lock is gone: none lost, no crash. Before the dialer's writes were
// queued, its no_answer write blocked the loop for 5 s and then failed.
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SqliteCallProgressStore } from '../../src/store/sqlite/progress.js';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { freeUdpPort } from '../helpers/ports.js';
import {
  callEnded,
  managedTelephonyEnv,
  realClock,
  smsSettled,
  sqliteDb,
  sqliteOf,
  startTestService,
  type TestService,
} from '../helpers/service.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';
import { holdWriteLock } from '../helpers/db-lock.js';
import { createAccount } from '../helpers/accounts.js';
import { waitFor } from '../helpers/wait.js';
import { reasonText } from '../../src/core/reasons.js';

const HOLD_MS = 7_000;
let t: TestService;
let trunkPort: number;
let progress: SqliteCallProgressStore;

beforeAll(async () => {
  await provisionAsterisk();
  trunkPort = await freeUdpPort();
  t = await startTestService({ ...(await managedTelephonyEnv(trunkPort)), RINGHOOK_RING_TIMEOUT: '5' }, realClock());
  progress = new SqliteCallProgressStore(sqliteDb(t.service.stores));
}, 300_000);

afterAll(async () => {
  await stopAllSipp();
  await t?.stop();
});

it('a write lock held 7 s while a call rings and ends: the webhook answers within budget, every transition is recorded', async () => {
  const phone = await startSipp({ scenario: 'ring-forever', port: trunkPort, calls: 1, timeoutSec: 40 });
  const caller = await createAccount(t.service.stores.accounts);
  const other = await createAccount(t.service.stores.accounts, { phone: '+14155550124' });
  const first = await t.post(`/webhook/${caller.userId}/${caller.apiKey}`, 'alert placed under a write lock');
  expect(first.status, first.text).toBe(200);
  const callId = first.json.call_id as string;
  // Take the lock 3.5 s after the dial, so the ring timeout (5 s) ends the call while it is held:
  // the dialer's no_answer write (and the SMS decision) have to wait for it.
  await waitFor(
    'the call to be ringing',
    () => (progress.get(callId)?.status === 'ringing' ? true : undefined),
    10_000,
    20,
  );
  const dialedAt = progress.timeline(callId).find((e) => e.event === 'dialing')!.at;
  await new Promise((r) => setTimeout(r, Math.max(0, dialedAt + 3_500 - Date.now())));
  const lockedAt = Date.now();
  const lock = await holdWriteLock(path.join(t.dataDir, 'ringhook.db'), HOLD_MS);
  let released = false;
  void lock.released.then(() => (released = true));
  const statusAtLock = progress.get(callId)?.status;
  const replies: Array<{ status: number; code?: string; ms: number }> = [];
  for (let i = 0; i < 30 && !released && Date.now() - lockedAt < HOLD_MS + 3_000; i++) {
    const sent = Date.now();
    const res = await t.post(`/webhook/${other.userId}/${other.apiKey}`, `probe ${i} during the lock`);
    replies.push({ status: res.status, code: res.json?.code, ms: Date.now() - sent });
    await new Promise((r) => setTimeout(r, 100));
  }
  await lock.released;
  const releasedMs = Date.now() - lockedAt;

  // The call goes on: it rings and ends at the ring timeout.
  const row = await t.waitForCall(callId, callEnded, 25_000);
  const finalMs = Date.now() - lockedAt;
  const endedInLock = progress.timeline(callId).find((e) => e.event === 'no_answer')!.at - lockedAt;
  await phone.stop();
  const timeline = progress.timeline(callId).map((e) => e.event);
  console.log(
    'figures: write lock during a call',
    JSON.stringify({
      hold_ms: HOLD_MS,
      status_at_lock: statusAtLock,
      lock_after_dial_ms: lockedAt - dialedAt,
      no_answer_recorded_ms: endedInLock,
      released_ms: releasedMs,
      final: row.status,
      final_ms: finalMs,
      timeline,
      probes: replies.length,
      ok: replies.filter((r) => r.status === 200).length,
      unavailable: replies.filter((r) => r.status === 503).length,
      max_ms: Math.max(...replies.map((r) => r.ms)),
    }),
  );

  expect(replies.length).toBeGreaterThan(0);
  for (const r of replies) {
    expect([200, 503], JSON.stringify(r)).toContain(r.status);
    if (r.status === 503) expect(r.code).toBe('unavailable');
    // TradingView's budget is 3 s; the webhook waits 1 s for the lock from the request's arrival.
    expect(r.ms, 'within the sender budget').toBeLessThan(3_000);
  }
  // Exactly the probes answered 200 are in the history.
  expect((await t.service.stores.calls.list({ userId: other.userId, limit: 1000 })).length).toBe(
    replies.filter((r) => r.status === 200).length,
  );
  expect(statusAtLock).toBe('ringing');
  expect(row.status).toBe('no_answer');
  // The no_answer write waited for the lock (recorded once it was released, not lost), and the
  // webhook went on answering meanwhile (a 503 takes its own 1 s wait, not the dialer's).
  expect(endedInLock).toBeGreaterThanOrEqual(HOLD_MS - 100);
  // Every step is on the timeline, in order, once.
  expect(timeline.filter((e) => ['queued', 'dialing', 'ringing', 'no_answer'].includes(e))).toEqual(
    ['queued', 'dialing', 'ringing', 'no_answer'].filter((e) => e !== 'queued' || timeline.includes('queued')),
  );
  expect(t.errorLogs()).toEqual([]);
}, 60_000);

it('a call the database shows ringing with no call behind it (its end never recorded) is ended by the sweeper', async () => {
  const owner = await createAccount(t.service.stores.accounts, { phone: '+14155550125' });
  // Stand-in for a lost write (named so; a real disk error at exactly that write cannot be aimed):
  // the row is moved to ringing directly, in one turn of the loop, so the dialer never dials it.
  const accepted = sqliteOf(t.service.stores).calls.acceptNow(owner.userId, 'premium', {
    form: 'text',
    message: 'orphan',
    truncated: false,
    originalLength: 6,
    fields: {},
    extra: {},
  });
  if (!accepted.accepted) throw new Error('not accepted');
  const { callId } = accepted;
  progress.transition(callId, 'dialing');
  progress.transition(callId, 'ringing');
  const row = await t.waitForCall(callId, callEnded, 5_000);
  const timeline = progress.timeline(callId).map((e) => e.event);
  console.log(
    'figures: orphan call swept',
    JSON.stringify({
      status: row.status,
      error: row.error,
      sms: row.sms_status,
      timeline,
      swept_after_ms: row.ended_at - row.received_at,
    }),
  );
  expect(row.status).toBe('interrupted');
  expect(row.error).toBe(reasonText('end_not_recorded'));
  expect(row.reason_detail).toMatch(/its end was not recorded/);
  expect(timeline).toEqual(['dialing', 'ringing', 'interrupted']);
  expect((await t.waitForCall(callId, smsSettled, 5_000)).sms_status).toBe('disabled');
  expect(t.errorLogs()).toEqual([]);
}, 30_000);
