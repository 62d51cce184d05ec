// The SMS delivery-report route (RINGHOOK_SMS_DLR_URL) over real HTTPS with a real SQLite file:
// its body is bounded before it is read, a receipt must carry the token ringhook generated (and,
// for the Twilio preset, Twilio's signature), and a receipt for a message that is not ours changes
// nothing. Telephony is "external" with nothing listening on the ARI port: the SMS sender and the
// route exist, calls wait in the queue, and no peer is needed.
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteCallProgressStore } from '../../src/store/sqlite/progress.js';
import { request } from '../helpers/https-client.js';
import { freeTcpPort } from '../helpers/ports.js';
import { sqliteDb, startTestService, type TestService } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';
import { createAccount } from '../helpers/accounts.js';

const MB = 1024 * 1024;

async function receiptService(sms: Record<string, string>): Promise<TestService> {
  const ariPort = await freeTcpPort();
  return startTestService({
    RINGHOOK_TELEPHONY: 'external',
    RINGHOOK_ARI_URL: `http://127.0.0.1:${ariPort}`,
    RINGHOOK_ARI_USER: 'ringhook',
    RINGHOOK_ARI_PASSWORD: 'nobody-listens',
    RINGHOOK_SMS_GATEWAY: 'http',
    RINGHOOK_SMS_FROM: 'ringhook',
    ...sms,
  });
}

function receiptToken(t: TestService): string {
  const file = path.join(t.dataDir, 'sms-receipt.secret');
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  return fs.readFileSync(file, 'utf8').trim();
}

/** An accepted alert whose SMS backup the gateway took as `messageId` (status "sent"). */
async function callWithSentSms(t: TestService, messageId: string): Promise<string> {
  const a = await createAccount(t.service.stores.accounts, { smsBackup: true });
  const reply = await t.post(`/webhook/${a.userId}/${a.apiKey}`, 'alert with an SMS out');
  expect(reply.status, reply.text).toBe(200);
  new SqliteCallProgressStore(sqliteDb(t.service.stores)).setSmsResult(reply.json.call_id, {
    status: 'sent',
    messageId,
    parts: 1,
  });
  return reply.json.call_id as string;
}

/** Everything a receipt could change: the calls and their timelines. */
function snapshot(t: TestService): string {
  const db = sqliteDb(t.service.stores);
  return JSON.stringify([
    db.prepare('SELECT * FROM calls ORDER BY call_id').all(),
    db.prepare('SELECT * FROM call_events ORDER BY id').all(),
  ]);
}

const settle = () => new Promise((r) => setTimeout(r, 200));

/**
 * POSTs `bytes` of body, streamed from one reused 64 KiB chunk (so that this process holds none of
 * it), chunked or with a Content-Length, and stops sending once the answer came. Samples this
 * process's RSS meanwhile: the service runs in it.
 */
function streamBody(
  url: string,
  ca: string,
  bytes: number,
  chunked: boolean,
): Promise<{ status: number; json: any; ms: number; rssGrowth: number }> {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const started = Date.now();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 5);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = https.request(url, {
      method: 'POST',
      ca,
      agent: false,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(!chunked && { 'content-length': String(bytes) }),
      },
    });
    req.on('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        clearInterval(sampler);
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
        req.destroy();
        resolve({
          status: res.statusCode ?? 0,
          json: JSON.parse(Buffer.concat(parts).toString('utf8')),
          ms: Date.now() - started,
          rssGrowth: rssPeak - rssBefore,
        });
      });
    });
    // The server may close the connection while the rest is still on its way.
    req.on('error', (error) => {
      if (!answered) {
        clearInterval(sampler);
        reject(error);
      }
    });
    let sent = 0;
    const pump = () => {
      while (!answered && sent < bytes) {
        sent += chunk.byteLength;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe('kannel preset', () => {
  const DLR_PATH = '/sms/dlr';
  let t: TestService;
  let token: string;

  beforeAll(async () => {
    t = await receiptService({
      RINGHOOK_SMS_HTTP_PRESET: 'kannel',
      RINGHOOK_SMS_HTTP_URL: 'http://127.0.0.1:9/cgi-bin/sendsms?username=ringhook&password=nobody-listens',
      RINGHOOK_SMS_DLR_URL: `https://ringhook.example.com${DLR_PATH}`,
    });
    token = receiptToken(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const receipt = (query: string) => request(`${t.baseUrl}${DLR_PATH}?${query}`, { method: 'GET', ca: t.ca });

  it('keeps the receipt token in the data dir (0600): 96 random bits, URL-safe', () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it('refuses a receipt without the token, or with a wrong one (401 unauthorized): nothing changes', async () => {
    const callId = await callWithSentSms(t, 'msg-known-1');
    const before = snapshot(t);
    const wrong = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const query of [
      'rh_msgid=msg-known-1&rh_dlr=1',
      `rh_msgid=msg-known-1&rh_dlr=1&rh_token=${wrong}`,
      `rh_msgid=msg-known-1&rh_dlr=1&rh_token=`,
      `rh_msgid=msg-known-1&rh_dlr=1&rh_token=${token}x`,
    ]) {
      const res = await receipt(query);
      expect(res.status, query).toBe(401);
      expect(res.json).toMatchObject({ success: false, code: 'unauthorized' });
    }
    // The same refused as a form POST.
    const posted = await t.post(DLR_PATH, 'rh_msgid=msg-known-1&rh_dlr=1', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(posted.status).toBe(401);
    await settle();
    expect(snapshot(t)).toBe(before);
    expect(t.callRow(callId).sms_status).toBe('sent');
  });

  it('with the token, a receipt for a message id that is not ours changes nothing', async () => {
    await callWithSentSms(t, 'msg-known-2');
    const before = snapshot(t);
    const res = await receipt(`rh_token=${token}&rh_msgid=someone-elses-message&rh_dlr=1`);
    expect(res.status).toBe(200);
    await settle();
    expect(snapshot(t)).toBe(before);
  });

  it('with the token, the receipt of our message is recorded: delivered', async () => {
    const callId = await callWithSentSms(t, 'msg-known-3');
    const res = await receipt(`rh_token=${token}&rh_msgid=msg-known-3&rh_dlr=1&rh_reply=ACK`);
    expect(res.status, res.text).toBe(200);
    await waitFor(
      'the receipt recorded',
      () => (t.callRow(callId).sms_status === 'delivered' ? true : undefined),
      5_000,
    );
    expect(t.takeErrorLogs()).toEqual([]);
  });

  it('refuses a 50 MB body (chunked, no length) with 400 body_too_large, at once and without buffering it', async () => {
    const res = await streamBody(`${t.baseUrl}${DLR_PATH}?rh_token=${token}`, t.ca, 50 * MB, true);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false, code: 'body_too_large' });
    expect(res.ms).toBeLessThan(3_000);
    expect(res.rssGrowth).toBeLessThan(20 * MB);
    console.log(
      'figures: 50 MB receipt body',
      JSON.stringify({ ms: res.ms, rss_growth_mb: +(res.rssGrowth / MB).toFixed(1) }),
    );
  });

  it('refuses a declared 400 MB body before reading it, and an unauthenticated 50 MB one too', async () => {
    const declared = await streamBody(`${t.baseUrl}${DLR_PATH}?rh_token=${token}`, t.ca, 400 * MB, false);
    expect(declared.status).toBe(400);
    expect(declared.json).toMatchObject({ code: 'body_too_large' });
    expect(declared.ms).toBeLessThan(3_000);
    expect(declared.rssGrowth).toBeLessThan(20 * MB);
    const anonymous = await streamBody(`${t.baseUrl}${DLR_PATH}`, t.ca, 50 * MB, true);
    expect(anonymous.status).toBe(401);
    expect(anonymous.ms).toBeLessThan(3_000);
    expect(anonymous.rssGrowth).toBeLessThan(20 * MB);
    // Still serving receipts.
    expect((await receipt(`rh_token=${token}&rh_msgid=nobody&rh_dlr=2`)).status).toBe(200);
    expect(t.takeErrorLogs()).toEqual([]);
  });
});

describe('twilio preset', () => {
  const AUTH_TOKEN = 'twilio-auth-token-0123456789abcdef';
  // The operator's URL has a query string of its own: ringhook keeps it.
  const PUBLIC_URL = 'https://ringhook.example.com/sms/twilio?site=home';
  let t: TestService;
  let token: string;

  beforeAll(async () => {
    t = await receiptService({
      RINGHOOK_SMS_HTTP_PRESET: 'twilio',
      RINGHOOK_SMS_HTTP_URL: 'http://127.0.0.1:9',
      RINGHOOK_SMS_TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000',
      RINGHOOK_SMS_TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      RINGHOOK_SMS_DLR_URL: PUBLIC_URL,
    });
    token = receiptToken(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  /** Twilio's scheme, written out here independently of ringhook's: URL + sorted name+value, HMAC-SHA1, base64. */
  const sign = (url: string, form: URLSearchParams, key = AUTH_TOKEN) =>
    createHmac('sha1', key)
      .update(
        url +
          [...form]
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([k, v]) => k + v)
            .join(''),
      )
      .digest('base64');

  const statusCallback = (sid: string, status: string) =>
    new URLSearchParams({
      MessageSid: sid,
      MessageStatus: status,
      AccountSid: 'AC00000000000000000000000000000000',
      SmsSid: sid,
      To: '+14155550123',
    });

  const post = (query: string, form: URLSearchParams, signature?: string) =>
    t.post(`/sms/twilio?${query}`, form.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      ...(signature !== undefined && { 'x-twilio-signature': signature }),
    });

  it('accepts a status callback signed over the public URL (with its query and the token): delivered', async () => {
    const callId = await callWithSentSms(t, 'SM-signed');
    const query = `site=home&rh_token=${token}`;
    const form = statusCallback('SM-signed', 'delivered');
    const res = await post(query, form, sign(`https://ringhook.example.com/sms/twilio?${query}`, form));
    expect(res.status, res.text).toBe(200);
    await waitFor(
      'the receipt recorded',
      () => (t.callRow(callId).sms_status === 'delivered' ? true : undefined),
      5_000,
    );
  });

  it('refuses an unsigned or wrongly signed status callback, even with the token (401): nothing changes', async () => {
    const callId = await callWithSentSms(t, 'SM-forged');
    const before = snapshot(t);
    const query = `site=home&rh_token=${token}`;
    const url = `https://ringhook.example.com/sms/twilio?${query}`;
    const form = statusCallback('SM-forged', 'undelivered');
    const signed = sign(url, statusCallback('SM-forged', 'delivered'));
    const attempts: Array<[string, string | undefined]> = [
      ['no signature', undefined],
      ['empty signature', ''],
      ['signature of other parameters', signed],
      ['signed with another auth token', sign(url, form, 'another-auth-token')],
      ['signed for another URL', sign(`https://attacker.example/sms/twilio?${query}`, form)],
    ];
    for (const [what, signature] of attempts) {
      const res = await post(query, form, signature);
      expect(res.status, what).toBe(401);
      expect(res.json).toMatchObject({ success: false, code: 'unauthorized' });
    }
    // A right signature does not make up for a missing token.
    const noToken = await post('site=home', form, sign('https://ringhook.example.com/sms/twilio?site=home', form));
    expect(noToken.status).toBe(401);
    // Parameters added to the query after signing are covered by the signature too.
    const extended = await post(`${query}&MessageSid=SM-forged&MessageStatus=undelivered`, form, sign(url, form));
    expect(extended.status).toBe(401);
    await settle();
    expect(snapshot(t)).toBe(before);
    expect(t.callRow(callId).sms_status).toBe('sent');
  });

  it('a signed status callback for a message that is not ours changes nothing', async () => {
    await callWithSentSms(t, 'SM-ours');
    const before = snapshot(t);
    const query = `site=home&rh_token=${token}`;
    const form = statusCallback('SM-from-another-app', 'undelivered');
    const res = await post(query, form, sign(`https://ringhook.example.com/sms/twilio?${query}`, form));
    expect(res.status).toBe(200);
    await settle();
    expect(snapshot(t)).toBe(before);
    expect(t.takeErrorLogs()).toEqual([]);
  });
});
