// An alert's own expiry and the backup person (#54) against a real `ringhook serve` (managed
// Asterisk), SIPp phones at the trunk and the Perl SMSC (SMPP): an alert whose `expires_in` passes
// while its phone's line is taken ends `expired` with no INVITE and no SMS; a call missed at every
// attempt is called once at the account's verified backup number, whose 1 acknowledges it; a
// backup number that never agreed is never called.
import { expect, it } from 'vitest';
import { readChildRow, waitForChildCall } from '../helpers/service.js';
import { sipDialogs } from '../helpers/sip-trace.js';
import { type SippOptions, type SippPhone, startSipp } from '../helpers/sipp.js';
import { waitFor } from '../helpers/wait.js';
import { runCliJson, startServe } from '../soak/peers.js';
import { serveWithPhones } from '../helpers/serve-with-phones.js';

const CALLER_ID = '+14155550100';
/** Generous bounds: the machine may be loaded by other test files. */
const CALL_MS = 120_000;

const f = serveWithPhones({
  dataDirPrefix: 'rh-expiry-backup-',
  extra: {
    // Long enough for an alert's 10 s expiry to pass while another call rings its phone.
    RINGHOOK_RING_TIMEOUT: '14',
    RINGHOOK_CALLER_ID: CALLER_ID,
  },
});

type Row = Record<string, any>;

const query = <T>(sql: string, ...params: unknown[]) => readChildRow<T>(f.dataDir, sql, ...params);

const row = (callId: string) => query<Row>('SELECT * FROM calls WHERE call_id = ?', callId);

const waitRow = (what: string, callId: string, ok: (r: Row) => boolean, timeoutMs = CALL_MS) =>
  waitForChildCall(f.dataDir, what, callId, (r) => ok(r as Row), timeoutMs) as Promise<Row>;

const smsWith = (text: string) =>
  f.smsc.events().filter((e) => e.event === 'message' && JSON.stringify(e).includes(text));

const phone = (scenario: SippOptions['scenario'], calls = 1, extra: Partial<SippOptions> = {}): Promise<SippPhone> =>
  startSipp({ scenario, port: f.trunkPort, calls, timeoutSec: 300, traceMessages: true, ...extra });

it('expires_in: 10 behind a busy line: the alert ends expired when the line frees, with no INVITE and no SMS', async () => {
  const PHONE = '+14155550301';
  const a = f.account(PHONE);
  const ringing = await phone('ring-forever', 2);
  const first = await f.alert(a, 'ZN1! first alert, ringing the phone');
  await waitRow('the first call ringing', first, (r) => r.status === 'ringing');
  const second = await f.alert(a, { message: 'GC1! gold above 2100', expires_in: 10 });
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

const showAccount = (userId: string) => runCliJson(['account', 'show', userId], f.env) as Record<string, any>;

it('N=2 and a verified backup person: 3 INVITEs to the owner, then 1 to the backup number, whose 1 acknowledges the alert; one SMS, to the owner', async () => {
  const OWNER = '+14155550311';
  const BACKUP = '+14155550777';
  // One SIPp process at the trunk plays both phones: the backup number answers and presses 1, the owner's rings out.
  const phones = await phone('answer-number', 5, { substitute: { '@NUMBER@': BACKUP.slice(1) } });
  const a = runCliJson(
    [
      'account',
      'create',
      '--phone',
      OWNER,
      '--plan',
      'premium',
      '--sms-backup',
      'on',
      '--name',
      'Alice',
      '--ring-again',
      '2',
      '--ring-again-after',
      '20',
      '--backup-phone',
      BACKUP,
    ],
    f.env,
  ) as { user_id: string; api_key: string; backup_phone_status: string };
  expect(a.backup_phone_status).toBe('pending');
  await waitFor(
    'the backup person agreed',
    () => showAccount(a.user_id).backup_phone_status === 'verified' || undefined,
    CALL_MS,
    500,
  );
  expect(showAccount(a.user_id).ring_again_effect).toMatch(/Then \+1 415 555 0777, the backup person, is called once/);
  const smsBefore = smsWith('SI1!').length;
  const callId = await f.alert(a, 'SI1! silver above 30');
  const done = await waitRow(
    'the alert acknowledged at the backup number',
    callId,
    (r) => r.status === 'acknowledged',
    240_000,
  );
  const atPhones = await phones.stop();
  const dialogs = sipDialogs(atPhones.messages);
  // The verification call, the owner's three calls, then the backup person's one.
  expect(dialogs.map((d) => d.to)).toEqual([BACKUP, OWNER, OWNER, OWNER, BACKUP]);
  const from = invitesFrom(atPhones.messages);
  for (const f of from) expect(f).toContain(CALLER_ID);
  expect(done).toMatchObject({ attempt: 4, phone: BACKUP, dial_to: BACKUP });
  expect(JSON.parse(done.attempts).map((x: { outcome: string }) => x.outcome)).toEqual([
    'no_answer',
    'no_answer',
    'no_answer',
  ]);
  // The backup call started once the third missed: right away, not a ring-again gap later.
  expect(dialogs[4]!.startedAt - dialogs[3]!.startedAt).toBeLessThan(20_000 + 10_000);
  // The SMS backup: once, after the first miss, to the owner's number.
  await waitFor('the SMS', () => smsWith('SI1!').length > smsBefore || undefined, CALL_MS, 200);
  expect(smsWith('SI1!').length - smsBefore).toBe(1);
  expect(JSON.stringify(smsWith('SI1!')[0])).toContain(OWNER.slice(2));
  // The plan counts the alert once.
  expect(showAccount(a.user_id)).toMatchObject({ calls_this_month: 1 });
  // The history says which number each call rang: the verification call's and the alert's last are the backup's.
  const history = runCliJson(['calls', '--account', a.user_id], f.env) as Array<Record<string, unknown>>;
  expect(history.find((c) => c.call_id === callId)).toMatchObject({
    attempt: 4,
    dial_to: BACKUP,
    status: 'acknowledged',
  });
  expect(history.find((c) => c.kind === 'test')).toMatchObject({ dial_to: BACKUP, status: 'acknowledged' });
}, 400_000);

it('a backup number that never pressed 1 in its verification call is never called', async () => {
  const OWNER = '+14155550321';
  const BACKUP = '+14155550888';
  const ringing = await phone('ring-forever', 3);
  const a = runCliJson(
    ['account', 'create', '--phone', OWNER, '--plan', 'premium', '--backup-phone', BACKUP],
    f.env,
  ) as {
    user_id: string;
    api_key: string;
  };
  // Its verification call rings out: no 1.
  await waitFor(
    'the verification call ended',
    () =>
      query<Row>("SELECT status FROM calls WHERE user_id = ? AND kind = 'test' AND status = 'no_answer'", a.user_id),
    CALL_MS,
    500,
  );
  expect(showAccount(a.user_id)).toMatchObject({ backup_phone: BACKUP, backup_phone_status: 'pending' });
  const callId = await f.alert(a, 'HG1! copper under 4');
  const done = await waitRow('the alert missed', callId, (r) => r.status === 'no_answer');
  // Final at once: no step to the backup number was scheduled.
  expect(done).toMatchObject({ attempt: 1, dial_to: null, retry_at: null });
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const atPhone = await ringing.stop();
  expect(sipDialogs(atPhone.messages).map((d) => d.to)).toEqual([BACKUP, OWNER]);
  expect(showAccount(a.user_id).backup_phone_status).toBe('pending');
}, 300_000);

/** The From header of every INVITE the phone got. */
function invitesFrom(log: string): string[] {
  return [...log.matchAll(/^INVITE sip:[^\n]*\n(?:[^\n]+\n)*?From:\s*([^\n]+)/gim)].map((m) => m[1]!.trim());
}

it("kill -9 of serve while an alert waits for its backup person's line: after the restart it is called there exactly once", async () => {
  const OWNER = '+14155550331';
  const BACKUP = '+14155550999';
  // The backup person agrees first.
  const agreeing = await phone('answer-number', 1, { substitute: { '@NUMBER@': BACKUP.slice(1) } });
  const a = runCliJson(
    ['account', 'create', '--phone', OWNER, '--plan', 'premium', '--name', 'Bea', '--backup-phone', BACKUP],
    f.env,
  ) as { user_id: string; api_key: string };
  await waitFor(
    'the backup person agreed',
    () => showAccount(a.user_id).backup_phone_status === 'verified' || undefined,
    CALL_MS,
    500,
  );
  await agreeing.stop();
  // Another account rings the backup number: the escalated alert waits for that line.
  const other = runCliJson(['account', 'create', '--phone', BACKUP, '--plan', 'premium'], f.env) as {
    user_id: string;
    api_key: string;
  };
  const ringing = await phone('ring-forever', 2);
  const mine = await f.alert(a, 'RB1! rubber down 3 percent');
  await waitRow("the owner's call ringing", mine, (r) => r.status === 'ringing');
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  const theirs = await f.alert(other, 'its own alert, holding the line');
  await waitRow("the other account's call ringing the backup number", theirs, (r) => r.status === 'ringing');
  const waiting = await waitRow(
    'the alert queued for the backup number',
    mine,
    (r) => r.status === 'queued' && r.dial_to === BACKUP,
  );
  expect(waiting).toMatchObject({ attempt: 2, dialed_at: expect.any(Number) });
  expect(await f.serve!.stop('SIGKILL')).toBeNull();
  const atRinging = await ringing.stop();
  expect(sipDialogs(atRinging.messages).map((d) => d.to)).toEqual([OWNER, BACKUP]);
  // Two calls may come in at the backup number: the second would be the double.
  const answering = await phone('dtmf-1', 2);
  f.serve = await startServe(f.env);
  const done = await waitRow('the alert acknowledged at the backup number', mine, (r) => r.status === 'acknowledged');
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const atAnswering = await answering.stop();
  expect(sipDialogs(atAnswering.messages).map((d) => d.to)).toEqual([BACKUP]);
  expect(done).toMatchObject({ attempt: 2, phone: BACKUP });
  // The other account's call, cut by the kill, is not placed again.
  expect(row(theirs)!.status).toBe('interrupted');
}, 300_000);
