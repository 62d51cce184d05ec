// The SMPP path against a real, independent SMSC: test/helpers/smpp-server.pl (Perl Net::SMPP).

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import type { DeliveryReport, SmsSender } from '../../src/sms/index.js';
import { buildSmsText } from '../../src/sms/text.js';
import { createSmsSender } from '../../src/sms/service.js';
import { smsConfig } from '../helpers/sms-config.js';
import { freePort } from '../helpers/kannel.js';
import { waitFor } from '../helpers/wait.js';
import { startSmsc, type Smsc, type SmscEvent } from '../helpers/smpp-server.js';

const TO = '+15551230002';
const FROM = '+15550008888';

const open: SmsSender[] = [];
function sender(url: string, extra: Record<string, string> = {}, sleeps?: number[]): SmsSender {
  const config = smsConfig({
    RINGHOOK_SMS_GATEWAY: 'smpp',
    RINGHOOK_SMS_FROM: FROM,
    RINGHOOK_SMPP_URL: url,
    RINGHOOK_SMS_RETRY_DELAY_MS: '10',
    RINGHOOK_SMPP_CONNECT_TIMEOUT_MS: '3000',
    RINGHOOK_SMPP_RECONNECT_MIN_MS: '50',
    RINGHOOK_SMPP_RECONNECT_MAX_MS: '200',
    RINGHOOK_SMPP_THROTTLE_DELAY_MS: '50',
    ...extra,
  });
  const s = createSmsSender(config, {
    logger: silentLogger,
    ...(sleeps ? { sleep: async (ms: number) => void sleeps.push(ms) } : {}),
  });
  open.push(s);
  return s;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const submits = (smsc: Smsc, from = 0): SmscEvent[] =>
  smsc
    .events()
    .slice(from)
    .filter((e) => e.event === 'submit_sm');

describe('SMPP against a Net::SMPP SMSC', () => {
  let smsc: Smsc;
  beforeAll(async () => {
    smsc = await startSmsc();
  });
  afterAll(async () => {
    await smsc?.stop();
  });

  it('binds as a transceiver (SMPP 3.4) and sends ASCII as GSM 7-bit, data_coding 0', async () => {
    const mark = smsc.events().length;
    const s = sender(smsc.url());
    const text = buildSmsText('BTCUSD crossed 65000');
    const result = await s.send({ to: TO, text, reference: 'call-1' });
    const submit = await smsc.waitForEvent((e) => e.event === 'submit_sm', { from: mark });
    expect(result).toEqual({ status: 'sent', messageId: submit.message_id, parts: 1 });
    const bind = smsc
      .events()
      .slice(mark)
      .find((e) => e.event === 'bind');
    expect(bind).toMatchObject({ cmd: 9, ok: true, system_id: 'ringhook', interface_version: 0x34 });
    expect(submit).toMatchObject({
      data_coding: 0,
      esm_class: 0,
      source_addr: '15550008888',
      source_addr_ton: 1,
      source_addr_npi: 1,
      destination_addr: '15551230002',
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      registered_delivery: 1,
    });
    const message = await smsc.waitForEvent((e) => e.event === 'message', { from: mark });
    expect(message).toMatchObject({ text, parts: 1, data_coding: 0 });
    expect(await s.check()).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^bound to smpp:\/\/ringhook@127\.0\.0\.1:\d+; enquire_link answered/),
    });
  });

  it('GSM extension characters (€ [ ] ~) stay GSM 7-bit and arrive intact', async () => {
    const mark = smsc.events().length;
    const text = buildSmsText('EURUSD €1.08 [up] ~ {x} @ é');
    expect((await sender(smsc.url()).send({ to: TO, text, reference: 'call-ext' })).status).toBe('sent');
    expect(await smsc.waitForEvent((e) => e.event === 'message', { from: mark })).toMatchObject({
      text,
      data_coding: 0,
    });
  });

  it('characters outside GSM 7-bit go as UCS-2, data_coding 8, intact', async () => {
    const mark = smsc.events().length;
    const text = buildSmsText('ETH → 4000 🚀');
    expect(await sender(smsc.url()).send({ to: TO, text, reference: 'call-ucs2' })).toMatchObject({
      status: 'sent',
      parts: 1,
    });
    expect(await smsc.waitForEvent((e) => e.event === 'message', { from: mark })).toMatchObject({
      text,
      data_coding: 8,
    });
  });

  it('a 500-character alert goes as 4 concatenated parts that the SMSC reassembles whole', async () => {
    const mark = smsc.events().length;
    const message = 'Long alert: '.padEnd(500, 'x0123456789');
    const text = buildSmsText(message);
    expect(text).toBe(`Missed call alert: ${message}`);
    const result = await sender(smsc.url()).send({ to: TO, text, reference: 'call-long' });
    expect(result).toMatchObject({ status: 'sent', parts: 4 });
    const whole = await smsc.waitForEvent((e) => e.event === 'message', { from: mark });
    expect(whole).toMatchObject({ text, parts: 4, data_coding: 0 });
    const parts = submits(smsc, mark);
    expect(parts).toHaveLength(4);
    expect(parts.every((p) => p.esm_class === 0x40)).toBe(true);
    // The first part's id is the message id.
    expect(result.status === 'sent' && result.messageId).toBe(parts[0]!.message_id);
  });

  it('a long UCS-2 alert goes as concatenated UCS-2 parts and arrives whole', async () => {
    const mark = smsc.events().length;
    const text = buildSmsText(`${'Gold ↑ '.repeat(30)}🚀`);
    const result = await sender(smsc.url()).send({ to: TO, text, reference: 'call-long-ucs2' });
    expect(result).toMatchObject({ status: 'sent', parts: 4 });
    expect(await smsc.waitForEvent((e) => e.event === 'message', { from: mark })).toMatchObject({
      text,
      parts: 4,
      data_coding: 8,
    });
  });

  it('message_payload mode sends one submit_sm with the whole text in the TLV', async () => {
    const mark = smsc.events().length;
    const text = buildSmsText('Payload mode → '.padEnd(500, 'y'));
    const result = await sender(smsc.url(), { RINGHOOK_SMPP_USE_MESSAGE_PAYLOAD: 'true' }).send({
      to: TO,
      text,
      reference: 'call-payload',
    });
    expect(result).toMatchObject({ status: 'sent', parts: 1 });
    const whole = await smsc.waitForEvent((e) => e.event === 'message', { from: mark });
    expect(whole).toMatchObject({ text, parts: 1, mode: 'message_payload', data_coding: 8 });
    const [submit] = submits(smsc, mark);
    expect(submit).toMatchObject({ short_message_hex: '', esm_class: 0 });
  });

  it('a delivery receipt (deliver_sm, esm_class 0x04) is reported for the message id', async () => {
    const s = sender(smsc.url());
    const reports: DeliveryReport[] = [];
    s.onDeliveryReport((r) => reports.push(r));
    const result = await s.send({ to: TO, text: buildSmsText('receipt please'), reference: 'call-dlr' });
    expect(result.status).toBe('sent');
    const report = await waitFor('a delivery report', () => reports[0]);
    expect(report).toEqual({
      messageId: result.status === 'sent' ? result.messageId : '',
      status: 'delivered',
      detail: 'DELIVRD',
    });
  });

  it('receipts of a concatenated message are joined into one report', async () => {
    const s = sender(smsc.url());
    const reports: DeliveryReport[] = [];
    s.onDeliveryReport((r) => reports.push(r));
    const result = await s.send({ to: TO, text: buildSmsText('z'.repeat(400)), reference: 'call-dlr-long' });
    expect(result).toMatchObject({ status: 'sent', parts: 3 });
    const report = await waitFor('a delivery report', () => reports[0]);
    expect(report).toMatchObject({
      messageId: result.status === 'sent' ? result.messageId : '',
      status: 'delivered',
      detail: 'DELIVRD (3 parts)',
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(reports).toHaveLength(1);
  });

  it('keeps the session alive with enquire_link', async () => {
    const mark = smsc.events().length;
    const s = sender(smsc.url(), { RINGHOOK_SMPP_ENQUIRE_LINK_S: '1' });
    expect((await s.check()).ok).toBe(true);
    await smsc.waitForEvent((e) => e.event === 'enquire_link', { from: smsc.events().length, timeoutMs: 3_000 });
    expect(
      smsc
        .events()
        .slice(mark)
        .filter((e) => e.event === 'bind'),
    ).toHaveLength(1);
  });

  it('bind failure (wrong password) fails at once, not retried, naming ESME_RINVPASWD', async () => {
    const sleeps: number[] = [];
    const s = sender(smsc.url('wrong-password'), {}, sleeps);
    const result = await s.send({ to: TO, text: 'x', reference: 'call-badpass' });
    expect(result).toMatchObject({ status: 'failed' });
    expect(result.status === 'failed' && result.error).toMatch(/bind_transceiver refused: ESME_RINVPASWD/);
    expect(sleeps).toEqual([]);
    expect(await s.check()).toMatchObject({ ok: false, detail: expect.stringMatching(/ESME_RINVPASWD/) });
  });
});

describe('SMPP faults a real SMSC produces', () => {
  it('server down: connection refused fails after bounded retries', async () => {
    const port = await freePort();
    const sleeps: number[] = [];
    const s = sender(`smpp://ringhook:pw@127.0.0.1:${port}`, {}, sleeps);
    const result = await s.send({ to: TO, text: 'x', reference: 'call-down' });
    expect(result).toMatchObject({ status: 'failed' });
    expect(result.status === 'failed' && result.error).toMatch(
      new RegExp(`^smpp://ringhook@127\\.0\\.0\\.1:${port}: connect ECONNREFUSED`),
    );
    expect(sleeps).toEqual([10, 20]);
    expect(await s.check()).toMatchObject({ ok: false });
  });

  it('throttling: ESME_RTHROTTLED answers are waited out and the submit retried', async () => {
    const smsc = await startSmsc({ throttle: 2 });
    try {
      const sleeps: number[] = [];
      const text = buildSmsText('throttled once or twice');
      const result = await sender(smsc.url(), {}, sleeps).send({ to: TO, text, reference: 'call-throttle' });
      expect(result).toMatchObject({ status: 'sent', parts: 1 });
      // The SMSC prints its events on stdout, which may reach us after its answer on the socket.
      await smsc.waitForEvent((e) => e.event === 'submit_sm' && e.status === 0);
      const all = submits(smsc);
      expect(all.map((e) => e.status)).toEqual([0x58, 0x58, 0]);
      expect(sleeps).toEqual([50, 50]);
      expect(await smsc.waitForEvent((e) => e.event === 'message')).toMatchObject({ text });
    } finally {
      await smsc.stop();
    }
  });

  it('throttling beyond the bounded retries fails', async () => {
    const smsc = await startSmsc({ throttle: 100 });
    try {
      const sleeps: number[] = [];
      const s = sender(smsc.url(), { RINGHOOK_SMPP_THROTTLE_RETRIES: '2' }, sleeps);
      const result = await s.send({ to: TO, text: 'x', reference: 'call-throttle-max' });
      expect(result).toEqual({
        status: 'failed',
        error: 'submit_sm refused: ESME_RTHROTTLED (throttling error) (after 2 throttling retries)',
      });
      await waitFor('3 submit_sm at the SMSC', () => (submits(smsc).length >= 3 ? true : undefined));
      expect(submits(smsc)).toHaveLength(3);
    } finally {
      await smsc.stop();
    }
  });

  it('an UNDELIV receipt is reported as failed', async () => {
    const smsc = await startSmsc({ receiptStat: 'UNDELIV' });
    try {
      const s = sender(smsc.url());
      const reports: DeliveryReport[] = [];
      s.onDeliveryReport((r) => reports.push(r));
      const result = await s.send({ to: TO, text: 'x', reference: 'call-undeliv' });
      const report = await waitFor('a delivery report', () => reports[0]);
      expect(report).toEqual({
        messageId: result.status === 'sent' ? result.messageId : '',
        status: 'failed',
        detail: 'UNDELIV err:001',
      });
    } finally {
      await smsc.stop();
    }
  });

  it('close() returns promptly even when the SMSC has just died under a bound session', async () => {
    const smsc = await startSmsc();
    const s = sender(smsc.url());
    expect((await s.send({ to: TO, text: 'x', reference: 'call-close' })).status).toBe('sent');
    await smsc.stop();
    const t0 = Date.now();
    await s.close();
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(await s.send({ to: TO, text: 'x', reference: 'call-after-close' })).toMatchObject({
      status: 'failed',
      error: 'SMS sender is closed',
    });
  });

  it('reconnects and binds again after the SMSC restarts', async () => {
    const first = await startSmsc();
    const s = sender(first.url());
    expect((await s.send({ to: TO, text: 'before', reference: 'call-r1' })).status).toBe('sent');
    await first.stop();
    const second = await startSmsc({ port: first.port });
    try {
      await second.waitForEvent((e) => e.event === 'bind', { timeoutMs: 5_000 });
      const result = await s.send({ to: TO, text: 'after restart', reference: 'call-r2' });
      expect(result).toMatchObject({ status: 'sent' });
      expect(await second.waitForEvent((e) => e.event === 'message')).toMatchObject({ text: 'after restart' });
    } finally {
      await s.close();
      await second.stop();
    }
  });
});
