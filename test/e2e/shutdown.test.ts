// Graceful shutdown with a call in progress: ringhook stops taking alerts,
// lets the answered call go on up to the grace period, then hangs it up. A call cut that way ends
// `interrupted` ("ringhook stopped during the call"), never `completed`, and its SMS backup goes
// out before the process is done (Kannel's SMSC receives it). Real peers: the managed Asterisk 22,
// a SIPp phone that answers (RTP to a sink), Kannel.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCallingService, type CallingService } from '../helpers/calling-service.js';
import { freeUdpPort } from '../helpers/ports.js';
import { startRtpSink } from '../helpers/rtp-sink.js';
import { startSipp, stopAllSipp } from '../helpers/sipp.js';
import { createAccount } from '../helpers/accounts.js';
import { waitFor } from '../helpers/wait.js';
import { reasonText } from '../../src/core/reasons.js';

const GRACE_MS = 1_500;
let calling: CallingService;

beforeAll(async () => {
  calling = await startCallingService();
}, 300_000);

afterAll(async () => {
  await stopAllSipp();
  await calling?.kannel.stop();
});

it('an answered call still going at the end of the grace period is hung up, ends interrupted, and its SMS goes out', async () => {
  const { t, kannel, trunkPort, progress } = calling;
  const sink = await startRtpSink(await freeUdpPort());
  const phone = await startSipp({ scenario: 'answer', port: trunkPort, keys: { rtp_sink_port: sink.port } });
  const a = await createAccount(t.service.stores.accounts, { smsBackup: true });
  const message = `cut by the shutdown ${Date.now()}`;
  const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, message);
  expect(res.status, res.text).toBe(200);
  const callId = res.json.call_id as string;
  await waitFor(
    'the call to be answered',
    () => (progress.get(callId)?.status === 'answered' ? true : undefined),
    15_000,
    20,
  );
  expect(progress.get(callId)?.status).toBe('answered');

  const before = kannel.messages().length;
  const started = Date.now();
  await t.service.stop(GRACE_MS);
  const stopMs = Date.now() - started;
  const sipp = await phone.stop();
  await sink.close();

  const db = new Database(path.join(t.dataDir, 'ringhook.db'), { readonly: true });
  const row = db
    .prepare('SELECT status, error, reason_detail, talk_ms, sms_status FROM calls WHERE call_id = ?')
    .get(callId) as Record<string, any>;
  const timeline = (
    db.prepare('SELECT event FROM call_events WHERE call_id = ? ORDER BY id').all(callId) as Array<{ event: string }>
  ).map((e) => e.event);
  db.close();
  const sms = await kannel.waitForMessages(before + 1);
  console.log(
    'figures: shutdown during a call',
    JSON.stringify({
      grace_ms: GRACE_MS,
      stop_ms: stopMs,
      ...row,
      timeline,
      phone: { ok: sipp.successfulCalls, failed: sipp.failedCalls },
    }),
  );

  // The call was given the grace period, not cut at once.
  expect(stopMs).toBeGreaterThanOrEqual(GRACE_MS - 100);
  expect(row.status, JSON.stringify(timeline)).toBe('interrupted');
  expect(row.error).toBe(reasonText('ringhook_stopped'));
  expect(row.reason_detail).toMatch(/^ringhook stopped during the call/);
  expect(row.sms_status).toMatch(/^(sent|delivered)$/);
  expect(sms.slice(before).map((m) => m.text)).toEqual([`Missed call alert: ${message}`]);
  expect(timeline.filter((e) => e === 'dialing')).toHaveLength(1);
  expect(t.errorLogs()).toEqual([]);
}, 60_000);
