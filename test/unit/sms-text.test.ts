import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeGsm7, decodeUcs2, encodeGsm7, encodeUcs2, gsm7Length, isGsm7 } from '../../src/sms/gsm7.js';
import { concatUdh, countSmsParts, detectEncoding, planSmppParts, splitSms } from '../../src/sms/segments.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { buildSmsText, SMS_PREFIX } from '../../src/sms/text.js';

describe('GSM 7-bit detection and encoding', () => {
  it('accepts the basic table and the extension table', () => {
    expect(isGsm7('Hello @£$¥ èéùìò ÄÖÑÜ§¿ äöñüà ΔΦΓΛΩΠΨΣΘΞ\n\r')).toBe(true);
    expect(isGsm7('€ [ ] { } ~ ^ | \\ \f')).toBe(true);
  });

  it('rejects what GSM 7-bit cannot carry', () => {
    for (const s of ['→', '🚀', 'ç', 'á', '`', '’', '…', 'Ж', '中']) expect(isGsm7(s), s).toBe(false);
  });

  it('counts extension characters as two septets', () => {
    expect(gsm7Length('abc')).toBe(3);
    expect(gsm7Length('€[]')).toBe(6);
    expect(() => gsm7Length('→')).toThrow(/U\+2192/);
  });

  it('encodes to the 3GPP TS 23.038 septets', () => {
    expect([...encodeGsm7('@A€_')]).toEqual([0x00, 0x41, 0x1b, 0x65, 0x11]);
  });

  it('round-trips any GSM text, and any text through UCS-2', () => {
    const gsmChar = fc.constantFrom(
      ...Array.from('@£$¥èéùìòÇ\nØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./09:;<=>?¡AZÄÖÑÜ§¿azäöñüà€[]{}~^|\\'),
    );
    fc.assert(
      fc.property(
        fc.array(gsmChar).map((a) => a.join('')),
        (s) => decodeGsm7(encodeGsm7(s)) === s,
      ),
    );
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => decodeUcs2(encodeUcs2(s)) === s));
    expect(encodeUcs2('A🚀').toString('hex')).toBe('0041d83dde80');
  });
});

describe('splitting into SMS parts', () => {
  it('keeps 160 GSM septets or 70 UCS-2 units in one SMS', () => {
    expect(splitSms('a'.repeat(160))).toHaveLength(1);
    expect(splitSms('a'.repeat(161)).map((p) => p.length)).toEqual([153, 8]);
    expect(splitSms('→'.repeat(70))).toHaveLength(1);
    expect(splitSms('→'.repeat(71)).map((p) => p.length)).toEqual([67, 4]);
  });

  it('never cuts an escape sequence nor a surrogate pair', () => {
    const gsm = splitSms(`${'a'.repeat(152)}€${'b'.repeat(20)}`);
    expect(gsm[0]).toBe('a'.repeat(152));
    expect(gsm[1]!.startsWith('€')).toBe(true);
    const ucs = splitSms(`${'x'.repeat(66)}🚀${'y'.repeat(10)}`);
    expect(ucs[0]).toBe('x'.repeat(66));
    expect(ucs[1]!.startsWith('🚀')).toBe(true);
  });

  it('parts always join back to the text, and fit their limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 600 }), (s) => {
        const enc = detectEncoding(s);
        const parts = splitSms(s);
        expect(parts.join('')).toBe(s);
        for (const p of parts) {
          const units = enc === 'gsm7' ? gsm7Length(p) : p.length;
          expect(units).toBeLessThanOrEqual(
            parts.length === 1 ? (enc === 'gsm7' ? 160 : 70) : enc === 'gsm7' ? 153 : 67,
          );
        }
      }),
    );
  });

  it('plans SMPP parts with a concatenation UDH, or one message_payload', () => {
    const long = planSmppParts('a'.repeat(200), { usePayload: false, concatReference: 7 });
    expect(long).toHaveLength(2);
    expect(long[0]!.shortMessage.subarray(0, 6)).toEqual(concatUdh(7, 2, 1));
    expect(long[1]!.shortMessage.subarray(0, 6).toString('hex')).toBe('050003070202');
    expect(long.every((p) => p.esmClass === 0x40 && p.dataCoding === 0)).toBe(true);
    const ucs = planSmppParts('→', { usePayload: false, concatReference: 0 });
    expect(ucs).toEqual([{ shortMessage: Buffer.from('2192', 'hex'), esmClass: 0, dataCoding: 8 }]);
    const payload = planSmppParts('b'.repeat(500), { usePayload: true, concatReference: 0 });
    expect(payload).toHaveLength(1);
    expect(payload[0]!.messagePayload).toHaveLength(500);
    expect(payload[0]!.shortMessage).toHaveLength(0);
  });
});

describe('buildSmsText', () => {
  // #51: a released quiet-hours batch of 10,000 alerts was one SMS text of every message.
  it.each([11, 1_000, 10_000])('a held batch of %i: the newest that fit whole, then how many more', (n) => {
    const messages = Array.from({ length: n }, (_, i) => `Gold crossed ${2_400 + i} on 4H, alert ${i}`);
    for (const maxParts of [1, DEFAULTS.sms.maxParts]) {
      const text = buildSmsText(messages, { maxParts });
      expect(countSmsParts(text)).toBeLessThanOrEqual(maxParts);
      expect(
        text.startsWith(
          `Missed call, ${n} alerts, newest first: 1) Gold crossed ${2_400 + n - 1} on 4H, alert ${n - 1}`,
        ),
      ).toBe(true);
      const listed = (text.match(/\d+\) Gold crossed/g) ?? []).length;
      expect(listed).toBeGreaterThanOrEqual(1);
      if (listed === n) expect(text).not.toMatch(/older alert/);
      else expect(text.endsWith(` and ${n - listed} older alerts: see your history`)).toBe(true);
      if (n === 10_000) expect(listed).toBeLessThan(n);
    }
  });

  it('a held batch whose newest alone is too long: cut with "...", the count still said', () => {
    const messages = Array.from({ length: 20 }, () => 'x'.repeat(400));
    const text = buildSmsText(messages, { maxParts: 1 });
    expect(countSmsParts(text)).toBe(1);
    expect(text).toMatch(/^Missed call, 20 alerts, newest first: 1\) x+\.\.\. and 19 older alerts: see your history$/);
  });

  it('prefixes and trims the message', () => {
    expect(buildSmsText('  BTC up  ')).toBe('Missed call alert: BTC up');
  });

  it('keeps a 500-character alert whole within the default cap', () => {
    const gsm = 'g'.repeat(500);
    expect(buildSmsText(gsm)).toBe(SMS_PREFIX + gsm);
    expect(countSmsParts(buildSmsText(gsm))).toBe(4);
    const ucs = '→'.repeat(500);
    expect(buildSmsText(ucs)).toBe(SMS_PREFIX + ucs);
    expect(countSmsParts(buildSmsText(ucs))).toBe(DEFAULTS.sms.maxParts);
  });

  it.each([
    ['flags', '🇺🇸', 'x'],
    ['an emoji with its skin tone', '👍🏽', 'x'],
    ['a family (joined emoji)', '👨‍👩‍👧', 'x'],
    ['a letter with combining accents', 'e\u0301\u0302', 'é'],
  ])('never cuts inside %s: the text ends with a whole one, then "..."', (_what, character, padding) => {
    for (const offset of [0, 1]) {
      const text = buildSmsText(padding.repeat(offset) + character.repeat(600), { maxParts: 2 });
      expect(text.endsWith(`${character}...`)).toBe(true);
      const body = text.slice((SMS_PREFIX + padding.repeat(offset)).length, -3);
      expect(body).toBe(character.repeat(body.length / character.length));
    }
  });

  it('cuts what does not fit at a character boundary, with "..."', () => {
    const emoji = '🚀'.repeat(500);
    const text = buildSmsText(emoji);
    expect(countSmsParts(text)).toBeLessThanOrEqual(DEFAULTS.sms.maxParts);
    expect(text.endsWith('🚀...')).toBe(true);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(text)).toBe(false);
    const one = buildSmsText('word '.repeat(100), { maxParts: 1 });
    expect(one.length).toBeLessThanOrEqual(160);
    expect(one).toMatch(/^Missed call alert: word word .*\.\.\.$/);
    expect(one).not.toMatch(/ \.\.\.$/);
  });

  it('never exceeds the cap, whatever the message', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 500 }), fc.integer({ min: 1, max: 10 }), (m, maxParts) => {
        const text = buildSmsText(m, { maxParts });
        expect(countSmsParts(text)).toBeLessThanOrEqual(maxParts);
        expect(text.startsWith(SMS_PREFIX)).toBe(true);
      }),
    );
  });
});

describe('buildSmsText for a call that carried several alerts', () => {
  it('says how many, then each in order of arrival, numbered', () => {
    expect(buildSmsText(['AAPL up', ' TSLA down ', 'SPY flat'])).toBe(
      'Missed call, 3 alerts: 1) AAPL up 2) TSLA down 3) SPY flat',
    );
  });

  it('one alert in a list reads as a single one', () => {
    expect(buildSmsText(['AAPL up'])).toBe(buildSmsText('AAPL up'));
  });

  it('is cut with the mark to fit the parts allowed', () => {
    const text = buildSmsText(
      Array.from({ length: 10 }, (_, i) => `alert number ${i} with some words`),
      { maxParts: 1 },
    );
    expect(countSmsParts(text)).toBe(1);
    expect(text.startsWith('Missed call, 10 alerts: 1) alert number 0')).toBe(true);
    expect(text.endsWith('...')).toBe(true);
  });
});

describe("quiet hours' SMS (sms_instead)", () => {
  it('says quiet hours, never a missed call: no call was made', () => {
    expect(buildSmsText('ETH crossed 4000', { cause: 'quiet_hours' })).toBe('Alert (quiet hours): ETH crossed 4000');
    expect(buildSmsText(['a', 'b'], { cause: 'quiet_hours' })).toBe('2 alerts (quiet hours): 1) a 2) b');
    expect(buildSmsText('ETH crossed 4000')).toBe('Missed call alert: ETH crossed 4000');
  });

  it('a batch larger than a merged call says quiet hours too, newest first', () => {
    const many = Array.from({ length: 12 }, (_, i) => `alert ${i}`);
    expect(buildSmsText(many, { cause: 'quiet_hours' })).toMatch(
      /^12 alerts \(quiet hours\), newest first: 1\) alert 11 /,
    );
    expect(buildSmsText(many)).toMatch(/^Missed call, 12 alerts, newest first: 1\) alert 11 /);
  });
});
