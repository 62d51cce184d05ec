// The normalizer's rules, tried in this order at each position of the message: the first that
// matches (and does not decline) says what it matched. Built once per language.
export type { Rule, RuleContext } from './rule-context.js';
export { TIMEFRAMES } from './timeframes.js';
export { SYMBOLS } from './symbols.js';
import { SYMBOLS } from './symbols.js';
import { sayExchange, saySymbol, sayYahooSymbol, splitPair } from './tickers.js';
import { sayAmount, sayNumber, spell, wholeNumber } from './numbers.js';
import { numberSource } from './number-marks.js';
import { sayDate, sayIsoTime, saySeconds, sayTime12, sayTime24 } from './times.js';
import { instrumentRules, timeStampRules } from './stamp-rules.js';
import { GREEK_LETTERS, sayGreek } from './greek.js';
import { isKnownWord } from './lexicon.js';
import {
  after,
  before,
  byLengthDesc,
  escapeRegExp,
  NOT_AFTER_WORD,
  NOT_BEFORE_WORD,
  type Rule,
} from './rule-context.js';
import { indicatorRules } from './indicators.js';
import { localTimeRules } from './local-times.js';
import { shorthandRules } from './shorthand.js';
import { timeframeRules } from './timeframes.js';
import { CAPS_WORDS, INDEX_NAMES, INDICATORS, QUOTE_CURRENCIES } from './vocabulary.js';
import { AFTER_ONLY, WRITTEN_CURRENCIES } from './currencies.js';
import { LOCAL_MAGNITUDES, localMagnitude, MAGNITUDE_SUFFIXES, QUANTITIES } from './suffixes.js';
import type { LanguageCode } from '../language-types.js';
import { type SpeechLanguage, wordsOf } from './words.js';
import { PER_UNITS, totalCap } from './instruments.js';

export const CAPS_TOKEN = '[A-Z0-9]*[A-Z][A-Z0-9]*(?:[.-][A-Z]{1,2})?!?';
const RISK_REWARD = '(?:R:R|R/R|RRR?|[Rr]isk[\\s/:-]*(?:[Tt]o[\\s-]*)?[Rr]eward)';

const INDICATOR_NAMES = Object.keys(INDICATORS).sort(byLengthDesc).join('|');
const INDICATOR_BEFORE = new RegExp(`(?:${INDICATOR_NAMES})\\s*$`);
const INDICATOR_AFTER = new RegExp(`^\\s*(?:${INDICATOR_NAMES})\\b`);

/** What every group of rules is built from: the language, its words and the patterns it writes numbers with. */
function ruleKit(lang: SpeechLanguage) {
  const w = wordsOf(lang);
  const point = escapeRegExp(lang.decimalSeparator);
  const number = numberSource(lang);
  const written = Object.keys(WRITTEN_CURRENCIES).sort(byLengthDesc);
  const currency = `(?:${written.map(escapeRegExp).join('|')})`;
  const currencyBefore = `(?:${written
    .filter((c) => !(w.joinsWords && AFTER_ONLY.has(c)))
    .map(escapeRegExp)
    .join('|')})`;
  const lettersCurrency = `(?:${written
    .filter((c) => /^\p{L}/u.test(c) && !(w.joinsWords && AFTER_ONLY.has(c)))
    .map(escapeRegExp)
    .join('|')})`;
  const indicator = `(?:${INDICATOR_NAMES})\\d{0,4}`;
  const magnitudes = Object.keys(MAGNITUDE_SUFFIXES).sort(byLengthDesc).join('|');
  const local = Object.keys(LOCAL_MAGNITUDES[lang.code as LanguageCode] ?? {}).sort(byLengthDesc);
  // The language's own (Mio., млн, mil) spaced or not; a word ending in a dot ends there.
  const localMagnitudes =
    local.length === 0
      ? ''
      : `|[ \\u00A0\\u202F]?(?:${local.map(escapeRegExp).join('|')})(?:(?<=\\.)|(?![\\p{L}\\p{N}]))`;
  const symbols = SYMBOLS.map(([s]) => escapeRegExp(s)).join('|');
  const r = (source: string) => new RegExp(source, 'yu');
  // Where words touch (Japanese, Chinese, Korean), a number may touch a letter of the script: 価格38500円.
  const letter = w.joinsWords ? '\\p{Script=Latin}\\p{Script=Cyrillic}' : '\\p{L}';
  const numberStart = `(?<![${letter}\\p{N}_.])`;
  const numberEnd = `(?![${letter}\\p{N}_])`;
  const quantities = `[ \\u00A0\\u202F]?(?:${Object.keys(QUANTITIES).sort(byLengthDesc).join('|')})(?![\\p{L}\\p{N}])`;
  const num = (written: string) => sayNumber(written, lang);
  return {
    lang,
    w,
    r,
    num,
    point,
    number,
    currency,
    currencyBefore,
    lettersCurrency,
    indicator,
    magnitudes,
    localMagnitudes,
    symbols,
    numberStart,
    numberEnd,
    quantities,
    letter,
  };
}
type RuleKit = ReturnType<typeof ruleKit>;

/** The rules of a language, in the order they are tried, a group a step: their patterns are parsed as they are made (#51). */
export function* buildRulesSteps(lang: SpeechLanguage): Generator<void, Rule[], void> {
  const kit = ruleKit(lang);
  const rules: Rule[] = [];
  for (const group of [datesAndTimes, tickersAndIndicators, pairsTagsAndTimeframes, numbersAndSymbols]) {
    yield;
    rules.push(...group(kit));
  }
  return rules.filter((rule) => rule.languages === undefined || rule.languages.includes(lang.code ?? 'en'));
}

/** Placeholders, dates, times, risk/reward and ratios: tried before the numbers in them. */
function datesAndTimes(kit: RuleKit): Rule[] {
  const { lang, w, r, num } = kit;
  return [
    // TradingView's {{close}} left unexpanded: said as the field's name, so the owner hears the template was not filled in.
    {
      name: 'placeholder',
      pattern: r('\\{\\{\\s*([^{}]{0,80}?)\\s*\\}\\}'),
      speak: ([, name], ctx) => ctx.say(name!.replace(/[._]+/g, ' ').replace(/[^\p{L}\p{N} ]/gu, ' ')),
    },
    {
      name: 'iso-time',
      pattern: r(
        `${NOT_AFTER_WORD}\\d{4}-\\d{2}-\\d{2}T(\\d{2}):(\\d{2})(?::\\d{2}(?:\\.\\d+)?)?(Z|[+-]\\d{2}(?::?\\d{2})?)${NOT_BEFORE_WORD}`,
      ),
      speak: ([, hh, mm, zone]) => sayIsoTime(hh!, mm!, zone!, lang),
    },
    ...timeStampRules(lang),
    {
      name: 'iso-date',
      pattern: r(`${NOT_AFTER_WORD}\\d{4}-(\\d{2})-(\\d{2})(?![\\p{L}\\p{N}_-])`),
      speak: ([, mm, dd]) => sayDate(Number(mm), Number(dd), lang),
    },
    // 6/14/2026 and 14/06/2026: the month first unless it cannot be one; 14.06.2026 the day first.
    {
      name: 'date-with-year',
      // A comma or a stop after it ends the sentence or the field (Stand: 14.06.2024, 17:35); Polish r. and Russian г. (the year's word) go with the year.
      pattern: r(
        `${NOT_AFTER_WORD}(\\d{1,2})([/.])(\\d{1,2})\\2(?:\\d{4}|\\d{2})(?:[ \\u00A0]?(?:r|г)\\.)?(?![\\p{L}\\p{N}_/]|[.,]\\d)`,
      ),
      speak: ([, a, sep, b]) => {
        const [first, second] = [Number(a), Number(b)];
        const dayFirst = sep === '.' || first > 12;
        return sayDate(dayFirst ? second : first, dayFirst ? first : second, lang);
      },
    },
    ...localTimeRules(lang),
    {
      name: 'risk-reward',
      pattern: r(`${NOT_AFTER_WORD}${RISK_REWARD}(?:\\s*[Rr]atio)?:?${NOT_BEFORE_WORD}`),
      speak: () => w.riskReward,
    },
    // 1:2.5 is a ratio; 1:25 a time of day, unless risk and reward were just named.
    {
      name: 'ratio',
      pattern: r(
        '(?<![\\p{L}\\p{N}_:.])(\\d{1,3}(?:\\.\\d+)?)( ?: ?)(\\d{1,3}(?:\\.\\d+)?)(?![\\p{L}\\p{N}_:]|\\.\\d)',
      ),
      speak: ([, a, colon, b], ctx) => {
        const named = /(?:R:R|R\/R|\bRR|risk|reward|ratio)\W*$/i.test(before(ctx, 30));
        const clockLike = /^\d{1,2}$/.test(a!) && /^[0-5]\d$/.test(b!) && Number(a) <= 23;
        if ((clockLike || colon !== ':') && !named) return undefined;
        return `${num(a!)} ${w.ratioTo} ${num(b!)}`;
      },
    },
    // A written time without a zone: two-digit hours are the 24-hour clock, one digit the 12-hour one.
    // The hour word written after it (09:00 Uhr, 15:30 heures) is said once, where the language's time says it already.
    {
      name: 'clock-time',
      pattern: r(
        `(?<![\\p{L}\\p{N}_:.])(\\d{1,2}):([0-5]\\d)(?::([0-5]\\d))?(?![\\p{L}\\p{N}_]|:\\d)(?:[ \\u00A0]?(Uhr|uur|heures?|h)(?!\\p{L}))?`,
      ),
      speak: ([, hh, mm, ss, hourWord]) => {
        const h = Number(hh);
        if (h > 23) return undefined;
        const time = hh!.length === 2 ? sayTime24(h, Number(mm), lang) : sayTime12(h, Number(mm), lang);
        const written = hourWord === undefined || time.includes(hourWord.replace(/s$/, '')) ? '' : ` ${hourWord}`;
        return `${time}${saySeconds(ss, lang)}${written}`;
      },
    },
  ];
}

/** Tickers as markets write them, and indicators with their lengths. */
function tickersAndIndicators(kit: RuleKit): Rule[] {
  const { lang, w, r, indicator } = kit;
  return [
    {
      name: 'yahoo-index',
      pattern: r(`${NOT_AFTER_WORD}\\^([A-Z0-9]{1,9})${NOT_BEFORE_WORD}`),
      speak: ([, name], ctx) => (INDEX_NAMES[name!] ? ctx.say(INDEX_NAMES[name!]!) : spell(name!, lang)),
    },
    ...instrumentRules(lang),
    // 7203.T, 0700.HK: a numbered ticker on a market.
    {
      name: 'yahoo-numbered',
      pattern: r(`${NOT_AFTER_WORD}(\\d{3,6})\\.([A-Z]{1,2})${NOT_BEFORE_WORD}`),
      speak: ([all]) => saySymbol(all!, lang),
    },
    {
      name: 'yahoo-futures-or-currency',
      pattern: r(`${NOT_AFTER_WORD}([A-Z0-9]{1,10})=([FX])${NOT_BEFORE_WORD}`),
      speak: ([, base, kind]) => sayYahooSymbol(base!, kind as 'F' | 'X', lang),
    },
    {
      name: 'exchange-prefix',
      pattern: r(`${NOT_AFTER_WORD}([A-Z][A-Z0-9_]*[A-Z0-9]):(${CAPS_TOKEN})(?![\\p{L}\\p{N}_!])`),
      speak: ([, exchange, symbol]) => {
        if (exchange === 'CRYPTOCAP' && symbol === 'TOTAL') return totalCap(lang.code, 1);
        if (CAPS_WORDS[symbol!] !== undefined) return undefined;
        const said = saySymbol(symbol!, lang);
        // CRYPTOCAP:BTC.D: TradingView's crypto market-cap data, no market to name.
        if (exchange === 'CRYPTOCAP') return said;
        return said === undefined ? undefined : `${said} ${w.on} ${sayExchange(exchange!, lang)}`;
      },
    },
    {
      name: 'indicator-cross',
      pattern: r(
        `${NOT_AFTER_WORD}(${indicator})(?:\\((\\d{1,4})\\))?\\s+[xX×]\\s+(${indicator})(?:\\((\\d{1,4})\\))?${NOT_BEFORE_WORD}`,
      ),
      speak: ([, a, aLength, b, bLength]) => {
        const said = (name: string, length?: string) =>
          [saySymbol(name, lang), length && wholeNumber(length, lang)].filter(Boolean).join(' ');
        return `${said(a!, aLength)} ${w.crosses} ${said(b!, bLength)}`;
      },
    },
    ...indicatorRules(lang),
    // EMA(20), RSI(14): the indicator and its length.
    {
      name: 'indicator-length',
      pattern: r(`${NOT_AFTER_WORD}(${indicator})\\((\\d{1,4})\\)`),
      speak: ([, name, length]) => `${saySymbol(name!, lang)} ${wholeNumber(length!, lang)}`,
    },
  ];
}

/** Pairs of numbers and currencies, cashtags, hashtags, timeframes and words in capitals. */
function pairsTagsAndTimeframes(kit: RuleKit): Rule[] {
  const { lang, w, r, num } = kit;
  return [
    // EMA 9/21: a pair of lengths; 6/14 a date; 1/2 a fraction; any other pair of numbers, "and".
    {
      name: 'number-pair',
      pattern: r(
        `(?<![\\p{L}\\p{N}_.,/])(\\d{1,6}(?:\\.\\d+)?)\\s?/\\s?(\\d{1,6}(?:\\.\\d+)?)(?![\\p{L}\\p{N}_/]|[.,]\\d)`,
      ),
      speak: ([all, a, b], ctx) => {
        const pair = `${num(a!)} ${w.symbols.and} ${num(b!)}`;
        const nearIndicator =
          INDICATOR_BEFORE.test(before(ctx, 12)) || INDICATOR_AFTER.test(after(ctx, ctx.index + all!.length, 12));
        if (nearIndicator || a!.includes('.') || b!.includes('.')) return pair;
        const [x, y] = [Number(a), Number(b)];
        if (x < y && y <= 4 && !/^0/.test(a!)) return w.fraction?.(x, y) ?? `${num(a!)} ${w.ratioTo} ${num(b!)}`;
        return sayDate(x > 12 ? y : x, x > 12 ? x : y, lang) ?? pair;
      },
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
    // #BTC, #breakout: the word; #1: "number one".
    {
      name: 'hashtag',
      pattern: r('#(?=[\\p{L}\\p{N}])'),
      speak: (_, ctx) => (/\d/.test(ctx.text[ctx.index + 1]!) ? w.numberSign : ''),
    },
    ...timeframeRules(lang),
    // R$ 5,20, USD 100, TL 250: a currency written in letters before the amount, before they are taken for a ticker.
    amountRule(kit, 'coded-amount', kit.lettersCurrency, true),
    {
      name: 'caps-token',
      pattern: r(`${NOT_AFTER_WORD}${CAPS_TOKEN}(?![\\p{L}\\p{N}_!])`),
      speak: ([token], ctx) => {
        // L'or, D'après, L'Oréal: a letter elided before an apostrophe is part of the word, never spelled.
        if (token.length === 1 && /^['’]\p{L}/u.test(ctx.text.slice(ctx.index + 1, ctx.index + 3))) return undefined;
        // HK$420, C$ 35: the letters of a dollar's country, said with the amount.
        if (ctx.text[ctx.index + token.length] === '$' && WRITTEN_CURRENCIES[`${token}$`] !== undefined)
          return undefined;
        if (
          ctx.inCapitals(ctx.index) &&
          /^[A-Z]{2,}$/.test(token) &&
          INDICATORS[token] === undefined &&
          CAPS_WORDS[token] === undefined
        ) {
          // BTCUSDT BREAKS OUT: a pair stays a pair, however long.
          if (isKnownWord(token, CAPS_WORDS) || (token.length > 6 && splitPair(token) === undefined))
            return token.toLowerCase();
        }
        const said = saySymbol(token, lang);
        if (said !== undefined) return said;
        const suffixed = /^(.+)[.-]([A-Z]{1,2})$/.exec(token);
        const base = suffixed ? saySymbol(suffixed[1]!, lang) : undefined;
        return base === undefined ? undefined : `${base} ${spell(suffixed![2]!, lang)}`;
      },
    },
  ];
}

/** An amount: a sign, a currency written before it (`before`: its pattern; `beforeRequired`: only with one), the number, a suffix, a currency after it. */
function amountRule(kit: RuleKit, name: string, before: string, beforeRequired = false): Rule {
  const {
    lang,
    w,
    r,
    number,
    currency,
    magnitudes,
    localMagnitudes,
    numberStart,
    numberEnd,
    point,
    quantities,
    letter,
  } = kit;
  // A sign after the number touches no letter, a code no letter nor digit (100 USD, not USDT); where words touch (Japanese, Chinese) a sign may touch the script's letters (38500円です).
  const signEnd = w.joinsWords ? '(?![\\p{Script=Latin}\\p{Script=Cyrillic}])' : '(?!\\p{L})';
  const after = `(?:[ \\u00A0\\u202F]?(${currency})(?:(?<=\\p{L}\\p{L})(?![${letter}\\p{N}_-]|\\/(?!(?:${PER_UNITS.join('|')})(?![\\p{L}\\p{N}])))|(?<!\\p{L}\\p{L})${signEnd}))?`;
  return {
    name,
    pattern: r(
      `${numberStart}([+\\-\\u2212])?(?:(${before})[ \\u00A0\\u202F]?)${beforeRequired ? '' : '?'}(%[ \\u00A0\\u202F]?)?([+\\-\\u2212])?(${number})` +
        `([ \\u00A0\\u202F]?%|x(?![\\p{L}\\p{N}])|(?:${magnitudes})(?![\\p{L}\\p{N}])${localMagnitudes}|${quantities})?${after}${numberEnd}(?!${point}\\d)`,
    ),
    speak: ([, sign1, before, percentFirst, sign2, written, suffix, afterSign], ctx) => {
      // 4.75%-5.00%, 64k-65k: a dash right after a number or a percent is a range, not a minus.
      if (sign1 !== undefined && /[\p{N}%]/u.test(ctx.text[ctx.index - 1] ?? '')) return undefined;
      // Dolar/TL 34,25: a code right after a slash is a pair's second half, not the amount's currency.
      if (before !== undefined && ctx.text[ctx.index - 1] === '/') return undefined;
      const trimmed = suffix?.trim();
      return sayAmount(
        {
          sign: sign1 ?? sign2,
          currency: before ?? afterSign,
          written: written!,
          magnitude: trimmed === undefined ? undefined : localMagnitude(lang.code as LanguageCode, trimmed),
          // %2,5: Turkish (and French, in some hands) write the sign first.
          percent: trimmed === '%' || percentFirst !== undefined,
          times: trimmed === 'x',
          quantity: trimmed === undefined ? undefined : QUANTITIES[trimmed],
        },
        lang,
      );
    },
  };
}

/** Amounts, the letters after a number, ranges, separators and symbols: last, as the catch-all. */
function numbersAndSymbols(kit: RuleKit): Rule[] {
  const { lang, w, r, num, point, symbols } = kit;
  return [
    // -3σ, 2β: the number, then the letter's name; Δ, β alone anywhere.
    {
      name: 'number-and-greek',
      pattern: r(`(?<![\\p{L}\\p{N}_.])([+\\-\\u2212])?(${kit.number}) ?(${GREEK_LETTERS})(?!\\p{L})`),
      speak: ([, sign, written, letter]) =>
        `${sayAmount({ sign, written: written! }, lang)} ${sayGreek(letter!, lang.code)}`,
    },
    {
      name: 'greek',
      pattern: r(`(?<!\\p{L})${GREEK_LETTERS}(?!\\p{L})`),
      speak: ([letter]) => sayGreek(letter!, lang.code),
    },
    amountRule(kit, 'number', kit.currencyBefore),
    // 3.4R (an R multiple), 1.5x2: a decimal and the letters after it, never half a number.
    {
      name: 'decimal-and-letters',
      pattern: r(`(?<![\\p{L}\\p{N}_.])([+\\-\\u2212])?(\\d+${point}\\d+)([A-Za-z]{1,3})${NOT_BEFORE_WORD}`),
      speak: ([, sign, written, letters]) =>
        `${sayAmount({ sign, written: written! }, lang)} ${/^[A-Z]+$/.test(letters!) ? spell(letters!, lang) : letters}`,
    },
    ...shorthandRules(lang),
    // x10 leverage, as 10x.
    {
      name: 'leverage',
      pattern: r(`${NOT_AFTER_WORD}[x×](\\d{1,3})${NOT_BEFORE_WORD}`),
      speak: ([, n]) => `${num(n!)} ${lang.times}`,
    },
    // 1.0850-1.0870, 5-10%: a range.
    { name: 'range', pattern: r('(?<=[\\p{N}%kKMB])[-–](?=[+$€£¥]?\\d)'), speak: () => w.symbols.to },
    // Separators between fields: a pause, never "bar" or "slash".
    {
      name: 'separator',
      pattern: r('\\s*(?:[|¦│\\\\]|\\s/\\s|(?<=\\p{L})/(?=\\p{L})|\\s[=-]\\s)\\s*'),
      speak: () => ',',
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
