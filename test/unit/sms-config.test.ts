import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/lib/errors.js';
import { smsConfig } from '../helpers/sms-config.js';

function problems(env: Record<string, string>): string {
  try {
    smsConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
  throw new Error('expected the configuration to be rejected');
}

describe('the SMS configuration', () => {
  it('is off when nothing is set (blank counts as unset)', () => {
    expect(smsConfig({})).toEqual({ gateway: 'none' });
    expect(smsConfig({ RINGHOOK_SMS_GATEWAY: ' ' })).toEqual({ gateway: 'none' });
  });

  it('names a wrong gateway kind and lists the choices', () => {
    expect(problems({ RINGHOOK_SMS_GATEWAY: 'sms' })).toMatch(/RINGHOOK_SMS_GATEWAY must be none, http or smpp/);
  });

  it('lists every problem at once', () => {
    const msg = problems({ RINGHOOK_SMS_GATEWAY: 'http', RINGHOOK_SMS_MAX_PARTS: 'x' });
    expect(msg).toMatch(/RINGHOOK_SMS_MAX_PARTS must be a whole number/);
    expect(msg).toMatch(/RINGHOOK_SMS_FROM is required/);
    expect(msg).toMatch(/RINGHOOK_SMS_HTTP_PRESET is required/);
  });

  it('reads a kannel gateway and insists on username and password in the URL', () => {
    const base = { RINGHOOK_SMS_GATEWAY: 'http', RINGHOOK_SMS_HTTP_PRESET: 'kannel', RINGHOOK_SMS_FROM: 'RINGHOOK' };
    expect(problems({ ...base, RINGHOOK_SMS_HTTP_URL: 'http://127.0.0.1:13013/cgi-bin/sendsms' })).toMatch(
      /RINGHOOK_SMS_HTTP_URL must carry the sendsms-user's username and password/,
    );
    const cfg = smsConfig({
      ...base,
      RINGHOOK_SMS_HTTP_URL: 'http://127.0.0.1:13013/cgi-bin/sendsms?username=u&password=p',
    });
    expect(cfg).toMatchObject({
      gateway: 'http',
      from: 'RINGHOOK',
      maxParts: 8,
      dlrUrl: null,
      retryAttempts: 3,
      http: { preset: 'kannel', url: 'http://127.0.0.1:13013/cgi-bin/sendsms?username=u&password=p' },
    });
  });

  it('rejects a sender that is neither a number nor a short alphanumeric name', () => {
    expect(
      problems({
        RINGHOOK_SMS_GATEWAY: 'smpp',
        RINGHOOK_SMS_FROM: 'MuchTooLongSender',
        RINGHOOK_SMPP_URL: 'smpp://a:b@h',
      }),
    ).toMatch(/RINGHOOK_SMS_FROM must be a phone number/);
  });

  it('reads an smpp URL with defaults and percent-decoded credentials', () => {
    const cfg = smsConfig({
      RINGHOOK_SMS_GATEWAY: 'smpp',
      RINGHOOK_SMS_FROM: '+15550001',
      RINGHOOK_SMPP_URL: 'smpp://ring:p%40ss@127.0.0.1',
    });
    expect(cfg).toMatchObject({
      gateway: 'smpp',
      smpp: {
        host: '127.0.0.1',
        port: 2775,
        tls: false,
        systemId: 'ring',
        password: 'p@ss',
        systemType: '',
        sourceTon: 'auto',
        sourceNpi: 'auto',
        destTon: 1,
        destNpi: 1,
        usePayload: false,
        deliveryReceipts: true,
        enquireLinkMs: 30_000,
      },
    });
    const tls = smsConfig({
      RINGHOOK_SMS_GATEWAY: 'smpp',
      RINGHOOK_SMS_FROM: 'RINGHOOK',
      RINGHOOK_SMPP_URL: 'smpps://ring:pw@smsc.example.com',
      RINGHOOK_SMPP_USE_MESSAGE_PAYLOAD: 'yes',
      RINGHOOK_SMPP_SOURCE_TON: '5',
    });
    expect(tls).toMatchObject({ smpp: { tls: true, port: 3550, usePayload: true, sourceTon: 5 } });
  });

  it('explains a malformed smpp URL', () => {
    expect(problems({ RINGHOOK_SMS_GATEWAY: 'smpp', RINGHOOK_SMS_FROM: '1', RINGHOOK_SMPP_URL: 'http://x' })).toMatch(
      /RINGHOOK_SMPP_URL must look like smpp:\/\/system_id:password@host:port/,
    );
    expect(problems({ RINGHOOK_SMS_GATEWAY: 'smpp', RINGHOOK_SMS_FROM: '1' })).toMatch(/RINGHOOK_SMPP_URL is required/);
  });

  it('needs twilio credentials, and reads the API base', () => {
    const base = { RINGHOOK_SMS_GATEWAY: 'http', RINGHOOK_SMS_HTTP_PRESET: 'twilio', RINGHOOK_SMS_FROM: '+15550001' };
    expect(problems(base)).toMatch(
      /RINGHOOK_SMS_TWILIO_ACCOUNT_SID is required[\s\S]*RINGHOOK_SMS_TWILIO_AUTH_TOKEN is required/,
    );
    const cfg = smsConfig({ ...base, RINGHOOK_SMS_TWILIO_ACCOUNT_SID: 'AC1', RINGHOOK_SMS_TWILIO_AUTH_TOKEN: 't' });
    expect(cfg).toMatchObject({ http: { preset: 'twilio', baseUrl: 'https://api.twilio.com', accountSid: 'AC1' } });
  });

  it('reads a generic template and checks it', () => {
    const base = { RINGHOOK_SMS_GATEWAY: 'http', RINGHOOK_SMS_HTTP_PRESET: 'generic', RINGHOOK_SMS_FROM: 'X' };
    expect(problems({ ...base, RINGHOOK_SMS_HTTP_URL: 'https://sms.example.com/send' })).toMatch(/needs \{text\}/);
    expect(problems({ ...base, RINGHOOK_SMS_HTTP_URL: 'https://x/{text}', RINGHOOK_SMS_HTTP_HEADERS: '[1]' })).toMatch(
      /RINGHOOK_SMS_HTTP_HEADERS must be a JSON object of strings/,
    );
    const cfg = smsConfig({
      ...base,
      RINGHOOK_SMS_HTTP_URL: 'https://sms.example.com/send',
      RINGHOOK_SMS_HTTP_BODY: '{"to":"{to}","text":"{text}"}',
      RINGHOOK_SMS_HTTP_HEADERS: '{"Authorization":"Bearer T"}',
      RINGHOOK_SMS_HTTP_SUCCESS_STATUS: '200,202',
      RINGHOOK_SMS_HTTP_ID_FIELD: 'data.id',
    });
    if (cfg.gateway !== 'http' || cfg.http.preset !== 'generic') throw new Error('expected generic');
    expect(cfg.http).toMatchObject({
      method: 'POST',
      bodyFormat: 'json',
      headers: { Authorization: 'Bearer T' },
      idField: 'data.id',
    });
    expect(cfg.http.successStatus(202)).toBe(true);
    expect(cfg.http.successStatus(201)).toBe(false);
  });
});
