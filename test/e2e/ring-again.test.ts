// Ring again (#54) against a real `ringhook serve` (managed Asterisk), SIPp phones at the trunk and
// the Perl SMSC (SMPP): a missed call's alert is called again from the same caller ID, its SMS
// backup goes out once, after the first miss; kill -9 between two attempts neither loses nor
// doubles one; an account left at the default still gets exactly one call.
import { expect, it } from 'vitest';
import { machineLoad } from '../helpers/machine-load.js';
import { waitForChildCall } from '../helpers/service.js';
import { sipDialogs } from '../helpers/sip-trace.js';
import { type SippPhone, startSipp } from '../helpers/sipp.js';
import { runCliJson, startServe } from '../soak/peers.js';
import { serveWithPhones } from '../helpers/serve-with-phones.js';

const CALLER_ID = '+14155550100';
/** Generous bounds: the machine may be loaded by other test files. */
const CALL_MS = 90_000;

const f = serveWithPhones({
  dataDirPrefix: 'rh-ring-again-',
  extra: {
    RINGHOOK_RING_TIMEOUT: '6',
    RINGHOOK_CALLER_ID: CALLER_ID,
  },
});

interface Row {
  status: string;
  attempt: number;
  retry_at: number | null;
  attempts: string | null;
  sms_status: string | null;
  dialed_at: number | null;
}

const waitRow = (what: string, callId: string, ok: (r: Row) => boolean, timeoutMs = CALL_MS) =>
  waitForChildCall(f.dataDir, what, callId, (r) => ok(r as Row), timeoutMs) as Promise<Row>;

/** The From header of every INVITE the phone got. */
function invitesFrom(log: string): string[] {
  return [...log.matchAll(/^INVITE sip:[^\n]*\n(?:[^\n]+\n)*?From:\s*([^\n]+)/gim)].map((m) => m[1]!.trim());
}

const smsTo = (phone: string) =>
  f.smsc.events().filter((e) => e.event === 'message' && String(e.destination_addr ?? '').endsWith(phone.slice(2)));

const phone = (scenario: 'ring-forever' | 'dtmf-1', calls = 1): Promise<SippPhone> =>
  startSipp({ scenario, port: f.trunkPort, calls, timeoutSec: 240, traceMessages: true });

it('a first call that rings out is tried again from the same caller ID; the second is answered and 1 acknowledges; one SMS, after the first miss', async () => {
  const PHONE = '+14155550201';
  const a = f.account(PHONE, '--ring-again', '1', '--ring-again-after', '20');
  const smsBefore = smsTo(PHONE).length;
  const first = await phone('ring-forever');
  const callId = await f.alert(a, 'ES1! broke 6000');
  const missed = await waitRow(
    'the first call missed and rung again',
    callId,
    (r) => r.status === 'queued' && r.attempt === 2,
  );
  const atFirst = await first.stop();
  // The SMS backup keeps its timing: after the first miss, before the second call.
  await f.smsc.waitForEvent((e) => e.event === 'message' && smsTo(PHONE).length > smsBefore, { timeoutMs: CALL_MS });
  const second = await phone('dtmf-1');
  const done = await waitRow('the second call acknowledged', callId, (r) => r.status === 'acknowledged');
  const atSecond = await second.stop();
  const [call1] = sipDialogs(atFirst.messages);
  const [call2] = sipDialogs(atSecond.messages);
  expect(sipDialogs(atFirst.messages).map((d) => d.to)).toEqual([PHONE]);
  expect(sipDialogs(atSecond.messages).map((d) => d.to)).toEqual([PHONE]);
  // Within iOS's three minutes of the first call's start, and not before the gap asked for: exactly on
  // ringhook's own clock (each attempt's dial); at the phone, whose INVITEs each came some way behind
  // their dial, within 1 s of it when the machine is quiet (18,953 ms beside two busy loops: #53).
  const [firstAttempt] = JSON.parse(missed.attempts!) as Array<{ at: number }>;
  const dialedGapMs = done.dialed_at! - firstAttempt!.at;
  const gapMs = call2!.startedAt - call1!.startedAt;
  const machine = machineLoad();
  console.log(
    `ring again: dialed ${dialedGapMs} ms after the first, its INVITE ${gapMs} ms after (asked: 20 s); ${machine.said}`,
  );
  expect(dialedGapMs).toBeGreaterThanOrEqual(20_000);
  if (machine.quiet) expect(gapMs).toBeGreaterThanOrEqual(19_000);
  expect(gapMs).toBeLessThanOrEqual(170_000);
  const from = [...invitesFrom(atFirst.messages), ...invitesFrom(atSecond.messages)];
  expect(from).toHaveLength(2);
  for (const f of from) expect(f).toContain(CALLER_ID);
  expect(JSON.parse(missed.attempts!)).toEqual([{ at: expect.any(Number), outcome: 'no_answer' }]);
  expect(done).toMatchObject({ attempt: 2, sms_status: expect.stringMatching(/^(sent|delivered)$/) });
  expect(smsTo(PHONE).length - smsBefore).toBe(1);
  // The plan counts the alert once, not once per call.
  expect(runCliJson(['account', 'show', a.user_id], f.env)).toMatchObject({ calls_this_month: 1 });
  // The history shows each attempt.
  const history = runCliJson(['calls', '--account', a.user_id], f.env) as Array<Record<string, unknown>>;
  expect(history.find((c) => c.call_id === callId)).toMatchObject({
    status: 'acknowledged',
    attempt: 2,
    earlier_attempts: [{ at: expect.any(String), outcome: 'no_answer' }],
  });
}, 300_000);

it('kill -9 of serve between two attempts: after the restart the attempt happens exactly once', async () => {
  const PHONE = '+14155550202';
  const a = f.account(PHONE, '--ring-again', '1', '--ring-again-after', '60');
  const first = await phone('ring-forever');
  const callId = await f.alert(a, 'NQ1! under 21000');
  const scheduled = await waitRow('the retry scheduled', callId, (r) => r.status === 'queued' && r.attempt === 2);
  await first.stop();
  expect(await f.serve!.stop('SIGKILL')).toBeNull();
  // Two calls may come in: the second would be the double.
  const second = await phone('dtmf-1', 2);
  f.serve = await startServe(f.env);
  const done = await waitRow('the attempt after the restart', callId, (r) => r.status === 'acknowledged');
  // Nothing else is due for this alert: it is final. Its INVITEs are all in the log once SIPp stops.
  const atSecond = await second.stop();
  expect(sipDialogs(atSecond.messages).map((d) => d.to)).toEqual([PHONE]);
  expect(sipDialogs(atSecond.messages)[0]!.startedAt).toBeGreaterThanOrEqual(scheduled.retry_at! - 1_000);
  expect(done.attempt).toBe(2);
}, 300_000);

it('an account left at the default: exactly one INVITE, the call ends final, with its one SMS', async () => {
  const PHONE = '+14155550203';
  const a = f.account(PHONE);
  const smsBefore = smsTo(PHONE).length;
  const ringing = await phone('ring-forever', 2);
  const callId = await f.alert(a, 'CL1! above 80');
  const done = await waitRow('the call ended', callId, (r) => r.status === 'no_answer' && r.sms_status !== null);
  await f.smsc.waitForEvent((e) => e.event === 'message' && smsTo(PHONE).length > smsBefore, { timeoutMs: CALL_MS });
  const atPhone = await ringing.stop();
  expect(sipDialogs(atPhone.messages).map((d) => d.to)).toEqual([PHONE]);
  expect(done).toMatchObject({ attempt: 1, retry_at: null, attempts: null });
  expect(smsTo(PHONE).length - smsBefore).toBe(1);
}, 300_000);
