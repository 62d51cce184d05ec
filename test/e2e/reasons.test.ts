// Reasons a person can read, from the real peers that produce them: one serve with its managed
// Asterisk 22 and a SIP trunk to a SIPp provider answering each code in turn (401 with a digest
// challenge, 403, 404, 484, 488, 503, 480, 486, 603; ringing forever; nothing listening); a trunk
// whose REGISTER the provider refuses (doctor) with a voice espeak-ng does not have (speech failed);
// then a real Asterisk stopped under an external-mode serve. Each call's history says the sentence of
// src/core/reasons.ts, keeps the technical detail in reason_detail, and `ringhook calls --json`
// and doctor say the same. (No softphone registered: test/e2e/softphone.test.ts and
// faults-ari-errors.test.ts.)
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import { type ReasonCode, reasonText } from '../../src/core/reasons.js';
import { provisionAsterisk, startTestAsterisk, type TestAsterisk } from '../helpers/asterisk.js';
import { buildOnce, runCli } from '../helpers/cli.js';
import { freeUdpPort } from '../helpers/ports.js';
import { callEnded, managedTelephonyEnv, realClock, startTestService, type TestService } from '../helpers/service.js';
import { type SippPhone, type SippScenario, startSipp, stopAllSipp } from '../helpers/sipp.js';
import { createAccount } from '../helpers/accounts.js';

const PHONE = '+14155550123';
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  buildOnce();
  await provisionAsterisk();
}, 300_000);

afterAll(() => {
  console.log(`figures: reasons ${JSON.stringify(figures)}`);
});

async function sendAlert(t: TestService, a: Account, message: string): Promise<string> {
  const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, JSON.stringify({ message }), {
    'content-type': 'application/json',
  });
  expect(res.status, res.text).toBe(200);
  return res.json.call_id as string;
}

type Doctor = Array<{ name: string; ok: boolean | 'skipped'; detail: string; fix?: string }>;

describe('a SIP provider answering each code (managed Asterisk, one serve)', () => {
  let t: TestService;
  let trunkPort: number;
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    trunkPort = await freeUdpPort();
    const env = { ...(await managedTelephonyEnv(trunkPort)), RINGHOOK_RING_TIMEOUT: '5' };
    t = await startTestService(env, realClock());
    cliEnv = { ...env, RINGHOOK_DATA_DIR: t.dataDir };
  }, 120_000);

  afterAll(async () => {
    await stopAllSipp();
    await t?.stop();
  });

  afterEach(async () => {
    await stopAllSipp();
    expect(t.takeErrorLogs().map((line) => JSON.stringify(line))).toEqual([]);
  });

  // [what the provider does, how SIPp is started, the call's state, its reason, the SIP code kept]
  const refusing = (code: number, phrase: string) => ({
    scenario: 'provider-refuses' as const,
    substitute: { '@CODE@': code, '@PHRASE@': phrase },
  });
  const cases: Array<
    [
      string,
      { scenario: SippScenario; substitute?: Record<string, string | number> } | null,
      string,
      ReasonCode,
      number | null,
    ]
  > = [
    ['401 with a digest challenge', { scenario: 'provider-challenges' }, 'rejected', 'provider_credentials', 401],
    ['403 Forbidden', refusing(403, 'Forbidden'), 'rejected', 'provider_credentials', 403],
    ['404 Not Found', refusing(404, 'Not Found'), 'unreachable', 'wrong_number', 404],
    ['484 Address Incomplete', refusing(484, 'Address Incomplete'), 'unreachable', 'wrong_number', 484],
    ['488 Not Acceptable Here', refusing(488, 'Not Acceptable Here'), 'unreachable', 'codecs', 488],
    ['503 Service Unavailable', refusing(503, 'Service Unavailable'), 'unreachable', 'provider_down', 503],
    ['480 Temporarily Unavailable', { scenario: 'unavailable' }, 'unreachable', 'phone_unavailable', 480],
    ['486 Busy Here', { scenario: 'busy' }, 'busy', 'busy', 486],
    ['603 Decline', { scenario: 'decline' }, 'rejected', 'declined', 603],
    ['180 Ringing, never answered', { scenario: 'ring-forever' }, 'no_answer', 'no_answer', null],
    ['nothing listening', null, 'unreachable', 'no_response', null],
  ];

  it('each answer ends the call with its sentence, the SIP code and the technical detail kept; calls --json and doctor say the same', async () => {
    // An account per call: a plan allows 10 calls a minute.
    const account = () =>
      createAccount(t.service.stores.accounts, { phone: PHONE, smsBackup: false, requireConfirm: false });
    const seen: Array<{ callId: string; state: string; reason: ReasonCode; sipCode: number | null }> = [];
    for (const [name, sipp, state, reason, sipCode] of cases) {
      const provider: SippPhone | null = sipp ? await startSipp({ ...sipp, port: trunkPort, timeoutSec: 30 }) : null;
      const started = Date.now();
      const callId = await sendAlert(t, await account(), `provider: ${name}`);
      const row = await t.waitForCall(callId, callEnded, 20_000);
      await provider?.stop();
      figures[name] = {
        status: row.status,
        sip_code: row.sip_code,
        reason_detail: row.reason_detail,
        ms: Date.now() - started,
      };

      expect(row.status, name).toBe(state);
      expect(row.error, name).toBe(reasonText(reason, { phone: PHONE }));
      if (sipCode !== null) {
        expect(row.sip_code, name).toBe(sipCode);
        expect(row.reason_detail, name).toMatch(new RegExp(`^SIP ${sipCode}, cause \\d+`));
      } else expect(row.reason_detail, name).toMatch(/cause 19/);
      seen.push({ callId, state, reason, sipCode });
    }

    // The admin's CLI: the sentence as `error`, the detail as `reason_detail`, and the sentence in the table.
    const listed = runCli(['calls', '--json', '--limit', String(cases.length)], cliEnv);
    expect(listed.code, listed.stderr).toBe(0);
    const byId = new Map((listed.json as Array<Record<string, unknown>>).map((c) => [c.call_id, c]));
    for (const { callId, state, reason } of seen) {
      expect(byId.get(callId)).toMatchObject({
        status: state,
        error: reasonText(reason, { phone: PHONE }),
        reason_detail: expect.any(String),
      });
    }
    const table = runCli(['calls', '--limit', '1'], cliEnv);
    expect(table.stdout).toMatch(/REASON/);
    expect(table.stdout).toContain(reasonText('no_response'));

    // doctor: the last call, with its reason as the fix.
    const doctor = runCli(['doctor', '--json'], cliEnv).json as Doctor;
    expect(doctor.find((c) => c.name === 'last-call')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/ended unreachable \(.*cause 19/),
      fix: reasonText('no_response'),
    });
  }, 240_000);
});

describe('the trunk refused at registration, and speech that cannot be made (managed Asterisk)', () => {
  let t: TestService;
  let trunkPort: number;
  let cliEnv: Record<string, string>;
  let refusing: SippPhone;

  beforeAll(async () => {
    trunkPort = await freeUdpPort();
    // The provider is there before serve starts: it refuses the REGISTER Asterisk sends at once.
    refusing = await startSipp({ scenario: 'provider-refuses-register', port: trunkPort, timeoutSec: 30 });
    const env = {
      ...(await managedTelephonyEnv(trunkPort)),
      RINGHOOK_TRUNK_USERNAME: 'ringhook-test',
      RINGHOOK_TRUNK_PASSWORD: 'not-the-password',
      RINGHOOK_TRUNK_REGISTER: 'on',
      // A voice this machine does not have: espeak-ng refuses it when asked to speak.
      RINGHOOK_TTS_ENGINE: 'espeak-ng',
      RINGHOOK_VOICE: 'zz-not-installed',
    };
    t = await startTestService(env, realClock());
    cliEnv = { ...env, RINGHOOK_DATA_DIR: t.dataDir };
  }, 120_000);

  afterAll(async () => {
    await stopAllSipp();
    await t?.stop();
  });

  it('doctor says the trunk is not registered, in the words of the table', async () => {
    const refused = await refusing.done;
    expect(refused.successfulCalls, refused.screen).toBe(1);
    let registration: Doctor[number] | undefined;
    for (let i = 0; i < 20 && !registration?.detail.includes('Rejected'); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 250));
      registration = (runCli(['doctor', '--json'], cliEnv).json as Doctor).find((c) => c.name === 'registration');
    }
    figures.trunkRejected = registration;
    expect(registration).toMatchObject({ ok: false, detail: expect.stringMatching(/trunk at .*: Rejected/) });
    expect(registration!.fix).toContain(reasonText('trunk_unregistered', { registration: 'Rejected' }));
  }, 60_000);

  it('a message that cannot be spoken ends the call failed, saying the speech could not be made', async () => {
    await startSipp({
      scenario: 'answer',
      port: trunkPort,
      keys: { rtp_sink_port: await freeUdpPort() },
      timeoutSec: 30,
    });
    const a = await createAccount(t.service.stores.accounts, { phone: PHONE, smsBackup: false, requireConfirm: false });
    const callId = await sendAlert(t, a, 'spoken by nobody');
    const row = await t.waitForCall(callId, callEnded, 30_000);
    figures.speechFailed = { status: row.status, error: row.error, reason_detail: row.reason_detail };
    expect(row.status).toBe('failed');
    expect(row.error).toBe(reasonText('speech_failed'));
    expect(row.reason_detail).toMatch(/speech/);
    // The speech engine's failure is logged for the operator; it is the point of this test.
    t.takeErrorLogs();
  }, 60_000);
});

describe('a stopped Asterisk (external mode)', () => {
  let asterisk: TestAsterisk;
  let t: TestService;
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    asterisk = await startTestAsterisk();
    const env = {
      RINGHOOK_TELEPHONY: 'external',
      RINGHOOK_ARI_URL: asterisk.ariUrl,
      RINGHOOK_ARI_USER: asterisk.ariUser,
      RINGHOOK_ARI_PASSWORD: asterisk.ariPassword,
      RINGHOOK_MEDIA_DIR: asterisk.mediaDir,
      RINGHOOK_CALL_FRESHNESS: '10',
    };
    t = await startTestService(env, realClock());
    cliEnv = { ...env, RINGHOOK_DATA_DIR: t.dataDir };
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
    await asterisk?.stop();
  });

  it('the alert waits, then ends failed saying the phone system could not take calls; doctor says Asterisk is down', async () => {
    // Connected first, as in life: then Asterisk stops.
    expect((await t.service.telephony!.ari.asteriskInfo()).system.version).toBeTruthy();
    await asterisk.asterisk.stop();
    const a = await createAccount(t.service.stores.accounts, { phone: PHONE, smsBackup: false });
    const callId = await sendAlert(t, a, 'nobody to place it');
    const row = await t.waitForCall(callId, callEnded, 30_000);
    figures.stoppedAsterisk = {
      status: row.status,
      error: row.error,
      reason_detail: row.reason_detail,
      waited_ms: row.ended_at - row.received_at,
    };

    expect(row.status).toBe('failed');
    expect(row.error).toBe(reasonText('telephony_unavailable', { freshnessMs: 10_000 }));
    expect(row.reason_detail).toMatch(/telephony was unavailable/);
    expect(row.dialed_at).toBeNull();

    const doctor = runCli(['doctor', '--json'], cliEnv).json as Doctor;
    figures.stoppedAsteriskDoctor = doctor.filter((c) => ['asterisk', 'last-call'].includes(c.name));
    expect(doctor.find((c) => c.name === 'asterisk')).toMatchObject({
      ok: false,
      detail: expect.stringContaining(reasonText('asterisk_down')),
    });
    expect(doctor.find((c) => c.name === 'last-call')).toMatchObject({
      ok: false,
      fix: reasonText('telephony_unavailable', { freshnessMs: 10_000 }),
    });
    // Its warnings (ARI events down) are not errors of the call.
    t.takeErrorLogs();
  }, 60_000);
});
