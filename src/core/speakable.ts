// Rewrites an alert's message into text a speech engine reads the way a trader would say it:
// tickers spelled, numbers written out, timeframes, symbols and UTC times in words. Applied only
// to what is spoken; the history and the SMS keep the message as sent. Pure and deterministic.
//
// A scanner walks the text; at each position the rules below are tried in order, and the first
// that matches (and does not decline) replaces what it matched. Text no rule matches is kept.
import { english, MAX_CARDINAL, type NumberLanguage } from './number-words.js';

/**
 * All-caps words that are words, not tickers, and how they are said. Any other all-caps token of
 * 1 to 6 letters is taken for a ticker and spelled.
 */
export const CAPS_WORDS: Readonly<Record<string, string>> = {
  BUY: 'buy',
  SELL: 'sell',
  LONG: 'long',
  SHORT: 'short',
  ALERT: 'alert',
  ALERTS: 'alerts',
  UP: 'up',
  DOWN: 'down',
  STOP: 'stop',
  TP: 'take profit',
  SL: 'stop loss',
  BE: 'be',
  ENTRY: 'entry',
  ENTER: 'enter',
  EXIT: 'exit',
  CLOSE: 'close',
  CLOSED: 'closed',
  OPEN: 'open',
  OPENED: 'opened',
  HIGH: 'high',
  LOW: 'low',
  NEW: 'new',
  BULL: 'bull',
  BEAR: 'bear',
  CROSS: 'cross',
  ABOVE: 'above',
  BELOW: 'below',
  OVER: 'over',
  UNDER: 'under',
  HOLD: 'hold',
  NOW: 'now',
  THE: 'the',
  AND: 'and',
  OR: 'or',
  AT: 'at',
  ON: 'on',
  IN: 'in',
  TO: 'to',
  OF: 'of',
  FOR: 'for',
  IS: 'is',
  IT: 'it',
  NOT: 'not',
  NO: 'no',
  YES: 'yes',
  WITH: 'with',
  BY: 'by',
  FROM: 'from',
  A: 'a',
  AN: 'an',
  I: 'I',
  AS: 'as',
  IF: 'if',
  THEN: 'then',
  ARE: 'are',
  WAS: 'was',
  HAS: 'has',
  ALL: 'all',
  OUT: 'out',
  GO: 'go',
  BREAK: 'break',
  BROKE: 'broke',
  TARGET: 'target',
  PRICE: 'price',
  SIGNAL: 'signal',
  HIT: 'hit',
  FILLED: 'filled',
  CALL: 'call',
  CALLS: 'calls',
  PUT: 'put',
  PUTS: 'puts',
  LIMIT: 'limit',
  MARKET: 'market',
  ORDER: 'order',
  URGENT: 'urgent',
  TAKE: 'take',
  PROFIT: 'profit',
  LOSS: 'loss',
  TREND: 'trend',
  RALLY: 'rally',
  DUMP: 'dump',
  PUMP: 'pump',
  MOON: 'moon',
  NEAR: 'near',
  NEXT: 'next',
  LAST: 'last',
  DAY: 'day',
  WEEK: 'week',
  TODAY: 'today',
  ZONE: 'zone',
  LEVEL: 'level',
  BOUGHT: 'bought',
  SOLD: 'sold',
  SPIKE: 'spike',
  DROP: 'drop',
  SURGE: 'surge',
  FELL: 'fell',
  ROSE: 'rose',
  HALF: 'half',
  FULL: 'full',
  SIZE: 'size',
  RISK: 'risk',
  WIN: 'win',
  CHECK: 'check',
  WATCH: 'watch',
  NOTE: 'note',
  INFO: 'info',
  TEST: 'test',
  STRONG: 'strong',
  WEAK: 'weak',
  FAST: 'fast',
  SLOW: 'slow',
  FLAT: 'flat',
  RANGE: 'range',
  VOLUME: 'volume',
  SPREAD: 'spread',
  GAP: 'gap',
  RETEST: 'retest',
  BOUNCE: 'bounce',
  TRIM: 'trim',
  ADD: 'add',
  SCALE: 'scale',
  DAILY: 'daily',
  WEEKLY: 'weekly',
  HOURLY: 'hourly',
};

/** Indicator names: spelled like tickers unless said otherwise here; they can be crossed ("x"). */
export const INDICATORS: Readonly<Record<string, string | null>> = {
  RSI: null,
  MACD: null,
  EMA: null,
  SMA: null,
  WMA: null,
  HMA: null,
  DEMA: null,
  TEMA: null,
  MA: null,
  VWAP: null,
  VWMA: null,
  ATR: null,
  ADX: null,
  DMI: null,
  OBV: null,
  CCI: null,
  MFI: null,
  ROC: null,
  TSI: null,
  SAR: null,
  PSAR: null,
  BB: null,
  KC: null,
  CMF: null,
  STOCH: 'stochastic',
  STOCHRSI: 'stochastic R S I',
};

/** Quote currencies that end a pair written in one piece (BTCUSDT), longest tried first. */
export const QUOTE_CURRENCIES: readonly string[] = [
  'FDUSD',
  'USDT',
  'USDC',
  'BUSD',
  'TUSD',
  'USD',
  'EUR',
  'GBP',
  'JPY',
  'CHF',
  'CAD',
  'AUD',
  'NZD',
  'DAI',
  'BTC',
  'ETH',
  'BNB',
];

/** Exchange prefixes (NASDAQ:AAPL) said as words; any other exchange is spelled. */
export const EXCHANGES: Readonly<Record<string, string>> = {
  NASDAQ: 'Nasdaq',
  NYSE: 'N Y S E',
  NYSEARCA: 'N Y S E Arca',
  AMEX: 'Amex',
  ARCA: 'Arca',
  BATS: 'Bats',
  CME_MINI: 'C M E mini',
  CBOT_MINI: 'C B O T mini',
  COMEX: 'Comex',
  NYMEX: 'Nymex',
  EUREX: 'Eurex',
  XETR: 'Xetra',
  BINANCE: 'Binance',
  COINBASE: 'Coinbase',
  KRAKEN: 'Kraken',
  BITSTAMP: 'Bitstamp',
  BITFINEX: 'Bitfinex',
  BYBIT: 'Bybit',
  BITGET: 'Bitget',
  KUCOIN: 'KuCoin',
  GEMINI: 'Gemini',
  OANDA: 'Oanda',
  FOREXCOM: 'Forex dot com',
  PEPPERSTONE: 'Pepperstone',
  CAPITALCOM: 'Capital dot com',
  SAXO: 'Saxo',
};

/** The words the normalizer puts in, in one language (English below; others in core/languages). */
export interface SpeechWords {
  /** TradingView continuous futures: ES1! is the front month, ES2! the next. */
  futuresMonths: { '1': string; '2': string };
  perpetual: string;
  /** BRK.B: "B R K dot B". */
  dot: string;
  /** "A A P L on Nasdaq". */
  on: string;
  /** "R S I crosses M A C D". */
  crosses: string;
  utc: string;
  symbols: Record<SymbolWord, string>;
  /** A timeframe's unit after a count: `one` after 1 (unless there is a `single` word), `many` after others. */
  units: Record<TimeUnit, { one: string; few?: string; many: string }>;
  /** Which form a count takes where a language has more than one and many (Polish, Russian: 2–4 "few"). */
  plural?(count: number): 'one' | 'few' | 'many';
  /** What a count of 1 is called instead: 1D "daily". */
  single: Partial<Record<TimeUnit, string>>;
  currencies: Record<CurrencySymbol, { one: string; many: string }>;
  /** A 24-hour time (ISO times in UTC, 14:05); absent: the English desk style ("fourteen hundred"). */
  time24?(hours: number, minutes: number): string;
  /** A 12-hour time written with one digit (9:30); absent: English ("nine thirty", "nine o'clock"). */
  time12?(hours: number, minutes: number): string;
}

export type SymbolWord = 'atOrAbove' | 'atOrBelow' | 'to' | 'above' | 'below' | 'at' | 'and' | 'up' | 'down' | 'about';
export type TimeUnit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month';
export type CurrencySymbol = '$' | '€' | '£' | '¥';

/** A language of the normalizer: how numbers are said, and its words. */
export interface SpeechLanguage extends NumberLanguage {
  words?: SpeechWords;
}

const same = (word: string) => ({ one: word, many: word });

export const ENGLISH_WORDS: SpeechWords = {
  futuresMonths: { '1': 'front month', '2': 'second month' },
  perpetual: 'perpetual',
  dot: 'dot',
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
  units: { second: same('second'), minute: same('minute'), hour: same('hour'), day: same('day'), week: same('week'), month: same('month') },
  single: { day: 'daily', week: 'weekly', month: 'monthly' },
  currencies: {
    $: { one: 'dollar', many: 'dollars' },
    '€': { one: 'euro', many: 'euros' },
    '£': { one: 'pound', many: 'pounds' },
    '¥': { one: 'yen', many: 'yen' },
  },
};

/** Timeframe units after a count: 15m, 4H, 1D. */
export const TIMEFRAMES: Readonly<Record<string, TimeUnit>> = {
  min: 'minute',
  m: 'minute',
  hr: 'hour',
  h: 'hour',
  H: 'hour',
  S: 'second',
  D: 'day',
  d: 'day',
  W: 'week',
  w: 'week',
  M: 'month',
};

/** Symbols said as words, longest first where one begins another. */
export const SYMBOLS: ReadonlyArray<readonly [string, SymbolWord]> = [
  ['>=', 'atOrAbove'],
  ['≥', 'atOrAbove'],
  ['<=', 'atOrBelow'],
  ['≤', 'atOrBelow'],
  ['->', 'to'],
  ['=>', 'to'],
  ['→', 'to'],
  ['>', 'above'],
  ['<', 'below'],
  ['@', 'at'],
  ['&', 'and'],
  ['↑', 'up'],
  ['↓', 'down'],
  ['≈', 'about'],
];

/** A decimal part starting with this many zeros or more says how many ("four zeros") rather than each. */
export const ZERO_RUN = 4;

// Emoji, their modifiers, joiners, flags and keycaps; arrows like ↑ are not emoji and are said.
// biome-ignore lint/suspicious/noMisleadingCharacterClass: each code point is dropped on its own, joiners and modifiers included
const EMOJI = /[\p{Extended_Pictographic}\u{1F1E6}-\u{1F1FF}\u{1F3FB}-\u{1F3FF}\uFE0E\uFE0F\u200D\u20E3]/gu;
const URL = /\b(?:https?:\/\/|www\.)[^\s<>"']+/giu;

const NOT_AFTER_WORD = '(?<![\\p{L}\\p{N}_])';
const NOT_BEFORE_WORD = '(?![\\p{L}\\p{N}_])';
const CAPS_TOKEN = '[A-Z0-9]*[A-Z][A-Z0-9]*(?:\\.[A-Z]{1,2})?!?';

const wordsOf = (lang: SpeechLanguage): SpeechWords => lang.words ?? ENGLISH_WORDS;

interface Rule {
  name: string;
  pattern: RegExp;
  /** What to say instead of the match, or undefined to let the next rules try. */
  speak(match: RegExpExecArray): string | undefined;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const byLengthDesc = (a: string, b: string) => b.length - a.length;

/** Each letter on its own, digits as words: "6E" → "six E". */
function spell(token: string, lang: NumberLanguage): string {
  return [...token].map((c) => (/\d/.test(c) ? lang.digit(Number(c)) : c)).join(' ');
}

function splitPair(token: string): [string, string] | undefined {
  for (const quote of [...QUOTE_CURRENCIES].sort(byLengthDesc)) {
    const base = token.slice(0, -quote.length);
    if (token.endsWith(quote) && base.length >= 2 && base.length <= 6 && /^[A-Z]+$/.test(base)) return [base, quote];
  }
  return undefined;
}

/** A whole number written with digits only. */
function wholeNumber(digits: string, lang: NumberLanguage): string {
  const n = Number(digits);
  if ((digits.length > 1 && digits.startsWith('0')) || n > MAX_CARDINAL) return spell(digits, lang);
  return lang.cardinal(n);
}

/** A number as written in the alert (group separators allowed), every written decimal kept. */
export function sayNumber(written: string, lang: NumberLanguage = english): string {
  const [whole = '', fraction] = written.split(lang.decimalSeparator);
  const digits = whole.replace(/[^0-9]/g, '');
  if (lang.decimal) return fraction === undefined ? digits : lang.decimal(digits || '0', fraction);
  const head = [digits === '' ? '' : wholeNumber(digits, lang)];
  if (fraction === undefined) return head.join('');
  const zeros = /^0*/.exec(fraction)![0].length;
  if (zeros < ZERO_RUN) return [...head, lang.point, spell(fraction, lang)].filter(Boolean).join(' ');
  const rest = spell(fraction.slice(zeros), lang);
  return [[...head, lang.point].filter(Boolean).join(' '), lang.zeros(zeros), rest].filter(Boolean).join(', ');
}

/** A ticker, pair or instrument as it is said, or undefined when the token is none of these. */
export function saySymbol(token: string, lang: SpeechLanguage = english): string | undefined {
  const w = wordsOf(lang);
  const futures = /^([A-Z0-9]*[A-Z][A-Z0-9]*?)([12])!$/.exec(token);
  if (futures) return `${spell(futures[1]!, lang)}, ${w.futuresMonths[futures[2] as '1' | '2']}`;
  if (token.endsWith('.P')) {
    const base = saySymbol(token.slice(0, -2), lang);
    return base === undefined ? undefined : `${base}, ${w.perpetual}`;
  }
  const share = /^([A-Z]{1,5})\.([A-Z])$/.exec(token);
  if (share) return `${spell(share[1]!, lang)} ${w.dot} ${share[2]}`;
  const word = CAPS_WORDS[token];
  if (word !== undefined) return word;
  const indicator = INDICATORS[token];
  if (indicator !== undefined) return indicator ?? spell(token, lang);
  const numbered = /^([A-Z]{1,8})(\d{1,4})$/.exec(token);
  if (numbered) {
    const [, letters = '', digits = ''] = numbered;
    const name = CAPS_WORDS[letters] ?? INDICATORS[letters] ?? (letters.length <= 6 ? spell(letters, lang) : undefined);
    return name === undefined ? undefined : `${name} ${wholeNumber(digits, lang)}`;
  }
  if (!/^[A-Z]+$/.test(token)) return undefined;
  const pair = splitPair(token);
  if (pair) return `${spell(pair[0], lang)}, ${spell(pair[1], lang)}`;
  return token.length <= 6 ? spell(token, lang) : undefined;
}

function sayExchange(name: string, lang: SpeechLanguage): string {
  return (
    EXCHANGES[name] ??
    name
      .split('_')
      .filter(Boolean)
      .map((part) => spell(part, lang))
      .join(' ')
  );
}

/** A time of day, 24-hour, as said on a trading desk: 14:00 "fourteen hundred", 09:05 "zero nine zero five". */
export function sayTime24(hours: number, minutes: number, lang: SpeechLanguage = english): string {
  const said = lang.words?.time24?.(hours, minutes);
  if (said !== undefined) return said;
  const h = hours < 10 ? `${lang.digit(0)} ${lang.digit(hours)}` : lang.cardinal(hours);
  const m = minutes === 0 ? 'hundred' : minutes < 10 ? `${lang.digit(0)} ${lang.digit(minutes)}` : lang.cardinal(minutes);
  return `${h} ${m}`;
}

function sayTime12(hours: number, minutes: number, lang: SpeechLanguage): string {
  const said = lang.words?.time12?.(hours, minutes);
  if (said !== undefined) return said;
  const m = minutes === 0 ? "o'clock" : minutes < 10 ? `oh ${lang.digit(minutes)}` : lang.cardinal(minutes);
  return `${lang.cardinal(hours)} ${m}`;
}

function sayCurrency(symbol: string | undefined, written: string, w: SpeechWords): string {
  if (!symbol) return '';
  const names = w.currencies[symbol as CurrencySymbol];
  return ` ${/^1$/.test(written) ? names.one : names.many}`;
}

function buildRules(lang: SpeechLanguage): Rule[] {
  const w = wordsOf(lang);
  const group = `[${escapeRegExp(lang.groupSeparator)}\\u00A0\\u202F]`;
  const point = escapeRegExp(lang.decimalSeparator);
  const number = `(?:\\d{1,3}(?:${group}\\d{3})+|\\d+)(?:${point}\\d+)?|${point}\\d+`;
  const currency = `[${Object.keys(w.currencies).map(escapeRegExp).join('')}]`;
  const indicator = `(?:${Object.keys(INDICATORS).sort(byLengthDesc).join('|')})\\d{0,4}`;
  const units = Object.keys(TIMEFRAMES).sort(byLengthDesc).join('|');
  const symbols = SYMBOLS.map(([s]) => escapeRegExp(s)).join('|');
  const r = (source: string) => new RegExp(source, 'yu');

  return [
    // Said in UTC without the date or the seconds: the alert is spoken minutes after it was sent.
    {
      name: 'iso-time',
      pattern: r(`${NOT_AFTER_WORD}\\d{4}-\\d{2}-\\d{2}T(\\d{2}):(\\d{2})(?::\\d{2}(?:\\.\\d+)?)?(Z|[+-]\\d{2}(?::?\\d{2})?)${NOT_BEFORE_WORD}`),
      speak: ([, hh, mm, zone]) => {
        if (Number(hh) > 23 || Number(mm) > 59) return undefined;
        const [, sign = '+', offH = '0', offM = '0'] = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone!) ?? [];
        const offset = (sign === '-' ? -1 : 1) * (Number(offH) * 60 + Number(offM));
        const local = Number(hh) * 60 + Number(mm);
        const utc = (((local - offset) % 1440) + 1440) % 1440;
        return `${sayTime24(Math.floor(utc / 60), utc % 60, lang)} ${w.utc}`;
      },
    },
    // A written time without a zone: two-digit hours are the 24-hour clock, one digit the 12-hour one.
    {
      name: 'clock-time',
      pattern: r(`(?<![\\p{L}\\p{N}_:.])(\\d{1,2}):([0-5]\\d)(?::[0-5]\\d)?(?![\\p{L}\\p{N}_:])`),
      speak: ([, hh, mm]) => {
        const h = Number(hh);
        if (h > 23) return undefined;
        return hh!.length === 2 ? sayTime24(h, Number(mm), lang) : sayTime12(h, Number(mm), lang);
      },
    },
    {
      name: 'exchange-prefix',
      pattern: r(`${NOT_AFTER_WORD}([A-Z][A-Z0-9_]*[A-Z0-9]):(${CAPS_TOKEN})(?![\\p{L}\\p{N}_!])`),
      speak: ([, exchange, symbol]) => {
        if (CAPS_WORDS[symbol!] !== undefined) return undefined;
        const said = saySymbol(symbol!, lang);
        return said === undefined ? undefined : `${said} ${w.on} ${sayExchange(exchange!, lang)}`;
      },
    },
    {
      name: 'indicator-cross',
      pattern: r(`${NOT_AFTER_WORD}(${indicator})\\s+[xX×]\\s+(${indicator})${NOT_BEFORE_WORD}`),
      speak: ([, a, b]) => `${saySymbol(a!, lang)} ${w.crosses} ${saySymbol(b!, lang)}`,
    },
    {
      name: 'pair-with-separator',
      pattern: r(`${NOT_AFTER_WORD}([A-Z]{2,6})[/-](${QUOTE_CURRENCIES.join('|')})${NOT_BEFORE_WORD}`),
      speak: ([, base, quote]) => `${spell(base!, lang)}, ${spell(quote!, lang)}`,
    },
    {
      name: 'cashtag',
      pattern: r(`${NOT_AFTER_WORD}\\$([A-Z]{1,6})${NOT_BEFORE_WORD}`),
      speak: ([, ticker]) => saySymbol(ticker!, lang),
    },
    {
      name: 'timeframe',
      pattern: r(`(?<![\\p{L}\\p{N}_.,])(\\d{1,4})(${units})${NOT_BEFORE_WORD}`),
      speak: ([, count, unit]) => {
        const tf = TIMEFRAMES[unit!]!;
        const n = Number(count);
        const single = n === 1 ? w.single[tf] : undefined;
        const form = w.plural?.(n) ?? (n === 1 ? 'one' : 'many');
        return single ?? `${wholeNumber(count!, lang)} ${w.units[tf][form] ?? w.units[tf].many}`;
      },
    },
    {
      name: 'caps-token',
      pattern: r(`${NOT_AFTER_WORD}${CAPS_TOKEN}(?![\\p{L}\\p{N}_!])`),
      speak: ([token]) => saySymbol(token, lang),
    },
    {
      name: 'number',
      pattern: r(
        `(?<![\\p{L}\\p{N}_.])([+\\-\\u2212])?(${currency})?([+\\-\\u2212])?(${number})` +
          `(%|[kK](?![\\p{L}\\p{N}])|x(?![\\p{L}\\p{N}]))?(?:[ \\u00A0\\u202F]?(${currency})(?!\\p{L}))?${NOT_BEFORE_WORD}`,
      ),
      speak: ([, sign1, before, sign2, written, suffix, after]) => {
        const sign = sign1 ?? sign2;
        const words = [sign === '+' ? lang.plus : sign ? lang.minus : '', sayNumber(written!, lang)];
        if (suffix === '%') words.push(lang.percent);
        else if (suffix === 'k' || suffix === 'K') words.push(lang.thousand);
        else if (suffix === 'x') words.push(lang.times);
        return words.filter(Boolean).join(' ') + sayCurrency(before ?? after, written!, w);
      },
    },
    {
      name: 'symbol',
      pattern: r(`(?:${symbols})`),
      speak: ([symbol]) => {
        const key = SYMBOLS.find(([s]) => s === symbol)?.[1];
        return key === undefined ? undefined : w.symbols[key];
      },
    },
  ];
}

const rulesByLanguage = new WeakMap<SpeechLanguage, Rule[]>();

function rulesFor(lang: SpeechLanguage): Rule[] {
  let rules = rulesByLanguage.get(lang);
  if (!rules) {
    rules = buildRules(lang);
    rulesByLanguage.set(lang, rules);
  }
  return rules;
}

function tidy(text: string): string {
  return text
    .replace(/[\s\u00A0\u202F]+/g, ' ')
    .replace(/ ([,.;:!?)\]}])/g, '$1')
    .replace(/([([{]) /g, '$1')
    .replace(/,(?:\s*,)+/g, ',')
    .replace(/^[\s,]+|[\s,]+$/g, '');
}

/** The message as it should be spoken. Never empty for a non-empty message. */
export function speakable(message: string, lang: SpeechLanguage = english): string {
  const rules = rulesFor(lang);
  const text = message.replace(URL, ' ').replace(EMOJI, ' ');
  let out = '';
  let i = 0;
  scan: while (i < text.length) {
    for (const rule of rules) {
      rule.pattern.lastIndex = i;
      const match = rule.pattern.exec(text);
      if (!match || match[0] === '') continue;
      const said = rule.speak(match);
      if (said === undefined) continue;
      out += ` ${said} `;
      i += match[0].length;
      continue scan;
    }
    const char = String.fromCodePoint(text.codePointAt(i)!);
    out += char;
    i += char.length;
  }
  const spoken = tidy(out);
  return spoken === '' ? message.trim() || message : spoken;
}
