// The words the normalizer puts into a message, in one language: the interface every language
// fills (core/speech/languages), and English's own.
import { english, type NumberLanguage } from '../number-words.js';

/** A noun after a count: `one` after 1, `few` where a language has it (Polish, Russian: 2–4), `many` after others. */
export interface Forms {
  one: string;
  few?: string;
  many: string;
  /** After a number with decimals, where it differs (Polish: 1,5 miliona). */
  fraction?: string;
}
export type Form = 'one' | 'few' | 'many' | 'fraction';

export type SymbolWord = 'atOrAbove' | 'atOrBelow' | 'to' | 'above' | 'below' | 'at' | 'and' | 'up' | 'down' | 'about';
export type TimeUnit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month';
export type CurrencySymbol = '$' | '€' | '£' | '¥';
export type Magnitude = 'thousand' | 'million' | 'billion' | 'trillion';
export type Quantity = 'basisPoint' | 'pip' | 'point';

export interface ScriptReading {
  /** Unicode scripts the voice reads besides Latin. */
  reads: readonly string[];
  /** Said in place of a run of letters of any other script. */
  otherScript: string;
}

export interface SpeechWords {
  /** TradingView continuous futures: ES1! is the front month, ES2! the next. */
  futuresMonths: { '1': string; '2': string };
  perpetual: string;
  /** Yahoo's futures (CL=F): "C L futures". */
  futures: string;
  /** A share class (BRK.B, BRK-B): "B R K class B". */
  shareClass(ticker: string, letter: string): string;
  /** "A A P L on Nasdaq". */
  on: string;
  /** "R S I crosses M A C D". */
  crosses: string;
  utc: string;
  symbols: Record<SymbolWord, string>;
  /** #1: "number one". */
  numberSign: string;
  /** R:R, RR, risk/reward. */
  riskReward: string;
  /** Between the two sides of a ratio: 1:2.5 "one to two point five". */
  ratioTo: string;
  /** A simple fraction (1/2 "one half"), where the language has words for it; absent: "1 to 2" with `ratioTo`. */
  fraction?(numerator: number, denominator: number): string | undefined;
  /** A calendar date without its year (6/14, 2026-06-14): "June fourteenth". */
  date(month: number, day: number): string;
  /** A timeframe's unit after a count. */
  units: Record<TimeUnit, Forms>;
  /** Which form a count takes where a language has more than one and many (Polish, Russian: 2–4 "few"). */
  plural?(count: number): 'one' | 'few' | 'many';
  /** The form a noun takes after a number with decimals (Russian: "2,5 процента", the genitive singular); absent: many. */
  fractionForm?: Form;
  /** What a count of 1 is called instead: 1D "daily". */
  single: Partial<Record<TimeUnit, string>>;
  currencies: Record<CurrencySymbol, Forms>;
  /** The percent sign after a count; absent: the number language's `percent` word. */
  percent?: Forms;
  /** Said before the number instead (Chinese: 百分之 2 点 5). */
  percentBefore?: string;
  /** Between a magnitude and a currency's name: French "2 milliards de dollars". */
  magnitudeOf?: string;
  /** 7.5M, $2B, 100k; absent: the figure is written out whole (Japanese, Chinese, Korean count in ten thousands). */
  magnitudes?: Record<Magnitude, Forms>;
  /** A duration's unit (2h30m: "two hours thirty minutes") where it differs from a timeframe's (English "four hour"). */
  durationUnits?: Record<TimeUnit, Forms>;
  /** The language's own timeframe abbreviations after a count (Russian 4Ч, 15м; Korean 4시간; Japanese 5分). */
  ownUnits?: Readonly<Record<string, TimeUnit>>;
  /** The chart word written after the unit (Japanese 足, Korean 봉, Chinese 线) and how it is said. */
  chartWord?: { written: string; said: string };
  /** A count and its unit said together where the count's reading changes (Japanese 4時間 よじかん, 5分 ごふん). */
  timeframe?(count: number, unit: TimeUnit): string | undefined;
  /** Basis points, pips, points after a count (+12bps). */
  quantities?: Record<Quantity, Forms>;
  /** A bond's tenor (US10Y "ten year"). */
  year?: Forms;
  /** Words are written without spaces (Japanese, Chinese) or take particles (Korean): a number may touch a letter of the script. */
  joinsWords?: boolean;
  /** Kanji are said by their readings (Japanese: speech-text/kanji.ts), before `unreadable` applies. */
  readsKanji?: boolean;
  /** Characters the language's engine cannot read (Japanese: kanji, which espeak-ng calls "Chinese letter"): dropped; `instead` is said when nothing else is left. */
  unreadable?: { pattern: RegExp; instead: string };
  /** The scripts the voice reads, and what it says for others (speech-text/scripts.ts); set for every language. */
  scripts?: ScriptReading;
  /** A 24-hour time (ISO times in UTC, 14:05); absent: the English desk style ("fourteen hundred"). */
  time24?(hours: number, minutes: number): string;
  /** A 12-hour time written with one digit (9:30); absent: English ("nine thirty", "nine o'clock"). */
  time12?(hours: number, minutes: number): string;
}

/** A language of the normalizer: how numbers are said, and its words. */
export interface SpeechLanguage extends NumberLanguage {
  /** Which language (a LanguageCode: its number marks, speech-text/number-marks.ts); absent: English's. */
  code?: string;
  words?: SpeechWords;
}

export const same = (word: string): Forms => ({ one: word, many: word });
/** TradingView's continuous futures' words: ES1! (the front month) and ES2! (the next). */
export const continuous = (front: string, next: string): SpeechWords['futuresMonths'] => ({ '1': front, '2': next });
/** A noun's forms after 1 and after other counts. */
export const forms = (one: string, many: string): Forms => ({ one, many });
/** A noun's forms after 1, after 2–4 (Polish, Russian) and after others, and where it differs, after decimals. */
export const fewForms = (one: string, few: string, many: string, fraction?: string): Forms =>
  fraction === undefined ? { one, few, many } : { one, few, many, fraction };

const MONTHS_EN = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const IRREGULAR_ORDINALS: Record<string, string> = {
  one: 'first',
  two: 'second',
  three: 'third',
  five: 'fifth',
  eight: 'eighth',
  nine: 'ninth',
  twelve: 'twelfth',
};

const ENGLISH_FRACTIONS: Readonly<Record<string, string>> = {
  '1/2': 'one half',
  '1/3': 'one third',
  '2/3': 'two thirds',
  '1/4': 'one quarter',
  '3/4': 'three quarters',
};

/** 14 → "fourteenth", 21 → "twenty-first". */
export function englishOrdinal(n: number): string {
  const words = english.cardinal(n);
  return words.replace(
    /[a-z]+$/,
    (last) => IRREGULAR_ORDINALS[last] ?? (last.endsWith('y') ? `${last.slice(0, -1)}ieth` : `${last}th`),
  );
}

export const ENGLISH_WORDS: SpeechWords = {
  futuresMonths: continuous('front month', 'second month'),
  perpetual: 'perpetual',
  futures: 'futures',
  shareClass: (ticker, letter) => `${ticker} class ${letter}`,
  on: 'on',
  crosses: 'crosses',
  utc: 'U T C',
  symbols: {
    atOrAbove: 'at or above',
    atOrBelow: 'at or below',
    to: 'to',
    above: 'above',
    below: 'below',
    at: 'at',
    and: 'and',
    up: 'up',
    down: 'down',
    about: 'about',
  },
  numberSign: 'number',
  riskReward: 'risk reward',
  ratioTo: 'to',
  fraction: (n, d) => ENGLISH_FRACTIONS[`${n}/${d}`],
  date: (month, day) => `${MONTHS_EN[month - 1]} ${englishOrdinal(day)}`,
  units: {
    second: same('second'),
    minute: same('minute'),
    hour: same('hour'),
    day: same('day'),
    week: same('week'),
    month: same('month'),
  },
  single: { day: 'daily', week: 'weekly', month: 'monthly' },
  durationUnits: {
    second: forms('second', 'seconds'),
    minute: forms('minute', 'minutes'),
    hour: forms('hour', 'hours'),
    day: forms('day', 'days'),
    week: forms('week', 'weeks'),
    month: forms('month', 'months'),
  },
  quantities: {
    basisPoint: forms('basis point', 'basis points'),
    pip: forms('pip', 'pips'),
    point: forms('point', 'points'),
  },
  year: same('year'),
  currencies: {
    $: forms('dollar', 'dollars'),
    '€': forms('euro', 'euros'),
    '£': forms('pound', 'pounds'),
    '¥': forms('yen', 'yen'),
  },
  magnitudes: {
    thousand: same('thousand'),
    million: same('million'),
    billion: same('billion'),
    trillion: same('trillion'),
  },
};

export const wordsOf = (lang: SpeechLanguage): SpeechWords => lang.words ?? ENGLISH_WORDS;

/** The form a noun takes after this number as written (digits, perhaps decimals). */
export function formAfter(w: SpeechWords, written: { whole: string; fraction?: string | undefined }): Form {
  if (written.fraction !== undefined) return w.fractionForm ?? 'many';
  const n = Number(written.whole);
  return w.plural?.(n) ?? (n === 1 ? 'one' : 'many');
}

export const pick = (forms: Forms, form: Form): string => forms[form] ?? forms.many;
