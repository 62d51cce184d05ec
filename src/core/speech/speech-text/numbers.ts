// Numbers as written in an alert, said: digits, decimals, signs, percentages, currencies and
// magnitudes (7.5M, $2B, 100k).
import { english, MAX_CARDINAL, type NumberLanguage, ZERO_RUN } from '../number-words.js';
import {
  formAfter,
  ENGLISH_WORDS,
  type Magnitude,
  pick,
  type Quantity,
  type SpeechLanguage,
  wordsOf,
} from './words.js';
import { currencyForms, WRITTEN_CURRENCIES } from './currencies.js';
import { type MarkedLanguage, type ReadNumber, readWritten } from './number-marks.js';

/** Each letter on its own, digits as words: "6E" → "six E". */
export function spell(token: string, lang: NumberLanguage): string {
  return [...token].map((c) => (/\d/.test(c) ? lang.digit(Number(c)) : c)).join(' ');
}

/** A whole number written with digits only. */
export function wholeNumber(digits: string, lang: NumberLanguage): string {
  const n = Number(digits);
  if ((digits.length > 1 && digits.startsWith('0')) || n > MAX_CARDINAL) return spell(digits, lang);
  return lang.cardinal(n);
}

/** The whole part (digits only) and the decimals of a number as written in the alert, by the language's marks. */
export function splitNumber(written: string, lang: MarkedLanguage): ReadNumber {
  const read = readWritten(written, lang);
  if (read) return read;
  const [whole = '', fraction] = written.split(lang.decimalSeparator);
  const digits = whole.replace(/[^0-9]/g, '');
  return fraction === undefined ? { whole: digits } : { whole: digits, fraction };
}

/** A number as written in the alert (in the language's marks), every written decimal kept. */
export function sayNumber(written: string, lang: MarkedLanguage = english): string {
  return sayRead(splitNumber(written, lang), lang);
}

/** A number already read to its whole digits and decimals. */
export function sayRead({ whole: digits, fraction }: ReadNumber, lang: NumberLanguage): string {
  if (lang.decimal)
    return fraction === undefined ? (lang.largeWhole?.(digits) ?? digits) : lang.decimal(digits || '0', fraction);
  const head = [digits === '' ? '' : wholeNumber(digits, lang)];
  if (fraction === undefined) return head.join('');
  const zeros = /^0*/.exec(fraction)![0].length;
  if (zeros < (lang.zeroRun ?? ZERO_RUN)) return [...head, lang.point, spell(fraction, lang)].filter(Boolean).join(' ');
  const rest = spell(fraction.slice(zeros), lang);
  return [[...head, lang.point].filter(Boolean).join(' '), lang.zeros(zeros), rest].filter(Boolean).join(', ');
}

const MAGNITUDE_ZEROS: Record<Magnitude, number> = { thousand: 3, million: 6, billion: 9, trillion: 12 };

/** 7.5 and million → "7500000": the figure written out, for the languages that count in ten thousands. */
export function expandMagnitude(whole: string, fraction: string | undefined, magnitude: Magnitude): string {
  const zeros = MAGNITUDE_ZEROS[magnitude];
  const decimals = fraction ?? '';
  const digits = (whole + decimals.slice(0, zeros).padEnd(zeros, '0')).replace(/^0+(?=\d)/, '');
  const left = decimals.slice(zeros);
  return left === '' ? digits : `${digits}.${left}`;
}

export interface WrittenAmount {
  sign?: string | undefined;
  currency?: string | undefined;
  written: string;
  magnitude?: Magnitude | undefined;
  percent?: boolean;
  times?: boolean;
  quantity?: Quantity | undefined;
}

/** An amount: a sign, the number, a magnitude, then the percent or the currency's name in the right form. */
export function sayAmount(amount: WrittenAmount, lang: SpeechLanguage): string {
  const w = wordsOf(lang);
  const sign = amount.sign === '+' ? lang.plus : amount.sign ? lang.minus : '';
  let parts = splitNumber(amount.written, lang);
  let number: string;
  let magnitudeWord = '';
  if (amount.magnitude && !w.magnitudes) {
    const expanded = expandMagnitude(parts.whole || '0', parts.fraction, amount.magnitude);
    const [whole = '', fraction] = expanded.split('.');
    parts = fraction === undefined ? { whole } : { whole, fraction };
    number = sayRead(parts, lang);
  } else {
    number = sayRead(parts, lang);
    if (amount.magnitude) magnitudeWord = pick(w.magnitudes![amount.magnitude], formAfter(w, parts));
  }
  const words = [sign];
  if (amount.percent && w.percentBefore) words.push(w.percentBefore);
  words.push(number, magnitudeWord);
  if (amount.percent && !w.percentBefore) words.push(w.percent ? pick(w.percent, formAfter(w, parts)) : lang.percent);
  if (amount.times) words.push(lang.times);
  if (amount.quantity)
    words.push(pick((w.quantities ?? ENGLISH_WORDS.quantities!)[amount.quantity], formAfter(w, parts)));
  const currency = amount.currency === undefined ? undefined : WRITTEN_CURRENCIES[amount.currency];
  // $100 "dollars", 1 "dollar"; after a magnitude always the plural (two billion dollars).
  if (currency) {
    const dollar = pick(currencyForms(currency, lang, w), formAfter(w, amount.magnitude ? { whole: '5' } : parts));
    const country = currency === '$' ? /^([A-Z]{1,2})\$$/.exec(amount.currency!)?.[1] : undefined;
    const name = country === undefined || country === 'US' ? dollar : `${spell(country, lang)} ${dollar}`;
    // French elides its "de" before a vowel: "milliards d'euros".
    if (magnitudeWord && w.magnitudeOf === 'de' && lang.code === 'fr' && /^[aeiouyéh]/i.test(name))
      words.push(`d'${name}`);
    else words.push(magnitudeWord ? (w.magnitudeOf ?? '') : '', name);
  }
  return words.filter(Boolean).join(' ');
}
