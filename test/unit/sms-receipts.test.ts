// Securing the SMS receipt route: the token ringhook adds to the receipt URL it hands the gateway,
// where that token is kept, and Twilio's request signature (checked against the example Twilio's
// "Webhooks security" documentation publishes).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { twilioSignatureValid } from '../../src/http/sms-receipts.js';
import { smsConfig } from '../helpers/sms-config.js';
import { kannelRequest, twilioRequest } from '../../src/sms/http-presets.js';
import { receiptUrl, withReceiptToken } from '../../src/sms/receipts.js';
import { twilioSignature, twilioSignedUrls } from '../../src/sms/twilio-signature.js';
import { smsReceiptToken } from '../../src/app/telephony.js';

// Twilio's published example: this URL, auth token 12345, these parameters.
const DOC_URL = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const DOC_PARAMS = new URLSearchParams({
  CallSid: 'CA1234567890ABCDE',
  Caller: '+12349013030',
  Digits: '1234',
  From: '+12349013030',
  To: '+18005551212',
});
const DOC_SIGNATURE = '0/KCTR6DLpKmkAf8muzZqo1nDgQ=';

describe('Twilio signature', () => {
  it("matches the example of Twilio's documentation", () => {
    expect(twilioSignature('12345', DOC_URL, DOC_PARAMS)).toBe(DOC_SIGNATURE);
  });

  it('sorts the parameters by name whatever order they came in', () => {
    const shuffled = new URLSearchParams([...DOC_PARAMS].reverse());
    expect(twilioSignature('12345', DOC_URL, shuffled)).toBe(DOC_SIGNATURE);
  });

  it('changes with the URL, any parameter, or the auth token', () => {
    expect(twilioSignature('12345', DOC_URL.replace('foo=1', 'foo=2'), DOC_PARAMS)).not.toBe(DOC_SIGNATURE);
    expect(
      twilioSignature('12345', DOC_URL, new URLSearchParams({ ...Object.fromEntries(DOC_PARAMS), Digits: '1235' })),
    ).not.toBe(DOC_SIGNATURE);
    expect(twilioSignature('12346', DOC_URL, DOC_PARAMS)).not.toBe(DOC_SIGNATURE);
  });

  it('signs a repeated name with each value, values sorted', () => {
    const a = twilioSignature('k', 'https://x.example/cb', new URLSearchParams('M=b&A=1&M=a'));
    const b = twilioSignature('k', 'https://x.example/cb', new URLSearchParams('A=1&M=a&M=b'));
    expect(a).toBe(b);
  });

  it('knows the URL with and without its default port', () => {
    expect(twilioSignedUrls('https://rh.example/sms/dlr?a=1')).toEqual([
      'https://rh.example/sms/dlr?a=1',
      'https://rh.example:443/sms/dlr?a=1',
    ]);
    expect(twilioSignedUrls('https://rh.example:8443/sms/dlr')).toEqual([
      'https://rh.example:8443/sms/dlr',
      'https://rh.example/sms/dlr',
    ]);
  });

  it('is checked over the public URL with the query as it arrived, in constant time', () => {
    const form = new URLSearchParams({ MessageSid: 'SM1', MessageStatus: 'delivered' });
    const search = '?rh_token=abc';
    const good = twilioSignature('auth', 'https://rh.example/sms/dlr?rh_token=abc', form);
    expect(twilioSignatureValid('auth', 'https://rh.example/sms/dlr', search, form, good)).toBe(true);
    // Twilio may have signed the URL with :443 spelled out.
    const withPort = twilioSignature('auth', 'https://rh.example:443/sms/dlr?rh_token=abc', form);
    expect(twilioSignatureValid('auth', 'https://rh.example/sms/dlr', search, form, withPort)).toBe(true);
    expect(twilioSignatureValid('auth', 'https://rh.example/sms/dlr', search, form, null)).toBe(false);
    expect(twilioSignatureValid('auth', 'https://rh.example/sms/dlr', search, form, '')).toBe(false);
    expect(twilioSignatureValid('other', 'https://rh.example/sms/dlr', search, form, good)).toBe(false);
    expect(
      twilioSignatureValid('auth', 'https://rh.example/sms/dlr', `${search}&MessageStatus=failed`, form, good),
    ).toBe(false);
    expect(
      twilioSignatureValid(
        'auth',
        'https://rh.example/sms/dlr',
        search,
        new URLSearchParams({ MessageSid: 'SM1', MessageStatus: 'failed' }),
        good,
      ),
    ).toBe(false);
  });
});

describe('receipt URL', () => {
  it("adds the token to the operator's URL, keeping its own query string", () => {
    expect(receiptUrl('https://rh.example/sms/dlr', 'T0k-en_')).toBe('https://rh.example/sms/dlr?rh_token=T0k-en_');
    expect(receiptUrl('https://rh.example/sms/dlr?site=home&x=a%20b', 'tok')).toBe(
      'https://rh.example/sms/dlr?site=home&x=a%20b&rh_token=tok',
    );
    expect(receiptUrl('https://rh.example/sms/dlr?', 'tok')).toBe('https://rh.example/sms/dlr?rh_token=tok');
  });

  const kannelConfig = smsConfig({
    RINGHOOK_SMS_GATEWAY: 'http',
    RINGHOOK_SMS_HTTP_PRESET: 'kannel',
    RINGHOOK_SMS_FROM: 'RINGHOOK',
    RINGHOOK_SMS_HTTP_URL: 'http://127.0.0.1:13013/cgi-bin/sendsms?username=u&password=p',
    RINGHOOK_SMS_DLR_URL: 'https://rh.example/sms/dlr?site=home',
  });
  const twilioConfig = smsConfig({
    RINGHOOK_SMS_GATEWAY: 'http',
    RINGHOOK_SMS_HTTP_PRESET: 'twilio',
    RINGHOOK_SMS_FROM: '+15550001111',
    RINGHOOK_SMS_TWILIO_ACCOUNT_SID: 'AC42',
    RINGHOOK_SMS_TWILIO_AUTH_TOKEN: 'tok',
    RINGHOOK_SMS_DLR_URL: 'https://rh.example/sms/twilio',
  });
  const sms = { to: '+15551230003', from: 'RINGHOOK', text: 'hi', reference: 'call-1', localId: 'L1' };

  it("is what Kannel's dlr-url and Twilio's StatusCallback carry", () => {
    const kannel = withReceiptToken(kannelConfig, 'secret1');
    if (kannel.gateway !== 'http' || kannel.http.preset !== 'kannel') throw new Error('kannel expected');
    const dlrUrl = new URL(kannelRequest(kannel.http, { ...sms, dlrUrl: kannel.dlrUrl }).url).searchParams.get(
      'dlr-url',
    );
    expect(dlrUrl).toBe('https://rh.example/sms/dlr?site=home&rh_token=secret1&rh_msgid=L1&rh_dlr=%d&rh_reply=%A');

    const twilio = withReceiptToken(twilioConfig, 'secret2');
    if (twilio.gateway !== 'http' || twilio.http.preset !== 'twilio') throw new Error('twilio expected');
    const body = new URLSearchParams(twilioRequest(twilio.http, { ...sms, dlrUrl: twilio.dlrUrl }).body!);
    expect(body.get('StatusCallback')).toBe('https://rh.example/sms/twilio?rh_token=secret2');
  });

  it('leaves a config without receipts as it is', () => {
    const none = smsConfig({});
    expect(withReceiptToken(none, 'x')).toBe(none);
    const noDlr = smsConfig({
      RINGHOOK_SMS_GATEWAY: 'http',
      RINGHOOK_SMS_HTTP_PRESET: 'twilio',
      RINGHOOK_SMS_FROM: '+1555',
      RINGHOOK_SMS_TWILIO_ACCOUNT_SID: 'AC',
      RINGHOOK_SMS_TWILIO_AUTH_TOKEN: 't',
    });
    expect(withReceiptToken(noDlr, 'x')).toBe(noDlr);
    expect(withReceiptToken(kannelConfig, null)).toBe(kannelConfig);
  });

  it('its token is made once, kept in the data dir (0600), and only when receipts are asked', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-receipt-'));
    expect(smsReceiptToken({ dataDir, sms: smsConfig({}) })).toBeNull();
    expect(fs.existsSync(path.join(dataDir, 'sms-receipt.secret'))).toBe(false);
    const token = smsReceiptToken({ dataDir, sms: kannelConfig });
    expect(token).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(fs.statSync(path.join(dataDir, 'sms-receipt.secret')).mode & 0o777).toBe(0o600);
    expect(smsReceiptToken({ dataDir, sms: twilioConfig })).toBe(token);
  });
});
