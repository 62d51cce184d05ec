// Properties of the spoken text over alerts generated from the pieces traders write them with, in
// every language: no symbol an engine reads aloud, no number half said, always something said,
// always the same; and the native numbers of Russian, Japanese and Chinese read back to the number.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LANGUAGE_CODES } from '../../src/core/speech/language-types.js';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import {
  chineseCardinal,
  japaneseCardinal,
  russianCardinal,
  russianDecimal,
} from '../../src/core/speech/native-numbers.js';
import { speakable } from '../../src/core/speech/speakable.js';

const int = (max: number) => fc.integer({ min: 0, max });
const decimal = fc.tuple(int(99_999), fc.stringMatching(/^\d{1,4}$/)).map(([w, f]) => `${w}.${f}`);
const amount = fc.oneof(
  int(1_000_000).map(String),
  decimal,
  fc
    .tuple(
      fc.constantFrom('$', '€', '+', '-', '+$', ''),
      decimal,
      fc.constantFrom('', '%', 'k', 'K', 'M', 'B', 'bn', 'x'),
    )
    .map((p) => p.join('')),
  int(999_999).map((n) => n.toLocaleString('en-US')),
);
const ticker = fc.constantFrom(
  'AAPL',
  'BTCUSDT',
  'NASDAQ:AAPL',
  'BINANCE:ETHUSDT.P',
  'CL=F',
  '^GSPC',
  '^VIX',
  'BRK.B',
  'BRK-B',
  'SHOP.TO',
  'ES1!',
  '$TSLA',
  '#BTC',
  'EUR/USD',
  'EURUSD=X',
  '7203.T',
);
const word = fc.constantFrom(
  'buy',
  'long',
  'above',
  'Entry:',
  'SL:',
  'TP1:',
  'BREAKS',
  'OUT',
  'OIL',
  'volume',
  'chart',
  'RSI',
  'EMA',
  'R:R',
  'risk/reward',
  'on',
  'the',
);
const mark = fc.constantFrom(
  '|',
  '/',
  ' / ',
  '-',
  '=',
  '~',
  '@',
  '&',
  '>',
  '<=',
  '→',
  '📈',
  '📉',
  '⬆️',
  '⬇️',
  '➡️',
  '🚀',
  '✅',
  '#1',
  '**',
  '_',
  '^',
);
const special = fc.constantFrom(
  '{{close}}',
  '{{ticker}}',
  '{{strategy.order.action}}',
  '1:2.5',
  '9/21',
  '6/14',
  '2026-06-14',
  '14:30',
  '2026-06-14T14:30:00Z',
  '4H',
  '15m',
  '1D',
  '15M',
);
const alert = fc
  .array(fc.oneof(amount, ticker, word, mark, special), { minLength: 1, maxLength: 12 })
  .map((parts) => parts.join(' '));
const language = fc.constantFrom(...LANGUAGE_CODES);

/** Symbols an engine reads aloud ("bar", "slash", "hash", "equals", "caret"…). */
const SYMBOL = /[|/\\#=^{}*~_$€£¥%&@+<>]/;

describe('any alert made of what traders write', () => {
  it('leaves no symbol, half says no number, says something, and the same each time', () => {
    fc.assert(
      fc.property(alert, language, (text, code) => {
        // A message of marks alone ("|", "🚀") is said as sent rather than not at all (speakable.test.ts).
        fc.pre(/[\p{L}\p{N}]/u.test(text));
        const spoken = speakable(text, LANGUAGES[code]);
        expect(spoken).toBe(speakable(text, LANGUAGES[code]));
        expect(spoken.trim()).not.toBe('');
        expect(spoken).not.toMatch(SYMBOL);
        expect(spoken).not.toMatch(/\p{L}[.,]\d|\d[.,]\p{L}/u);
        if (code === 'en' || code === 'ja' || code === 'zh') expect(spoken).not.toMatch(/\d/);
        if (code === 'ja') expect(spoken).not.toMatch(/\p{Script=Han}/u);
      }),
      { numRuns: 400 },
    );
  });
});

const ZH_DIGITS: Record<string, number> = {
  零: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};
const ZH_PLACES: Record<string, number> = { 十: 10, 百: 100, 千: 1000 };

/** Reads Chinese number characters back (万, 亿 and 万亿 groups). */
function readChinese(text: string): number {
  let total = 0;
  let section = 0;
  let digit = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c in ZH_DIGITS) digit = ZH_DIGITS[c]!;
    else if (c in ZH_PLACES) {
      section += (digit || 1) * ZH_PLACES[c]!;
      digit = 0;
    } else if (c === '万' && text[i + 1] === '亿') {
      total += (section + digit) * 1e12;
      section = digit = 0;
      i++;
    } else if (c === '万' || c === '亿') {
      const size = c === '万' ? 1e4 : 1e8;
      // 一亿两千万: the 万 group after an 亿 is counted on its own.
      total =
        c === '万' && total % 1e8 === 0 && total > 0
          ? total + (section + digit) * size
          : (total + section + digit) * size;
      section = digit = 0;
    }
  }
  return total + section + digit;
}

const RU_VALUES: Record<string, number> = Object.fromEntries(
  [
    'ноль один два три четыре пять шесть семь восемь девять десять одиннадцать двенадцать тринадцать четырнадцать пятнадцать шестнадцать семнадцать восемнадцать девятнадцать',
  ][0]!
    .split(' ')
    .map((w, i) => [w, i]),
);
Object.assign(
  RU_VALUES,
  { одна: 1, две: 2 },
  Object.fromEntries(
    'двадцать тридцать сорок пятьдесят шестьдесят семьдесят восемьдесят девяносто'
      .split(' ')
      .map((w, i) => [w, (i + 2) * 10]),
  ),
  Object.fromEntries(
    'сто двести триста четыреста пятьсот шестьсот семьсот восемьсот девятьсот'
      .split(' ')
      .map((w, i) => [w, (i + 1) * 100]),
  ),
);
const RU_SCALES: Array<[RegExp, number]> = [
  [/^триллион/, 1e12],
  [/^миллиард/, 1e9],
  [/^миллион/, 1e6],
  [/^тысяч/, 1e3],
];

/** Reads Russian number words back. */
function readRussian(text: string): number {
  let total = 0;
  let group = 0;
  for (const w of text.split(' ')) {
    const scale = RU_SCALES.find(([pattern]) => pattern.test(w));
    if (scale) {
      total += (group || 1) * scale[1];
      group = 0;
    } else group += RU_VALUES[w] ?? Number.NaN;
  }
  return total + group;
}

describe('native numbers read back to the number', () => {
  it('Chinese characters', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999 }), (n) => {
        expect(readChinese(chineseCardinal(n))).toBe(n);
      }),
    );
  });

  it('Russian words, masculine and feminine', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999 }), fc.boolean(), (n, feminine) => {
        expect(readRussian(russianCardinal(n, feminine))).toBe(n);
      }),
    );
  });

  it('a Russian decimal: whole part, целая/целых, the fraction and its denominator, agreeing', () => {
    const denominators = ['десят', 'сот', 'тысячн', 'десятитысячн', 'стотысячн', 'миллионн'];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999 }), fc.stringMatching(/^\d{1,6}$/), (whole, fraction) => {
        const said = russianDecimal(String(whole), fraction);
        const [, wholeWords, integral, fractionWords, denominator, ending] =
          /^(.+) (целая|целых) (.+) (\S+?)(ая|ых)$/.exec(said)!;
        expect(readRussian(wholeWords!)).toBe(whole);
        expect(integral).toBe(whole % 10 === 1 && whole % 100 !== 11 ? 'целая' : 'целых');
        expect(readRussian(fractionWords!)).toBe(Number(fraction));
        expect(denominator).toBe(denominators[fraction.length - 1]);
        expect(ending).toBe(Number(fraction) % 10 === 1 && Number(fraction) % 100 !== 11 ? 'ая' : 'ых');
      }),
    );
  });

  it('a Japanese or Chinese decimal: the whole number, the point word, then each decimal digit', () => {
    const jaDigits = 'ぜろ いち に さん よん ご ろく なな はち きゅう'.split(' ');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_999_999 }), fc.stringMatching(/^\d{1,8}$/), (whole, fraction) => {
        const ja = speakable(`${whole}.${fraction}`, LANGUAGES.ja);
        expect(ja).toBe(`${japaneseCardinal(whole)} てん ${[...fraction].map((d) => jaDigits[Number(d)]).join(' ')}`);
        const zh = speakable(`${whole}.${fraction}`, LANGUAGES.zh);
        expect(zh).toBe(
          `${chineseCardinal(whole)} 点 ${[...fraction].map((d) => '零一二三四五六七八九'[Number(d)]).join(' ')}`,
        );
        expect(readChinese(zh.split(' ')[0]!)).toBe(whole);
      }),
    );
  });
});
