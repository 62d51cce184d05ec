// parseAlertBody: the two body forms, the content-type rules, every field rule, truncation and the
// hostile inputs (the webhook contract, and the README's decisions where the contract is silent).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_EXTRA_BYTES, TRUNCATED_KEY } from '../../src/core/webhook/extra-fields.js';
import {
  bodyExcerpt,
  jsonDepth,
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  MAX_MESSAGE_CODE_POINTS,
  parseAlertBody,
  truncateText,
  type Alert,
  type ParseResult,
} from '../../src/core/webhook/payload.js';

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);
const parse = (text: string, contentType?: string) => parseAlertBody(bytes(text), contentType);
const parseJson = (value: unknown, contentType = 'application/json') => parse(JSON.stringify(value), contentType);
const codePoints = (text: string) => Array.from(text).length;

function alertOf(result: ParseResult): Alert {
  if (!result.ok) throw new Error(`expected an accepted alert, got ${result.code}: ${result.error}`);
  return result.alert;
}

function failureOf(result: ParseResult): Extract<ParseResult, { ok: false }> {
  if (result.ok) throw new Error(`expected a refusal, got the alert ${JSON.stringify(result.alert)}`);
  return result;
}

const FAMILY = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}'; // 👨‍👩‍👧‍👦: 7 code points, one grapheme
const FLAG_FR = '\u{1F1EB}\u{1F1F7}'; // 🇫🇷: 2 code points, one grapheme
const E_ACUTE = 'e\u0301'; // e + combining acute accent: 2 code points, one grapheme

describe('body forms', () => {
  it('takes a plain-text body as the message, trimmed', () => {
    const alert = alertOf(parse('  AAPL broke resistance at 187.2 with volume 1200000 \n', 'text/plain'));
    expect(alert).toEqual({
      form: 'text',
      message: 'AAPL broke resistance at 187.2 with volume 1200000',
      truncated: false,
      originalLength: 50,
      fields: {},
      extra: {},
    });
  });

  it('takes a plain-text body without any content type', () => {
    expect(alertOf(parse('hello', undefined))).toMatchObject({ form: 'text', message: 'hello' });
    expect(alertOf(parse('hello', ''))).toMatchObject({ form: 'text', message: 'hello' });
  });

  it('takes a JSON object with its known fields', () => {
    const alert = alertOf(
      parseJson({
        message: 'BTCUSD crossed 100000',
        ticker: 'BTCUSD',
        price: 100012.5,
        action: 'buy',
        strategy: 'EMA cross',
        timestamp: '2026-11-22T14:00:00Z',
      }),
    );
    expect(alert).toEqual({
      form: 'json',
      message: 'BTCUSD crossed 100000',
      truncated: false,
      originalLength: 21,
      fields: {
        ticker: 'BTCUSD',
        price: 100012.5,
        action: 'buy',
        strategy: 'EMA cross',
        timestamp: '2026-11-22T14:00:00Z',
      },
      extra: {},
    });
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'Application/JSON; Charset=UTF-8',
    'APPLICATION/JSON',
    '  application/json  ',
    'application/vnd.api+json',
    'application/alert+json; charset=utf-8',
  ])('treats %j as declared JSON', (contentType) => {
    expect(alertOf(parse('{"message":"hi"}', contentType))).toMatchObject({ form: 'json', message: 'hi' });
    // Declared JSON that is not valid JSON is refused rather than spoken as text.
    expect(failureOf(parse('{"message": {{close}}}', contentType)).code).toBe('invalid_json');
    expect(failureOf(parse('[1, 2]', contentType)).code).toBe('not_an_object');
  });

  it.each([
    'text/plain',
    'text/plain; charset=utf-8',
    'TEXT/PLAIN',
    undefined,
    'application/x-www-form-urlencoded',
    'application/jsonx',
  ])('treats a JSON object labelled %j as the JSON form', (contentType) => {
    const alert = alertOf(parse('{"message":"ETH alert","ticker":"ETHUSD"}', contentType));
    expect(alert).toMatchObject({ form: 'json', message: 'ETH alert', fields: { ticker: 'ETHUSD' } });
  });

  it('treats a JSON object with leading whitespace labelled text/plain as the JSON form', () => {
    expect(alertOf(parse('\n  {"message":"x"}', 'text/plain'))).toMatchObject({ form: 'json', message: 'x' });
  });

  it('holds a JSON object labelled text/plain to the JSON field rules', () => {
    const failure = failureOf(parse('{"ticker":"ETHUSD"}', 'text/plain'));
    expect(failure).toMatchObject({ code: 'invalid_field', field: 'message' });
  });

  it.each(['[1, 2, 3]', '"just a string"', '42', 'null', 'true', '{ not json at all', '{{ticker}} crossed {{close}}'])(
    'speaks %j labelled text/plain as plain text',
    (body) => {
      expect(alertOf(parse(body, 'text/plain'))).toMatchObject({ form: 'text', message: body, fields: {}, extra: {} });
    },
  );

  it.each(['[1, 2, 3]', '[{"message":"x"}]', '"just a string"', '42', 'null', 'true', 'false'])(
    'refuses declared JSON %j that is not an object with not_an_object',
    (body) => {
      const failure = failureOf(parse(body, 'application/json'));
      expect(failure.code).toBe('not_an_object');
      expect(failure.error).toMatch(/object/);
    },
  );

  it('refuses declared JSON that does not parse with invalid_json, naming the cause', () => {
    const failure = failureOf(parse('{"message": "BTC at " {{close}}}', 'application/json'));
    expect(failure.code).toBe('invalid_json');
    expect(failure.error).toMatch(/not valid JSON/);
    expect(failureOf(parse('{"message":"x",}', 'application/json')).code).toBe('invalid_json');
    expect(failureOf(parse('hello', 'application/json')).code).toBe('invalid_json');
  });

  it('refuses an empty or blank body with empty_body, whatever the content type', () => {
    for (const contentType of ['text/plain', 'application/json', undefined]) {
      expect(failureOf(parseAlertBody(new Uint8Array(0), contentType)).code).toBe('empty_body');
      expect(failureOf(parse('  \n\t \r\n', contentType)).code).toBe('empty_body');
    }
  });
});

describe('the message field', () => {
  it('is required: a JSON body without it says so', () => {
    const failure = failureOf(parseJson({ ticker: 'AAPL' }));
    expect(failure).toMatchObject({ code: 'invalid_field', field: 'message' });
    expect(failure.error).toMatch(/no "message" field/);
  });

  it.each([
    ['an empty string', ''],
    ['blanks only', ' \t\n '],
    ['a number', 42],
    ['null', null],
    ['a boolean', true],
    ['an array', ['hi']],
    ['an object', { text: 'hi' }],
  ])('refuses a message that is %s', (_label, message) => {
    const failure = failureOf(parseJson({ message }));
    expect(failure).toMatchObject({ code: 'invalid_field', field: 'message' });
    expect(failure.error).toMatch(/"message"/);
  });

  it('is trimmed', () => {
    expect(alertOf(parseJson({ message: '  \n hello world \t ' })).message).toBe('hello world');
  });

  it('keeps inner whitespace, tabs and line breaks', () => {
    expect(alertOf(parseJson({ message: 'line one\nline two\r\n\tindented' })).message).toBe(
      'line one\nline two\r\n\tindented',
    );
    expect(alertOf(parse('a\tb\nc\r\nd', 'text/plain')).message).toBe('a\tb\nc\r\nd');
  });
});

describe('the price field', () => {
  it.each([
    [100012.5, 100012.5],
    [0, 0],
    [-3.25, -3.25],
    [1e21, 1e21],
    ['131.07', 131.07],
    ['1,234.5', 1234.5],
    ['1,234,567', 1234567],
    ['-42', -42],
    ['+7', 7],
    ['1e3', 1000],
    ['2.5E-3', 0.0025],
    ['.5', 0.5],
    ['5.', 5],
    [' 12 ', 12],
  ])('takes %j as the number %d', (price, expected) => {
    expect(alertOf(parseJson({ message: 'x', price })).fields.price).toBe(expected);
  });

  it.each([
    ['an empty string', ''],
    ['a word', 'abc'],
    ['"NaN"', 'NaN'],
    ['"Infinity"', 'Infinity'],
    ['"-Infinity"', '-Infinity'],
    ['an out-of-range numeric string', '1e400'],
    ['hexadecimal', '0x10'],
    ['a number with a unit', '12 USD'],
    ['an unsubstituted placeholder', '{{close}}'],
    ['true', true],
    ['false', false],
    ['an array', [1]],
    ['an object', { value: 1 }],
  ])('refuses %s, naming the field', (_label, price) => {
    expect(failureOf(parseJson({ message: 'x', price }))).toMatchObject({
      code: 'invalid_field',
      field: 'price',
      error: expect.stringContaining('"price"'),
    });
  });

  it('refuses a JSON number too large for a double (1e400)', () => {
    expect(failureOf(parse('{"message":"x","price":1e400}', 'application/json'))).toMatchObject({
      code: 'invalid_field',
      field: 'price',
    });
    expect(failureOf(parse('{"message":"x","price":-1e400}', 'application/json'))).toMatchObject({
      code: 'invalid_field',
      field: 'price',
    });
  });

  // "1,5" is a decimal comma (1.5) in much of Europe; reading it as 15 stores a wrong price without a word.
  // Commas are only unambiguous as thousands separators: groups of exactly three digits.
  it.each(['1,5', '12,34', '1,,234', '1,234,5', ',5', '5,'])(
    'refuses %j, whose comma is not a thousands separator',
    (price) => {
      expect(failureOf(parseJson({ message: 'x', price }))).toMatchObject({ code: 'invalid_field', field: 'price' });
    },
  );

  it('refuses a numeric string longer than any price at once (a pattern would take seconds over 60,000 digits)', () => {
    const started = performance.now();
    expect(failureOf(parseJson({ message: 'x', price: `${'1'.repeat(60_000)}x` }))).toMatchObject({
      code: 'invalid_field',
      field: 'price',
    });
    expect(failureOf(parseJson({ message: 'x', price: '1'.repeat(41) }))).toMatchObject({
      code: 'invalid_field',
      field: 'price',
    });
    expect(performance.now() - started).toBeLessThan(100);
    expect(alertOf(parseJson({ message: 'x', price: ` ${'1'.repeat(38)} ` })).fields.price).toBe(
      Number('1'.repeat(38)),
    );
  });

  it('property: a short string of digits, points, exponents and signs is read as the former (ambiguous, slow) pattern read it', () => {
    const former = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9.eE+-]{1,40}$/), (price) => {
        const result = parseJson({ message: 'x', price });
        const expected = former.test(price) && Number.isFinite(Number(price)) ? Number(price) : undefined;
        expect(result.ok ? result.alert.fields.price : undefined).toBe(expected);
      }),
    );
  });

  it('treats null as absent', () => {
    const alert = alertOf(parseJson({ message: 'x', price: null }));
    expect(alert.fields).toEqual({});
    expect(alert.extra).toEqual({});
  });
});

describe('ticker, action and strategy', () => {
  it.each(['ticker', 'action', 'strategy'] as const)('%s: a string of up to 200 characters is kept', (name) => {
    expect(alertOf(parseJson({ message: 'x', [name]: 'a'.repeat(200) })).fields[name]).toBe('a'.repeat(200));
    expect(alertOf(parseJson({ message: 'x', [name]: '' })).fields[name]).toBe('');
  });

  it.each(['ticker', 'action', 'strategy'] as const)(
    '%s: the 200 are counted in code points (200 emoji fit)',
    (name) => {
      expect(alertOf(parseJson({ message: 'x', [name]: '\u{1F680}'.repeat(200) })).fields[name]).toBe(
        '\u{1F680}'.repeat(200),
      );
      expect(failureOf(parseJson({ message: 'x', [name]: '\u{1F680}'.repeat(201) }))).toMatchObject({
        code: 'invalid_field',
        field: name,
      });
    },
  );

  it.each(['ticker', 'action', 'strategy'] as const)('%s: 201 characters are refused, naming the field', (name) => {
    const failure = failureOf(parseJson({ message: 'x', [name]: 'a'.repeat(201) }));
    expect(failure).toMatchObject({ code: 'invalid_field', field: name });
    expect(failure.error).toContain(`"${name}"`);
    expect(failure.error).toMatch(/200/);
  });

  it.each(['ticker', 'action', 'strategy'] as const)('%s: a non-string is refused, naming the field', (name) => {
    for (const value of [5, true, ['a'], { a: 1 }]) {
      expect(failureOf(parseJson({ message: 'x', [name]: value }))).toMatchObject({
        code: 'invalid_field',
        field: name,
      });
    }
  });

  it.each(['ticker', 'action', 'strategy', 'timestamp'] as const)('%s: null is treated as absent', (name) => {
    const alert = alertOf(parseJson({ message: 'x', [name]: null }));
    expect(alert.fields).toEqual({});
    expect(name in alert.fields).toBe(false);
    expect(alert.extra).toEqual({});
  });
});

describe('the timestamp field', () => {
  it.each([
    '2026-11-22T14:00:00Z',
    '2026-11-22T14:00:00.123Z',
    '2026-11-22T14:00:00.123456Z',
    '2026-11-22T14:00:00+02:00',
    '2026-11-22T14:00:00-05:30',
    '2026-11-22T14:00:00.5+00:00',
    '2028-02-29T23:59:59Z',
  ])('keeps %s as sent', (timestamp) => {
    expect(alertOf(parseJson({ message: 'x', timestamp })).fields.timestamp).toBe(timestamp);
  });

  it.each([
    '2026-11-22 14:00',
    '2026-11-22 14:00:00Z',
    '2026-11-22',
    '14:00:00Z',
    'garbage',
    '',
    '22/11/2026 14:00',
    '2026-13-01T00:00:00Z',
    '2026-11-22T25:00:00Z',
    '1763820000',
  ])('refuses %j, naming the field', (timestamp) => {
    const failure = failureOf(parseJson({ message: 'x', timestamp }));
    expect(failure).toMatchObject({ code: 'invalid_field', field: 'timestamp' });
    expect(failure.error).toMatch(/ISO 8601/);
  });

  it('refuses a number', () => {
    expect(failureOf(parseJson({ message: 'x', timestamp: 1763820000000 }))).toMatchObject({
      code: 'invalid_field',
      field: 'timestamp',
    });
  });
});

describe('unknown fields', () => {
  it('are kept in extra as sent, beside the known fields', () => {
    const alert = alertOf(
      parseJson({
        message: 'x',
        ticker: 'ES1!',
        exchange: 'CME_MINI',
        interval: '5',
        position_size: 2,
        nested: { a: [1, null, { b: true }] },
        nothing: null,
      }),
    );
    expect(alert.fields).toEqual({ ticker: 'ES1!' });
    expect(alert.extra).toEqual({
      exchange: 'CME_MINI',
      interval: '5',
      position_size: 2,
      nested: { a: [1, null, { b: true }] },
      nothing: null,
    });
  });

  it('are capped at 4 KiB of JSON in all: whole fields in order while they fit, a text cut with …, the cut marked', () => {
    const object: Record<string, unknown> = {
      message: 'x',
      exchange: 'CME_MINI',
      big: { list: Array(2000).fill(1) },
      interval: '5',
      notes: 'n'.repeat(10_000),
    };
    for (let i = 0; i < 100; i++) object[`f${i}`] = 'v'.repeat(500);
    const alert = alertOf(parseJson(object));
    const stored = JSON.stringify(alert.extra);
    expect(new TextEncoder().encode(stored).byteLength).toBeLessThanOrEqual(MAX_EXTRA_BYTES);
    expect(stored.length).toBeGreaterThan(MAX_EXTRA_BYTES - 200);
    expect(alert.extra.exchange).toBe('CME_MINI');
    expect(alert.extra.notes).toMatch(/^n+…$/);
    expect(alert.extra.big).toBeUndefined();
    // A small field after a large one left out still fits.
    expect(alert.extra.interval).toBe('5');
    expect(alert.extra[TRUNCATED_KEY]).toBe('102 of 104 extra fields shortened or left out: over 4 KiB in all');
  });

  it('are kept as sent, a field named _truncated too, when they fit in 4 KiB', () => {
    const extra = { _truncated: 'mine', text: 'é'.repeat(1900) };
    expect(alertOf(parseJson({ message: 'x', ...extra })).extra).toEqual(extra);
  });

  it('never cut a text inside a multi-byte character or an escape, and keep "__proto__" as data when capping', () => {
    const body = `{"message":"x","__proto__":{"polluted":"yes"},"quote":"${'\\"😀'.repeat(2000)}"}`;
    const alert = alertOf(parse(body, 'application/json'));
    expect(Object.getOwnPropertyDescriptor(alert.extra, '__proto__')?.value).toEqual({ polluted: 'yes' });
    expect(Object.getPrototypeOf(alert.extra)).toBe(Object.prototype);
    const quote = alert.extra.quote as string;
    expect(quote).toMatch(/^("😀)+"?…$/u);
    expect(new TextEncoder().encode(JSON.stringify(alert.extra)).byteLength).toBeLessThanOrEqual(MAX_EXTRA_BYTES);
  });

  it('never include the known fields', () => {
    const alert = alertOf(
      parseJson({
        message: 'x',
        ticker: 'T',
        price: '1',
        action: 'a',
        strategy: 's',
        timestamp: '2026-11-22T14:00:00Z',
      }),
    );
    expect(alert.extra).toEqual({});
  });

  it('keep "__proto__" and "constructor" as own data without polluting any prototype', () => {
    const body =
      '{"message":"x","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted2":"yes"}},"toString":"t"}';
    const alert = alertOf(parse(body, 'application/json'));
    expect(Object.keys(alert.extra).sort()).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getOwnPropertyDescriptor(alert.extra, '__proto__')?.value).toEqual({ polluted: 'yes' });
    expect(Object.getOwnPropertyDescriptor(alert.extra, 'constructor')?.value).toEqual({
      prototype: { polluted2: 'yes' },
    });
    expect(Object.getPrototypeOf(alert.extra)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(alert.fields)).toBe(Object.prototype);
    expect((alert.extra as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted2?: unknown }).polluted2).toBeUndefined();
    // The extra fields survive a JSON round trip (how the history stores them) with the same keys.
    expect(JSON.parse(JSON.stringify(alert.extra))).toEqual(
      JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted2":"yes"}},"toString":"t"}'),
    );
  });

  it('"__proto__" as the message does not confuse the known fields', () => {
    const alert = alertOf(parse('{"__proto__":{"message":"from the prototype"},"message":"own"}', 'application/json'));
    expect(alert.message).toBe('own');
    expect(failureOf(parse('{"__proto__":{"message":"from the prototype"}}', 'application/json'))).toMatchObject({
      code: 'invalid_field',
      field: 'message',
    });
  });
});

describe('truncation at 500 code points', () => {
  it('keeps a message of exactly 500 code points', () => {
    const alert = alertOf(parse('a'.repeat(500), 'text/plain'));
    expect(alert).toMatchObject({ message: 'a'.repeat(500), truncated: false, originalLength: 500 });
  });

  it('cuts a longer message to 500 and records it', () => {
    const alert = alertOf(parse('a'.repeat(600), 'text/plain'));
    expect(alert).toMatchObject({ message: 'a'.repeat(500), truncated: true, originalLength: 600 });
    const json = alertOf(parseJson({ message: 'b'.repeat(501) }));
    expect(json).toMatchObject({ message: 'b'.repeat(500), truncated: true, originalLength: 501 });
  });

  it('counts an emoji as one character (not two UTF-16 units)', () => {
    const alert = alertOf(parse('\u{1F680}'.repeat(500), 'text/plain'));
    expect(alert).toMatchObject({ truncated: false, originalLength: 500 });
    expect(alert.message).toHaveLength(1000);
    const cut = alertOf(parse('\u{1F680}'.repeat(501), 'text/plain'));
    expect(cut).toMatchObject({ message: '\u{1F680}'.repeat(500), truncated: true, originalLength: 501 });
  });

  it('counts after trimming', () => {
    expect(alertOf(parse(`   ${'a'.repeat(500)}   `, 'text/plain'))).toMatchObject({
      truncated: false,
      originalLength: 500,
    });
  });

  it('never splits a ZWJ family emoji', () => {
    expect(codePoints(FAMILY)).toBe(7);
    const fits = alertOf(parse('a'.repeat(493) + FAMILY, 'text/plain'));
    expect(fits).toMatchObject({ message: 'a'.repeat(493) + FAMILY, truncated: false, originalLength: 500 });
    const cut = alertOf(parse('a'.repeat(494) + FAMILY, 'text/plain'));
    expect(cut).toMatchObject({ message: 'a'.repeat(494), truncated: true, originalLength: 501 });
  });

  it('never splits a flag', () => {
    expect(alertOf(parse('a'.repeat(499) + FLAG_FR, 'text/plain'))).toMatchObject({
      message: 'a'.repeat(499),
      truncated: true,
    });
    expect(alertOf(parse('a'.repeat(498) + FLAG_FR + FLAG_FR, 'text/plain'))).toMatchObject({
      message: 'a'.repeat(498) + FLAG_FR,
      truncated: true,
    });
    // 250 flags are exactly 500 code points.
    expect(alertOf(parse(FLAG_FR.repeat(251), 'text/plain'))).toMatchObject({
      message: FLAG_FR.repeat(250),
      truncated: true,
      originalLength: 502,
    });
  });

  it('never separates a letter from its combining accent', () => {
    const cut = alertOf(parse('a'.repeat(499) + E_ACUTE, 'text/plain'));
    expect(cut).toMatchObject({ message: 'a'.repeat(499), truncated: true, originalLength: 501 });
    expect(alertOf(parse(E_ACUTE.repeat(300), 'text/plain'))).toMatchObject({
      message: E_ACUTE.repeat(250),
      truncated: true,
    });
  });

  it('truncateText reports the length before cutting', () => {
    expect(truncateText('abc', 2)).toEqual({ text: 'ab', truncated: true, length: 3 });
    expect(truncateText('abc', 3)).toEqual({ text: 'abc', truncated: false, length: 3 });
    expect(truncateText('')).toEqual({ text: '', truncated: false, length: 0 });
  });

  // A single grapheme longer than the limit ("Zalgo" text: one letter carrying hundreds of marks)
  // cannot be cut without splitting it. Whatever the choice (cut it, or refuse the alert), the result
  // must never be an accepted alert with nothing to speak: DESIGN says the message is non-empty.
  it('never accepts an alert whose message truncates to nothing', () => {
    const zalgo = `e${'\u0301'.repeat(600)}`;
    const result = parse(zalgo, 'text/plain');
    if (result.ok) expect(result.alert.message.length).toBeGreaterThan(0);
    const json = parseJson({ message: zalgo });
    if (json.ok) expect(json.alert.message.length).toBeGreaterThan(0);
  });
});

describe('control characters and encoding', () => {
  it.each([
    ['NUL', '\u0000'],
    ['BEL', '\u0007'],
    ['backspace', '\u0008'],
    ['vertical tab', '\u000B'],
    ['form feed', '\u000C'],
    ['escape', '\u001B'],
    ['DEL', '\u007F'],
  ])('refuses %s in the message, in both forms', (_label, control) => {
    expect(failureOf(parse(`before${control}after`, 'text/plain'))).toMatchObject({
      code: 'invalid_field',
      field: 'message',
    });
    expect(failureOf(parseJson({ message: `before${control}after` }))).toMatchObject({
      code: 'invalid_field',
      field: 'message',
    });
  });

  it('allows tab, line feed and carriage return', () => {
    expect(alertOf(parseJson({ message: 'a\tb\nc\rd' })).message).toBe('a\tb\nc\rd');
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['0xFF', [0x68, 0x69, 0xff]],
    ['a truncated sequence', [0x68, 0xc3]],
    ['an overlong "/"', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['Latin-1 "café"', [0x63, 0x61, 0x66, 0xe9]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('refuses invalid UTF-8 (%s) with invalid_encoding', (_label, raw) => {
    for (const contentType of ['text/plain', 'application/json', undefined]) {
      expect(failureOf(parseAlertBody(Uint8Array.from(raw), contentType)).code).toBe('invalid_encoding');
    }
  });

  it('keeps non-ASCII text intact', () => {
    const text = 'Ölpreis über 80 € — 日本語 — Привет — 🚀';
    expect(alertOf(parse(text, 'text/plain; charset=utf-8')).message).toBe(text);
    expect(alertOf(parseJson({ message: text })).message).toBe(text);
  });

  it('drops a leading UTF-8 BOM in both forms', () => {
    const bom = [0xef, 0xbb, 0xbf];
    const plain = alertOf(parseAlertBody(Uint8Array.from([...bom, ...bytes('hello')]), 'text/plain'));
    expect(plain.message).toBe('hello');
    const json = alertOf(
      parseAlertBody(Uint8Array.from([...bom, ...bytes('{"message":"hello"}')]), 'application/json'),
    );
    expect(json).toMatchObject({ form: 'json', message: 'hello' });
    const labelledText = alertOf(
      parseAlertBody(Uint8Array.from([...bom, ...bytes('{"message":"hello"}')]), 'text/plain'),
    );
    expect(labelledText).toMatchObject({ form: 'json', message: 'hello' });
  });
});

describe('size and depth', () => {
  it(`accepts a body of exactly ${MAX_BODY_BYTES} bytes and refuses one byte more`, () => {
    expect(alertOf(parseAlertBody(new Uint8Array(MAX_BODY_BYTES).fill(0x61), 'text/plain'))).toMatchObject({
      truncated: true,
      originalLength: MAX_BODY_BYTES,
    });
    const failure = failureOf(parseAlertBody(new Uint8Array(MAX_BODY_BYTES + 1).fill(0x61), 'text/plain'));
    expect(failure.code).toBe('body_too_large');
    expect(failure.error).toMatch(/64 KiB/);
  });

  it('checks the size before anything else (even invalid UTF-8 or JSON)', () => {
    expect(failureOf(parseAlertBody(new Uint8Array(MAX_BODY_BYTES + 1).fill(0xff), 'application/json')).code).toBe(
      'body_too_large',
    );
  });

  it(`accepts ${MAX_JSON_DEPTH} levels of nesting and refuses ${MAX_JSON_DEPTH + 1}`, () => {
    // The top-level object is level 1; "a" holds the rest.
    const nested = (arrays: number) => `{"message":"x","a":${'['.repeat(arrays)}${']'.repeat(arrays)}}`;
    expect(alertOf(parse(nested(MAX_JSON_DEPTH - 1), 'application/json')).extra).toHaveProperty('a');
    const failure = failureOf(parse(nested(MAX_JSON_DEPTH), 'application/json'));
    expect(failure.code).toBe('invalid_field');
    expect(failure.error).toMatch(/nested/);
  });

  it('refuses a body nested as deep as 64 KiB allows, without throwing', () => {
    const arrays = 32_000;
    const body = `{"message":"x","a":${'['.repeat(arrays)}${']'.repeat(arrays)}}`;
    expect(body.length).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(failureOf(parse(body, 'application/json')).code).toBe('invalid_field');
    expect(failureOf(parse(body, 'text/plain')).code).toBe('invalid_field');
  });
});

describe('jsonDepth', () => {
  it('counts levels of arrays and objects', () => {
    expect(jsonDepth(1)).toBe(0);
    expect(jsonDepth('s')).toBe(0);
    expect(jsonDepth(null)).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth([])).toBe(1);
    expect(jsonDepth({ a: [1, { b: 2 }], c: 3 })).toBe(3);
  });

  it('never throws on 100 000 nested arrays (parsed from a string) and reports more than the limit', () => {
    const n = 100_000;
    const deep: unknown = JSON.parse('['.repeat(n) + ']'.repeat(n));
    expect(jsonDepth(deep)).toBeGreaterThan(MAX_JSON_DEPTH);
  });

  it('never throws on 100 000 nested objects built in a loop', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { child: deep };
    expect(jsonDepth(deep)).toBeGreaterThan(MAX_JSON_DEPTH);
  });
});

describe('properties', () => {
  const KNOWN = new Set(['message', 'ticker', 'price', 'action', 'strategy', 'timestamp']);
  const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

  // Strings of any code point, and long strings of the characters that stress truncation.
  const tricky = fc.constantFrom(
    'a',
    ' ',
    '\t',
    '\n',
    '\r',
    '\u0301',
    FAMILY,
    FLAG_FR,
    '\u{1F680}',
    'é',
    '{',
    '"',
    '\u200D',
    '\uFEFF',
    '\u0000',
    '\u00A0',
  );
  const anyText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 700 }),
    fc.string({ unit: tricky, minLength: 400, maxLength: 700 }),
    fc.string({ unit: 'grapheme', maxLength: 600 }),
  );

  it('parseAlertBody never throws on any text sent as text/plain; an accepted text message is a prefix of the trimmed input of at most 500 code points', () => {
    fc.assert(
      fc.property(anyText, (input) => {
        const result = parseAlertBody(bytes(input), 'text/plain');
        if (!result.ok) return;
        const { alert } = result;
        expect(codePoints(alert.message)).toBeLessThanOrEqual(MAX_MESSAGE_CODE_POINTS);
        if (alert.form === 'text') {
          const trimmed = new TextDecoder().decode(bytes(input)).trim();
          expect(trimmed.startsWith(alert.message)).toBe(true);
          expect(alert.truncated).toBe(codePoints(trimmed) > MAX_MESSAGE_CODE_POINTS);
          expect(alert.originalLength).toBe(codePoints(trimmed));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('parseAlertBody never throws on arbitrary bytes, with any content type', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.constantFrom('text/plain', 'application/json', undefined),
        (raw, contentType) => {
          const result = parseAlertBody(raw, contentType);
          expect(typeof result.ok).toBe('boolean');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the JSON form round-trips the known fields and keeps the others in extra', () => {
    const message = fc
      .string({ unit: 'binary', minLength: 1, maxLength: 600 })
      .filter((m) => m.trim().length > 0 && !FORBIDDEN.test(m));
    const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
    const timestamp = fc
      .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
    const text200 = fc.string({ maxLength: 200 });
    const known = fc.record(
      {
        message,
        ticker: text200,
        price: fc.oneof(finite, finite.map(String)),
        action: text200,
        strategy: text200,
        timestamp,
      },
      { requiredKeys: ['message'] },
    );
    const extra = fc.dictionary(
      fc.string({ maxLength: 12 }).filter((k) => !KNOWN.has(k) && k !== '__proto__'),
      fc.jsonValue({ maxDepth: 3 }),
      { maxKeys: 5 },
    );
    fc.assert(
      fc.property(
        known,
        extra,
        fc.constantFrom('application/json', 'text/plain', undefined),
        (fields, others, contentType) => {
          const sent = { ...others, ...fields };
          const alert = alertOf(parse(JSON.stringify(sent), contentType));
          expect(alert.form).toBe('json');
          const trimmed = fields.message.trim();
          if (codePoints(trimmed) <= MAX_MESSAGE_CODE_POINTS) {
            expect(alert).toMatchObject({ message: trimmed, truncated: false });
          } else {
            expect(alert.truncated).toBe(true);
            expect(trimmed.startsWith(alert.message)).toBe(true);
          }
          const { message: _m, ...rest } = JSON.parse(JSON.stringify(fields)) as Record<string, unknown>;
          if (typeof rest.price === 'string') rest.price = Number(rest.price);
          expect(alert.fields).toEqual(rest);
          expect(alert.extra).toEqual(JSON.parse(JSON.stringify(others)));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('bodyExcerpt', () => {
  it('keeps the first 800 bytes of a refused body, control characters as spaces, a cut character replaced', () => {
    expect(bodyExcerpt(new TextEncoder().encode('{"message":\u0000"hi"\n}'))).toBe('{"message": "hi" }');
    const long = new TextEncoder().encode(`${'a'.repeat(799)}é`);
    expect(bodyExcerpt(long)).toBe(`${'a'.repeat(799)}\uFFFD`);
  });
});

describe("an alert's own decision keys (#56)", () => {
  it('are taken from JSON `keys` and not kept among the extra fields; {} is none for the call', () => {
    const alert = alertOf(parseJson({ message: 'BTC', keys: { '7': 'buy', '#': 'sell all' } }));
    expect(alert.keys).toEqual([
      { key: '7', label: 'buy' },
      { key: '#', label: 'sell all' },
    ]);
    expect(alert.extra).toEqual({});
    expect(alertOf(parseJson({ message: 'BTC', keys: {} })).keys).toEqual([]);
    expect(alertOf(parseJson({ message: 'BTC', keys: null })).keys).toBeUndefined();
    expect(alertOf(parseJson({ message: 'BTC' })).keys).toBeUndefined();
  });

  it.each([
    [{ '1': 'buy' }, 'key 1 is taken'],
    [{ '7': '' }, 'key 7 has an empty label'],
    [{ '7': 5 }, 'the label of key 7 must be text'],
    [['7=buy'], 'must be an object of keys and labels'],
    ['7=buy', 'must be an object of keys and labels'],
  ])('bad keys %j: invalid_field naming keys (%s)', (keys, named) => {
    const failure = failureOf(parseJson({ message: 'BTC', keys }));
    expect(failure).toMatchObject({ code: 'invalid_field', field: 'keys' });
    expect(failure.error).toContain(named);
    expect(failure.error.startsWith('"keys": ')).toBe(true);
  });
});
