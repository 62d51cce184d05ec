// Pure gateway logic: request building and reply reading per preset, delivery report parsing,
// SMPP addresses and statuses. The Twilio preset has no real peer here: its exact request is
// checked against an injected fetch (as ntfy's server_twilio_test does).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { smsConfig } from '../helpers/sms-config.js';
import {
  kannelDlrUrl,
  parseKannelDlr,
  parseSmppReceiptText,
  parseTwilioStatus,
  receiptIdForms,
  smppReceiptReport,
} from '../../src/sms/delivery.js';
import {
  fillTemplate,
  genericVerdict,
  kannelRequest,
  kannelVerdict,
  pickField,
  safeUrl,
  twilioVerdict,
} from '../../src/sms/http-presets.js';
import { createSmsSender } from '../../src/sms/service.js';
import { destinationAddress, smppStatusName, sourceAddress } from '../../src/sms/smpp-params.js';

const sms = {
  to: '+15551230003',
  from: 'RINGHOOK',
  text: 'Missed call alert: a & b → c',
  reference: 'call-9',
  localId: 'L1',
  dlrUrl: 'https://rh.example/sms/dlr',
};

describe('Kannel preset', () => {
  it('builds the sendsms GET with coding=2 only for non-GSM text, and the dlr-url', () => {
    const spec = kannelRequest(
      { preset: 'kannel', url: 'http://127.0.0.1:13013/cgi-bin/sendsms?username=u&password=p' },
      sms,
    );
    const q = new URL(spec.url).searchParams;
    expect(Object.fromEntries(q)).toEqual({
      username: 'u',
      password: 'p',
      from: 'RINGHOOK',
      to: '+15551230003',
      text: 'Missed call alert: a & b → c',
      charset: 'UTF-8',
      coding: '2',
      'dlr-mask': '19',
      'dlr-url': 'https://rh.example/sms/dlr?rh_msgid=L1&rh_dlr=%d&rh_reply=%A',
    });
    const plain = kannelRequest(
      { preset: 'kannel', url: 'http://k/cgi-bin/sendsms?username=u&password=p' },
      { ...sms, text: 'plain', dlrUrl: null },
    );
    expect(new URL(plain.url).searchParams.has('coding')).toBe(false);
    expect(new URL(plain.url).searchParams.has('dlr-url')).toBe(false);
  });

  it('reads Kannel replies', () => {
    expect(kannelVerdict(202, '0: Accepted for delivery', 'L1')).toEqual({ accepted: true, messageId: 'L1' });
    expect(kannelVerdict(202, '3: Queued for later delivery', null)).toEqual({ accepted: true, messageId: null });
    expect(kannelVerdict(403, 'Authorization failed for sendsms', null)).toMatchObject({
      accepted: false,
      retryable: false,
    });
    expect(kannelVerdict(503, 'Sending failed.', null)).toMatchObject({ accepted: false, retryable: true });
  });

  it('parses its dlr-url calls', () => {
    const url = new URL(
      kannelDlrUrl('http://rh/sms/dlr?k=1', 'abc').replace('%d', '2').replace('%A', 'NACK%2F0x0000000b'),
    );
    expect(parseKannelDlr(url.searchParams)).toEqual({
      messageId: 'abc',
      status: 'failed',
      detail: 'not delivered to phone: NACK/0x0000000b',
    });
    expect(parseKannelDlr(new URLSearchParams('rh_msgid=a&rh_dlr=1'))).toMatchObject({ status: 'delivered' });
    expect(parseKannelDlr(new URLSearchParams('rh_msgid=a&rh_dlr=x'))).toBeNull();
  });
});

describe('a gateway that answers without end', () => {
  it('is read up to 8 KiB: its verdict comes from that, and the rest is not read', async () => {
    let written = 0;
    const server = http.createServer((_req, res) => {
      res.writeHead(202, { 'content-type': 'text/plain' });
      res.write('0: Accepted for delivery\n');
      const more = () => {
        while (written < 200 * 1024 * 1024 && res.write(Buffer.alloc(64 * 1024, 'x'))) written += 64 * 1024;
      };
      res.on('drain', more);
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const config = smsConfig({
        RINGHOOK_SMS_GATEWAY: 'http',
        RINGHOOK_SMS_HTTP_PRESET: 'kannel',
        RINGHOOK_SMS_HTTP_URL: `http://127.0.0.1:${port}/cgi-bin/sendsms?username=u&password=p`,
        RINGHOOK_SMS_FROM: 'RINGHOOK',
      });
      const s = createSmsSender(config, { logger: silentLogger });
      expect(await s.send({ to: '+15551230003', text: 'hi', reference: 'c1' })).toMatchObject({ status: 'sent' });
      expect(written).toBeLessThan(50 * 1024 * 1024);
      await s.close();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('Twilio preset (injected fetch: no real Twilio here)', () => {
  it('POSTs the form with Basic auth to the Messages API and reads the sid', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const fetchStub = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response(JSON.stringify({ sid: 'SM123', status: 'queued' }), { status: 201 });
    }) as unknown as typeof fetch;
    const config = smsConfig({
      RINGHOOK_SMS_GATEWAY: 'http',
      RINGHOOK_SMS_HTTP_PRESET: 'twilio',
      RINGHOOK_SMS_FROM: '+15550001111',
      RINGHOOK_SMS_HTTP_URL: 'http://127.0.0.1:9/',
      RINGHOOK_SMS_TWILIO_ACCOUNT_SID: 'AC42',
      RINGHOOK_SMS_TWILIO_AUTH_TOKEN: 'tok',
      RINGHOOK_SMS_DLR_URL: 'https://rh.example/sms/dlr',
    });
    const s = createSmsSender(config, { logger: silentLogger, fetch: fetchStub });
    expect(await s.send({ to: '+15551230003', text: 'hi → there', reference: 'c1' })).toEqual({
      status: 'sent',
      messageId: 'SM123',
      parts: 1,
    });
    expect(calls[0]!.url).toBe('http://127.0.0.1:9/2010-04-01/Accounts/AC42/Messages.json');
    expect(calls[0]!.init.method).toBe('POST');
    expect((calls[0]!.init.headers as Record<string, string>).authorization).toBe(
      `Basic ${Buffer.from('AC42:tok').toString('base64')}`,
    );
    expect(Object.fromEntries(new URLSearchParams(String(calls[0]!.init.body)))).toEqual({
      To: '+15551230003',
      From: '+15550001111',
      Body: 'hi → there',
      StatusCallback: 'https://rh.example/sms/dlr',
    });
    const report = s.handleDeliveryCallback!(new URLSearchParams('MessageSid=SM123&MessageStatus=delivered'));
    expect(report).toEqual({ messageId: 'SM123', status: 'delivered', detail: 'delivered' });
  });

  it('reads Twilio errors', () => {
    expect(twilioVerdict(400, '{"code":21211,"message":"Invalid To","status":400}')).toEqual({
      accepted: false,
      error: 'Twilio answered 400: Invalid To (code 21211)',
      retryable: false,
    });
    expect(twilioVerdict(429, '{"code":20429,"message":"Too Many Requests"}')).toMatchObject({ retryable: true });
    expect(parseTwilioStatus(new URLSearchParams('MessageSid=S&MessageStatus=undelivered&ErrorCode=30003'))).toEqual({
      messageId: 'S',
      status: 'failed',
      detail: 'undelivered (error 30003)',
    });
  });
});

describe('generic preset', () => {
  it('escapes placeholder values for JSON, form and URL', () => {
    expect(fillTemplate('{"t":"{text}"}', { ...sms, text: 'say "hi"\n' }, (v) => JSON.stringify(v).slice(1, -1))).toBe(
      '{"t":"say \\"hi\\"\\n"}',
    );
    expect(fillTemplate('https://x/?to={to}&m={text}', sms, encodeURIComponent)).toBe(
      'https://x/?to=%2B15551230003&m=Missed%20call%20alert%3A%20a%20%26%20b%20%E2%86%92%20c',
    );
  });

  it('checks status, body match and reads the id', () => {
    const config = smsConfig({
      RINGHOOK_SMS_GATEWAY: 'http',
      RINGHOOK_SMS_HTTP_PRESET: 'generic',
      RINGHOOK_SMS_FROM: 'X',
      RINGHOOK_SMS_HTTP_URL: 'https://x/{text}',
      RINGHOOK_SMS_HTTP_SUCCESS_MATCH: '"ok":true',
      RINGHOOK_SMS_HTTP_ID_FIELD: 'data.id',
    });
    if (config.gateway !== 'http' || config.http.preset !== 'generic') throw new Error('generic expected');
    expect(genericVerdict(config.http, 200, '{"ok":true,"data":{"id":77}}')).toEqual({
      accepted: true,
      messageId: '77',
    });
    expect(genericVerdict(config.http, 200, '{"ok":false}')).toMatchObject({ accepted: false, retryable: false });
    expect(genericVerdict(config.http, 503, 'busy')).toMatchObject({ accepted: false, retryable: true });
    expect(pickField({ a: { b: 'c' } }, 'a.b')).toBe('c');
    expect(pickField({ a: 1 }, 'a.b')).toBeNull();
  });

  it('keeps secrets out of URLs it reports', () => {
    expect(safeUrl('http://u:pw@127.0.0.1:13013/cgi-bin/sendsms?username=u&password=p')).toBe(
      'http://127.0.0.1:13013/cgi-bin/sendsms',
    );
  });
});

describe('SMPP receipts, addresses, statuses', () => {
  it('matches a receipt whose id is written in decimal to a submit answered in hex, and the other way round', () => {
    expect(receiptIdForms('0000006699')).toEqual(expect.arrayContaining(['0000006699', '6699', '1a2b', '1A2B']));
    expect(receiptIdForms('1A2B')).toContain('6699');
    expect(receiptIdForms('1a2b')).toContain('6699');
    expect(receiptIdForms('msg-7f')).toEqual(['msg-7f']);
    expect(receiptIdForms('012345678901234567890123')).toContain('29d42b64e76714244cb');
    // A plain decimal id is the submit's own: it is never read as another message's hex.
    expect(receiptIdForms('16')).toEqual(['16']);
  });

  it('parses the SMPP 3.4 Appendix B receipt text', () => {
    const r = parseSmppReceiptText(
      'id:0A1B sub:001 dlvrd:001 submit date:2401011200 done date:2401011201 stat:DELIVRD err:000 text:Missed call',
    );
    expect(r).toMatchObject({
      id: '0A1B',
      stat: 'DELIVRD',
      err: '000',
      fields: { 'done date': '2401011201', text: 'Missed call' },
    });
    expect(parseSmppReceiptText('hello')).toBeNull();
  });

  it('prefers the receipted_message_id and message_state TLVs', () => {
    expect(
      smppReceiptReport({ text: 'id:1 stat:ENROUTE err:000', receiptedMessageId: 'X9\0', messageState: 5 }),
    ).toEqual({
      gatewayId: 'X9',
      status: 'failed',
      detail: 'UNDELIV',
    });
    expect(smppReceiptReport({ text: 'id:77 sub:001 dlvrd:000 stat:EXPIRED err:012 text:' })).toEqual({
      gatewayId: '77',
      status: 'failed',
      detail: 'EXPIRED err:012',
    });
    expect(smppReceiptReport({ text: 'id:77 stat:ACCEPTD err:000' })).toMatchObject({ status: 'pending' });
  });

  it('chooses TON/NPI for the sender', () => {
    expect(sourceAddress('+15550001', 'auto', 'auto')).toEqual({ addr: '15550001', ton: 1, npi: 1 });
    expect(sourceAddress('RINGHOOK', 'auto', 'auto')).toEqual({ addr: 'RINGHOOK', ton: 5, npi: 0 });
    expect(sourceAddress('12345', 'auto', 'auto')).toEqual({ addr: '12345', ton: 0, npi: 1 });
    expect(sourceAddress('12345', 3, 0)).toEqual({ addr: '12345', ton: 3, npi: 0 });
    expect(destinationAddress('+4479', 1, 1)).toEqual({ addr: '4479', ton: 1, npi: 1 });
  });

  it('names statuses', () => {
    expect(smppStatusName(0x58)).toBe('ESME_RTHROTTLED (throttling error)');
    expect(smppStatusName(0x400)).toBe('command_status 0x00000400');
  });
});
