// ARI answering errors, from a real Asterisk 22, through the whole service:
// 1. Asterisk refuses the originate: the managed Asterisk has no trunk, so calls go to the local
//    softphone, which is not registered; ARI answers the originate with an HTTP error. The call
//    ends `unreachable` saying no phone is registered (Asterisk's own explanation kept as the
//    reason's detail), is not retried, and the SMS backup goes out once (Kannel).
// 2. Asterisk refuses ringhook's ARI credentials (external mode, wrong password): the alert is
//    still accepted and recorded, it is never dialed, the operator is told what to fix (one error
//    line naming the variables), /healthz says ARI is down, and once the call is older than
//    RINGHOOK_CALL_FRESHNESS it ends `failed` with its SMS backup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteCallProgressStore } from '../../src/store/sqlite/progress.js';
import { request } from '../helpers/https-client.js';
import { provisionAsterisk, startTestAsterisk, type TestAsterisk } from '../helpers/asterisk.js';
import { startKannel, type KannelPeer } from '../helpers/kannel.js';
import {
  callEnded,
  managedTelephonyEnv,
  realClock,
  smsSettled,
  sqliteDb,
  startTestService,
  type TestService,
} from '../helpers/service.js';
import { createAccount } from '../helpers/accounts.js';
import { reasonText } from '../../src/core/reasons.js';

let kannel: KannelPeer;

beforeAll(async () => {
  await provisionAsterisk();
  kannel = await startKannel();
}, 300_000);

afterAll(async () => {
  await kannel?.stop();
});

const smsEnv = () => ({
  RINGHOOK_SMS_GATEWAY: 'http',
  RINGHOOK_SMS_HTTP_PRESET: 'kannel',
  RINGHOOK_SMS_HTTP_URL: kannel.sendsmsUrl(),
  RINGHOOK_SMS_FROM: 'ringhook',
});

async function sendAlert(t: TestService, message: string): Promise<string> {
  const a = await createAccount(t.service.stores.accounts, { smsBackup: true });
  const res = await t.post(`/webhook/${a.userId}/${a.apiKey}`, message);
  expect(res.status, res.text).toBe(200);
  return res.json.call_id as string;
}

describe('Asterisk refuses the originate (no trunk, softphone not registered)', () => {
  let t: TestService;

  beforeAll(async () => {
    const env = await managedTelephonyEnv(0);
    delete (env as Record<string, string | undefined>).RINGHOOK_TRUNK_URI;
    t = await startTestService({ ...env, RINGHOOK_RING_TIMEOUT: '5', ...smsEnv() }, realClock());
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
  });

  it("ends unreachable saying no phone is registered, with Asterisk's explanation as the detail, not retried, one SMS", async () => {
    const before = kannel.messages().length;
    const callId = await sendAlert(t, 'nobody registered');
    const row = await t.waitForCall(callId, (r) => callEnded(r) && smsSettled(r), 15_000);
    const timeline = new SqliteCallProgressStore(sqliteDb(t.service.stores)).timeline(callId);
    await kannel.waitForMessages(before + 1);
    await new Promise((r) => setTimeout(r, 1_000));
    console.log(
      'figures: ari refuses the originate',
      JSON.stringify({
        status: row.status,
        error: row.error,
        sms: row.sms_status,
        timeline: timeline.map((e) => e.event),
        messages: kannel.messages().length - before,
      }),
    );

    expect(row.status).toBe('unreachable');
    expect(row.error).toBe(reasonText('softphone_not_registered', { softphone: 'ringhook' }));
    expect(row.reason_detail).toMatch(/^originate failed: .*POST \/channels\/rh-call_.* HTTP [45]\d\d/);
    expect(timeline.filter((e) => e.event === 'dialing')).toHaveLength(1);
    expect(row.sms_status).toMatch(/^(sent|delivered)$/);
    expect(kannel.messages().length - before).toBe(1);
    expect(t.takeErrorLogs().map((l) => JSON.stringify(l))).toEqual([]);
  }, 30_000);
});

describe("Asterisk refuses ringhook's ARI credentials (external mode, wrong password)", () => {
  let asterisk: TestAsterisk;
  let t: TestService;

  beforeAll(async () => {
    asterisk = await startTestAsterisk();
    t = await startTestService(
      {
        RINGHOOK_TELEPHONY: 'external',
        RINGHOOK_ARI_URL: asterisk.ariUrl,
        RINGHOOK_ARI_USER: asterisk.ariUser,
        RINGHOOK_ARI_PASSWORD: `${asterisk.ariPassword}-wrong`,
        RINGHOOK_MEDIA_DIR: asterisk.mediaDir,
        RINGHOOK_CALL_FRESHNESS: '10',
        ...smsEnv(),
      },
      realClock(),
    );
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
    await asterisk?.stop();
  });

  it('accepts and records the alert, never dials it, says what to fix, and expires it into an SMS', async () => {
    const before = kannel.messages().length;
    const callId = await sendAlert(t, 'placed by nobody');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(t.callRow(callId).status).toBe('queued');
    const health = await request(`${t.baseUrl}/healthz`, { method: 'GET', ca: t.ca });
    expect(health.json.checks.ari).toBe('down');

    const row = await t.waitForCall(callId, (r) => callEnded(r) && smsSettled(r), 20_000);
    const timeline = new SqliteCallProgressStore(sqliteDb(t.service.stores)).timeline(callId).map((e) => e.event);
    await kannel.waitForMessages(before + 1);
    const errors = t.takeErrorLogs();
    console.log(
      'figures: ari refuses the credentials',
      JSON.stringify({
        status: row.status,
        error: row.error,
        sms: row.sms_status,
        timeline,
        health: health.status,
        errors: errors.map((e) => e.msg),
      }),
    );

    expect(row.status).toBe('failed');
    expect(row.error).toBe(reasonText('telephony_unavailable', { freshnessMs: 10_000 }));
    expect(row.reason_detail).toMatch(/telephony was unavailable/);
    expect(timeline).not.toContain('dialing');
    expect(row.sms_status).toMatch(/^(sent|delivered)$/);
    expect(kannel.messages().length - before).toBe(1);
    // One error line for the operator, however many reconnects, naming what to check.
    expect(errors).toHaveLength(1);
    expect(String(errors[0]!.msg)).toMatch(
      /refused ringhook's ARI credentials.*RINGHOOK_ARI_USER.*RINGHOOK_ARI_PASSWORD/,
    );
  }, 40_000);
});
