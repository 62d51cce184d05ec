// Indicators as traders write them in any case and with their arguments: sma(50), EMA(close, 20),
// bb(20, 2), macd(12,26,9), vwap, rsi14, BB%B, %K: the name spelled (or its word), then the
// arguments, never "smah" or a dropped percent sign.
import { sayNumber, spell, wholeNumber } from './numbers.js';
import { byLengthDesc, NOT_AFTER_WORD, NOT_BEFORE_WORD, type Rule } from './rule-context.js';
import { saySymbol } from './tickers.js';
import { INDICATORS } from './vocabulary.js';
import { type SpeechLanguage, wordsOf } from './words.js';

/** Indicator names that are not words in any supported language: read in small letters too (vwap, rsi14). */
const LOWERCASE_NAMES = new Set(
  'RSI MACD EMA SMA WMA HMA DEMA TEMA VWAP VWMA ATR ADX DMI OBV CCI MFI TSI PSAR CMF STOCH STOCHRSI'.split(' '),
);

/** An indicator's name in capitals, said as a ticker of the table is. */
const sayName = (name: string, lang: SpeechLanguage) => saySymbol(name.toUpperCase(), lang) ?? spell(name, lang);

export function indicatorRules(lang: SpeechLanguage): Rule[] {
  const w = wordsOf(lang);
  const names = Object.keys(INDICATORS).sort(byLengthDesc).join('|');
  const lower = [...LOWERCASE_NAMES].sort(byLengthDesc).join('|');
  const percent = w.percent?.one ?? lang.percent;
  const argument = (arg: string, say: (text: string) => string) =>
    /^\d+(?:\.\d+)?$/.test(arg) ? sayNumber(arg, lang) : say(arg.replace(/[._]+/g, ' '));
  return [
    // sma(50), EMA(close, 20), bb(20, 2), MACD(12,26,9): the name, then each argument.
    {
      name: 'indicator-call',
      pattern: new RegExp(
        `${NOT_AFTER_WORD}(${names})\\(\\s*([\\p{L}\\p{N}_.]+(?:\\s*,\\s*[\\p{L}\\p{N}_.]+){0,3})\\s*\\)`,
        'yiu',
      ),
      speak: ([, name, args], ctx) =>
        `${sayName(name!, lang)} ${args!
          .split(/\s*,\s*/)
          .map((arg) => argument(arg, ctx.say))
          .join(', ')}`,
    },
    // vwap, rsi14, ema 20, Sma: the name in small letters or capitalized, and its length.
    {
      name: 'indicator-word',
      pattern: new RegExp(`${NOT_AFTER_WORD}(${lower})(\\d{1,4})?${NOT_BEFORE_WORD}`, 'yiu'),
      speak: ([name, letters, length]) => {
        if (/^[A-Z]+\d*$/.test(name!)) return undefined; // in capitals: the ticker rules read it
        return [sayName(letters!, lang), length && wholeNumber(length, lang)].filter(Boolean).join(' ');
      },
    },
    // bb 20, sar 0.02: the two names that could be words elsewhere, read in small letters only before their argument.
    {
      name: 'indicator-short',
      pattern: new RegExp(`${NOT_AFTER_WORD}(bb|sar)(?=\\s?\\d)`, 'yiu'),
      speak: ([name]) => (/^[A-Z]+$/.test(name!) ? undefined : sayName(name!, lang)),
    },
    // BB%B, %K, %D, Williams %R: the percent said, the letters spelled.
    {
      name: 'percent-line',
      pattern: new RegExp(`${NOT_AFTER_WORD}([A-Z]{1,5})?%([A-Z])(?![\\p{L}\\p{N}_])`, 'yu'),
      speak: ([, name, line]) => [name && sayName(name, lang), percent, spell(line!, lang)].filter(Boolean).join(' '),
    },
  ];
}
