// The HTTP gateway path against a real Kannel (bearerbox + smsbox + fakesmsc) on loopback.

import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import type { DeliveryReport, SmsSender } from '../../src/sms/index.js';
import { buildSmsText } from '../../src/sms/text.js';
import { createSmsSender } from '../../src/sms/service.js';
import { smsConfig } from '../helpers/sms-config.js';
import { freePort, reassemble, startKannel, type KannelPeer } from '../helpers/kannel.js';
import { request } from '../helpers/https-client.js';
import { freeTcpPort } from '../helpers/ports.js';
import { sqliteDb, startTestService, testClock, type TestService } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';
import { createAccount } from '../helpers/accounts.js';

const TO = '+15551230001';
const FROM = '+15550009999';

let kannel: KannelPeer;
let dlrServer: Server;
let dlrPort: number;
const dlrRequests: URLSearchParams[] = [];

function kannelEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    RINGHOOK_SMS_GATEWAY: 'http',
    RINGHOOK_SMS_HTTP_PRESET: 'kannel',
    RINGHOOK_SMS_FROM: FROM,
    RINGHOOK_SMS_HTTP_URL: url,
    RINGHOOK_SMS_RETRY_DELAY_MS: '10',
    ...extra,
  };
}

function sender(env: Record<string, string>): SmsSender {
  return createSmsSender(smsConfig(env), { logger: silentLogger });
}

beforeAll(async () => {
  kannel = await startKannel();
  dlrPort = await freePort();
  dlrServer = createServer((req, res) => {
    dlrRequests.push(new URL(req.url ?? '/', 'http://x').searchParams);
    res.end('ok');
  });
  await new Promise<void>((resolve) => dlrServer.listen(dlrPort, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise<void>((resolve) => (dlrServer ? dlrServer.close(() => resolve()) : resolve()));
  await kannel?.stop();
});

describe('Kannel sendsms (real bearerbox + smsbox + fakesmsc)', () => {
  it('delivers a plain ASCII alert as one GSM 7-bit SMS', async () => {
    const before = kannel.messages().length;
    const text = buildSmsText('BTCUSD crossed 65000 (1h close)');
    const result = await sender(kannelEnv(kannel.sendsmsUrl())).send({ to: TO, text, reference: 'call-ascii' });
    expect(result).toEqual({ status: 'sent', messageId: null, parts: 1 });
    const [got] = (await kannel.waitForMessages(before + 1)).slice(before);
    expect(got).toMatchObject({
      from: FROM,
      to: TO,
      kind: 'text',
      udh: null,
      text: 'Missed call alert: BTCUSD crossed 65000 (1h close)',
    });
  });

  it('keeps GSM characters of the extension table and accents intact (é € [ ] ~ @)', async () => {
    const before = kannel.messages().length;
    const text = buildSmsText('EURUSD é € [x] ~ @ 1.08');
    const result = await sender(kannelEnv(kannel.sendsmsUrl())).send({ to: TO, text, reference: 'call-gsm-ext' });
    expect(result.status).toBe('sent');
    const [got] = (await kannel.waitForMessages(before + 1)).slice(before);
    expect(got?.text).toBe(text);
  });

  it('sends characters outside GSM 7-bit (arrow, emoji) as UCS-2 and they arrive intact', async () => {
    const before = kannel.messages().length;
    const text = buildSmsText('ETH → 4000 🚀 ñ');
    const result = await sender(kannelEnv(kannel.sendsmsUrl())).send({ to: TO, text, reference: 'call-ucs2' });
    expect(result).toMatchObject({ status: 'sent', parts: 1 });
    const [got] = (await kannel.waitForMessages(before + 1)).slice(before);
    expect(got?.kind).toBe('ucs-2');
    expect(got?.text).toBe('Missed call alert: ETH → 4000 🚀 ñ');
  });

  it('a 500-character alert arrives whole, as concatenated parts Kannel splits', async () => {
    const before = kannel.messages().length;
    const message = Array.from({ length: 60 }, (_, i) => `alert${String(i).padStart(3, '0')}`)
      .join(' ')
      .slice(0, 500);
    expect(message).toHaveLength(500);
    const text = buildSmsText(message);
    expect(text).toBe(`Missed call alert: ${message}`);
    const result = await sender(kannelEnv(kannel.sendsmsUrl())).send({ to: TO, text, reference: 'call-long' });
    // 519 GSM septets = 4 parts of at most 153.
    expect(result).toMatchObject({ status: 'sent', parts: 4 });
    const parts = (await kannel.waitForMessages(before + 4)).slice(before);
    expect(parts.every((p) => p.udh !== null && p.udh[4] === 4)).toBe(true);
    expect(parts.every((p) => p.text.length <= 153)).toBe(true);
    const whole = reassemble(parts);
    expect(whole).toHaveLength(1);
    expect(whole[0]).toMatchObject({ text, parts: 4, to: TO });
  });

  it('a long UCS-2 alert (emoji) arrives whole in UCS-2 parts', async () => {
    const before = kannel.messages().length;
    const text = buildSmsText(`${'Gold ↑ '.repeat(30)}🚀`);
    const result = await sender(kannelEnv(kannel.sendsmsUrl())).send({ to: TO, text, reference: 'call-long-ucs2' });
    expect(result.status).toBe('sent');
    const parts = result.status === 'sent' ? result.parts : 0;
    expect(parts).toBeGreaterThan(1);
    const got = (await kannel.waitForMessages(before + parts)).slice(before);
    // fakesmsc prints parts with a UDH as "data" without their coding; the bytes are UTF-16BE,
    // 67 units (134 octets) a part, as Kannel split them.
    expect(got.every((p) => p.udh !== null && p.bytes.length <= 134)).toBe(true);
    expect(reassemble(got, { udhPartsAreUcs2: true })[0]?.text).toBe(text);
  });

  it('gateway down: connection refused fails after bounded retries', async () => {
    const port = await freePort();
    const sleeps: number[] = [];
    const config = smsConfig(kannelEnv(`http://127.0.0.1:${port}/cgi-bin/sendsms?username=u&password=p`));
    const s = createSmsSender(config, { logger: silentLogger, sleep: async (ms) => void sleeps.push(ms) });
    const result = await s.send({ to: TO, text: 'x', reference: 'call-down' });
    expect(result).toMatchObject({ status: 'failed' });
    if (result.status === 'failed') {
      expect(result.error).toMatch(/ECONNREFUSED/);
      expect(result.error).toContain(`127.0.0.1:${port}/cgi-bin/sendsms`);
      expect(result.error).not.toMatch(/password=p/);
    }
    expect(sleeps).toEqual([10, 20]);
    expect(await s.check()).toMatchObject({ ok: false });
  });

  it("gateway rejecting (wrong password) fails at once, not retried, with Kannel's words", async () => {
    const before = kannel.messages().length;
    const sleeps: number[] = [];
    const config = smsConfig(kannelEnv(kannel.sendsmsUrl(kannel.username, 'wrong-password')));
    const s = createSmsSender(config, { logger: silentLogger, sleep: async (ms) => void sleeps.push(ms) });
    const result = await s.send({ to: TO, text: 'x', reference: 'call-badpass' });
    expect(result).toEqual({ status: 'failed', error: 'Kannel answered 403: Authorization failed for sendsms' });
    expect(sleeps).toEqual([]);
    expect(await s.check()).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/rejects the username\/password/),
    });
    expect(await sender(kannelEnv(kannel.sendsmsUrl())).check()).toMatchObject({ ok: true });
    await new Promise((r) => setTimeout(r, 300));
    expect(kannel.messages().length).toBe(before);
  });

  it('reports delivery through dlr-url, keyed by the messageId send() returned', async () => {
    const dlrUrl = `http://127.0.0.1:${dlrPort}/sms/dlr`;
    const s = sender(kannelEnv(kannel.sendsmsUrl(), { RINGHOOK_SMS_DLR_URL: dlrUrl }));
    const reports: DeliveryReport[] = [];
    s.onDeliveryReport((r) => reports.push(r));
    const seen = dlrRequests.length;
    const result = await s.send({ to: TO, text: buildSmsText('DLR please'), reference: 'call-dlr' });
    expect(result.status).toBe('sent');
    const messageId = result.status === 'sent' ? result.messageId : null;
    expect(messageId).toMatch(/^[0-9a-f-]{36}$/);
    // fakesmsc confirms device delivery for every message it takes (smsc_fake.c): Kannel's
    // smsbox then calls our dlr-url with %d = 1.
    const params = await waitFor('the dlr-url call', () => dlrRequests[seen]);
    const report = s.handleDeliveryCallback!(params);
    expect(report).toMatchObject({ messageId, status: 'delivered' });
    expect(reports).toEqual([report]);
    // Something that is not a Kannel report is ignored.
    expect(s.handleDeliveryCallback!(new URLSearchParams('foo=bar'))).toBeNull();
  });

  it('the generic preset works against Kannel too (GET template + success match)', async () => {
    const before = kannel.messages().length;
    const s = sender({
      RINGHOOK_SMS_GATEWAY: 'http',
      RINGHOOK_SMS_HTTP_PRESET: 'generic',
      RINGHOOK_SMS_FROM: FROM,
      RINGHOOK_SMS_HTTP_METHOD: 'GET',
      RINGHOOK_SMS_HTTP_URL: `${kannel.sendsmsUrl()}&from={from}&to={to}&text={text}&charset=UTF-8`,
      RINGHOOK_SMS_HTTP_SUCCESS_STATUS: '202',
      RINGHOOK_SMS_HTTP_SUCCESS_MATCH: '^0: Accepted',
    });
    const result = await s.send({ to: TO, text: 'Missed call alert: generic & ok?', reference: 'call-generic' });
    expect(result).toEqual({ status: 'sent', messageId: null, parts: 1 });
    const [got] = (await kannel.waitForMessages(before + 1)).slice(before);
    expect(got?.text).toBe('Missed call alert: generic & ok?');
  });
});

describe('Kannel calls back ringhook itself (the whole service, over HTTPS)', () => {
  let t: TestService | undefined;
  afterAll(async () => {
    await t?.stop();
  });

  it("the dlr-url carries ringhook's receipt token: Kannel's receipt is accepted and the SMS is recorded delivered", async () => {
    // An Asterisk that never answers: the alert waits in the queue until the clock passes its
    // freshness window, then ends `failed` and its SMS backup goes to Kannel, whose receipt
    // comes back to the service's own route over HTTPS.
    const clock = testClock('2026-11-22T14:00:00Z');
    const port = await freeTcpPort();
    const dlrUrl = `https://127.0.0.1:${port}/sms/dlr?site=e2e`;
    t = await startTestService(
      {
        RINGHOOK_PORT: String(port),
        RINGHOOK_TELEPHONY: 'external',
        RINGHOOK_ARI_URL: `http://127.0.0.1:${await freeTcpPort()}`,
        RINGHOOK_ARI_USER: 'ringhook',
        RINGHOOK_ARI_PASSWORD: 'nobody-listens',
        ...kannelEnv(kannel.sendsmsUrl(), { RINGHOOK_SMS_DLR_URL: dlrUrl }),
      },
      clock,
    );
    const a = await createAccount(t.service.stores.accounts, { phone: TO, smsBackup: true });
    const alert = await t.post(`/webhook/${a.userId}/${a.apiKey}`, 'receipt through the route please');
    expect(alert.status, alert.text).toBe(200);
    clock.advance(400_000);
    const callId = alert.json.call_id as string;
    const row = await t
      .waitForCall(callId, (r) => r.sms_status === 'delivered', 20_000)
      .catch((error: Error) => {
        const dlrLines = kannel
          .logs()
          .split('\n')
          .filter((l) => /dlr|DLR|http|HTTP|SSL|ssl/.test(l))
          .slice(-30);
        throw new Error(
          `${error.message}\nkannel:\n${dlrLines.join('\n')}\nringhook:\n${t!.logs
            .filter((l) => /sms|receipt/i.test(JSON.stringify(l)))
            .map((l) => JSON.stringify(l))
            .join('\n')}`,
        );
      });
    expect(row.status).toBe('failed');
    expect(row.sms_message_id).toMatch(/^[0-9a-f-]{36}$/);
    const events = (
      sqliteDb(t.service.stores)
        .prepare('SELECT event FROM call_events WHERE call_id = ? ORDER BY id')
        .all(callId) as Array<{ event: string }>
    ).map((e) => e.event);
    expect(events).toEqual(expect.arrayContaining(['sms_sent', 'sms_delivered']));

    // The same receipt without the token is refused, and a replay with it for another id changes nothing.
    const token = fs.readFileSync(path.join(t.dataDir, 'sms-receipt.secret'), 'utf8').trim();
    const forged = await request(`https://127.0.0.1:${port}/sms/dlr?site=e2e&rh_msgid=${row.sms_message_id}&rh_dlr=2`, {
      method: 'GET',
      ca: t.ca,
    });
    expect(forged.status).toBe(401);
    const foreign = await request(
      `https://127.0.0.1:${port}/sms/dlr?site=e2e&rh_token=${token}&rh_msgid=not-ours&rh_dlr=2`,
      { method: 'GET', ca: t.ca },
    );
    expect(foreign.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(t.callRow(callId).sms_status).toBe('delivered');
    expect(t.takeErrorLogs()).toEqual([]);
  }, 60_000);
});
