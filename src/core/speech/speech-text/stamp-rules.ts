// The rules for what carries a date or a time in one token: times with their zone and seconds, Unix
// time stamps, exponents (2e-6), OCC option symbols and MOEX futures. Tried before the numbers in them.
import { sayAmount, sayNumber, spell } from './numbers.js';
import { instrumentWords, monthName } from './instruments.js';
import { before, NOT_AFTER_WORD, NOT_BEFORE_WORD, type Rule } from './rule-context.js';
import { sayDate, sayIsoTime, sayUnixTime, withYear } from './times.js';
import type { SpeechLanguage } from './words.js';

/** A word for time just before a 10-digit number: then it is a Unix time stamp in seconds. */
const TIME_WORD_BEFORE =
  /(?:time|timestamp|ts|unix|epoch|date|zeit|heure|время|tiempo|tempo|czas|zaman|tijd|时间戳?|時間|時刻|タイムスタンプ|시간|시각|타임스탬프)[\s:：=]*$/iu;

const r = (source: string) => new RegExp(source, 'yu');

/** Times with their zone, Unix time stamps and exponents. */
export function timeStampRules(lang: SpeechLanguage): Rule[] {
  const num = (written: string) => sayNumber(written, lang);
  return [
    // 13:45:30Z, 09:30 UTC, 14:00+02:00: a time with its zone, said in UTC, its seconds too.
    {
      name: 'zoned-time',
      pattern: r(
        '(?<![\\p{L}\\p{N}_:.])(\\d{2}):([0-5]\\d)(?::([0-5]\\d)(?:\\.\\d+)?)?(?:(Z)|\\s?(UTC|GMT)|([+-]\\d{2}:?\\d{2}))(?![\\p{L}\\p{N}_])',
      ),
      speak: ([, hh, mm, ss, z, named, offset]) => sayIsoTime(hh!, mm!, offset ?? ((z ?? named) ? 'Z' : 'Z'), lang, ss),
    },
    // 1733492730000 (ms, 13 digits) always; 1733492730 (s) after a word for time: the UTC date and time.
    {
      name: 'unix-time',
      pattern: r(`${NOT_AFTER_WORD}(\\d{13}|\\d{10})${NOT_BEFORE_WORD}(?![.,]\\d)`),
      speak: ([, digits], ctx) => {
        if (digits!.length === 10 && !TIME_WORD_BEFORE.test(before(ctx, 24))) return undefined;
        return sayUnixTime(digits!, lang);
      },
    },
    // 2e-6, 1.5E+3: the mantissa, "E", the exponent with its sign (a capital E only with a sign: 6E1! is a future).
    {
      name: 'scientific',
      pattern: r(
        '(?<![\\p{L}\\p{N}_.])([+\\-\\u2212])?(\\d+(?:\\.\\d+)?)(?:e([+\\-\\u2212]?)|E([+\\-\\u2212]))(\\d{1,3})(?![\\p{L}\\p{N}_!])',
      ),
      speak: ([, sign, mantissa, lowerSign, upperSign, exponent]) => {
        const expSign = lowerSign ?? upperSign;
        const signWord = expSign === '+' ? lang.plus : expSign ? lang.minus : '';
        return [sayAmount({ sign, written: mantissa! }, lang), 'E', signWord, num(exponent!)].filter(Boolean).join(' ');
      },
    },
  ];
}

/** Instruments whose symbol carries a date: OCC options, MOEX futures. */
export function instrumentRules(lang: SpeechLanguage): Rule[] {
  return [
    // TSLA250117P00200000 (OCC, the root padded with spaces or not): the root, the expiry, the strike, put or call.
    {
      name: 'occ-option',
      pattern: r(`${NOT_AFTER_WORD}([A-Z]{1,6}) {0,5}(\\d{2})(\\d{2})(\\d{2})([CP])(\\d{8})${NOT_BEFORE_WORD}`),
      speak: ([, root, yy, mm, dd, kind, strike]) => {
        const expiry = sayDate(Number(mm), Number(dd), lang);
        if (expiry === undefined) return undefined;
        const words = instrumentWords(lang.code);
        const price = (Number(strike) / 1000).toString();
        return `${spell(root!, lang)}, ${withYear(expiry ?? '', 2000 + Number(yy), lang)}, ${sayNumber(price, { ...lang, code: 'en' })} ${kind === 'P' ? words.put : words.call}`;
      },
    },
    // Si-3.25, RTS-12.24 (MOEX): the root, then the contract's month and year, never a decimal.
    {
      name: 'moex-futures',
      pattern: r(`${NOT_AFTER_WORD}([A-Z][A-Za-z]{1,4})-(1[0-2]|[1-9])\\.(\\d{2})${NOT_BEFORE_WORD}(?![.,]\\d)`),
      speak: ([, root, month, yy]) =>
        `${spell(root!, lang)}, ${withYear(monthName(lang.code, Number(month)), 2000 + Number(yy), lang)}`,
    },
  ];
}
