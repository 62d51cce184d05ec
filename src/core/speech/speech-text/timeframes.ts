// Timeframes after a count (15m, 4H, 1D; the language's own: Russian 4Ч, Japanese 1時間足, Korean
// 4시간봉) and durations (2h30m). Whether "5m" is five minutes or five million is decided by its
// place first (after a pair, after in/on/for, at the end of a field), then by the words around it.
import { wholeNumber } from './numbers.js';
import {
  after,
  before,
  byLengthDesc,
  escapeRegExp,
  NOT_BEFORE_WORD,
  type Rule,
  type RuleContext,
} from './rule-context.js';
import { MAGNITUDE_AFTER, MAGNITUDE_BEFORE } from './vocabulary.js';
import { formAfter, pick, type SpeechLanguage, type TimeUnit, wordsOf } from './words.js';

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

/** TradingView's month timeframes (1M … 12M); M after the usual minute counts is minutes (15M, the MetaTrader way). */
const MONTH_COUNTS = new Set([1, 2, 3, 4, 6, 12]);
const MINUTE_COUNTS = new Set([5, 10, 15, 20, 30, 45, 90, 120, 180, 240]);

/** Words after which a count is a timeframe, in the supported languages (in 5m, on the 15m, im 4H, в 15м). */
const TIMEFRAME_PREPOSITION =
  /(?:^|[\s(,])(?:in|on|for|every|within|the|im|auf|für|pro|innerhalb|en|sur|dans|par|sobre|por|nel|sul|su|per|em|no|na|op|binnen|w|przez|co|в|на|за|по|через)\s*$/iu;
/** A ticker or pair just before (SOLUSDT 5m, BINANCE:BTCUSDT.P 15m, ES1! 5m). */
const TICKER_BEFORE = /(?:^|[\s(,])(?:[A-Z][A-Z0-9_]*:)?[A-Z0-9]*[A-Z]{2,}[A-Z0-9]*(?:\.P|[12]!)?\s*[,:]?\s*$/u;
/** The end of a field or sentence just after. */
const FIELD_END = /^\s*(?:[.!?;,|)\]\n]|$)/u;

/** Is the count at a timeframe's place: after a pair, after in/on/for, or ending its field? */
function atTimeframePlace(ctx: RuleContext, end: number): boolean {
  const left = before(ctx, 60);
  return TICKER_BEFORE.test(left) || TIMEFRAME_PREPOSITION.test(left) || FIELD_END.test(ctx.text.slice(end, end + 3));
}

/** An amount word ending the text before the count (volume 15M, mkt cap: 2M; not "worth SOLUSDT 5M"). */
const AMOUNT_WORD_LAST = new RegExp(`(?:${MAGNITUDE_BEFORE.source})[\\s:=]*\\$?$`, 'i');

/** An amount word just before the count: the count is that amount. */
function amountWordJustBefore(ctx: RuleContext): boolean {
  const words = before(ctx, 40).trim().split(/\s+/).slice(-2).join(' ');
  return AMOUNT_WORD_LAST.test(words);
}

/** M or m after a whole count: a timeframe, or undefined where it is millions. */
export function minuteOrMillion(count: number, unit: 'm' | 'M', ctx: RuleContext, end: number): TimeUnit | undefined {
  if (MAGNITUDE_AFTER.test(after(ctx, end, 16)) || amountWordJustBefore(ctx)) return undefined;
  const placed = atTimeframePlace(ctx, end);
  if (!placed && MAGNITUDE_BEFORE.test(before(ctx, 40))) return undefined;
  if (unit === 'm') return 'minute';
  if (MINUTE_COUNTS.has(count)) return 'minute';
  return MONTH_COUNTS.has(count) ? 'month' : undefined;
}

export function timeframeRules(lang: SpeechLanguage): Rule[] {
  const w = wordsOf(lang);
  const r = (source: string) => new RegExp(source, 'yu');
  const units = Object.keys(TIMEFRAMES).sort(byLengthDesc).join('|');
  const count = (n: number, tf: TimeUnit) =>
    w.timeframe?.(n, tf) ?? `${wholeNumber(String(n), lang)} ${pick(w.units[tf], formAfter(w, { whole: String(n) }))}`;
  const timeframe = (n: number, tf: TimeUnit) => (n === 1 ? w.single[tf] : undefined) ?? count(n, tf);
  const duration = (n: number, tf: TimeUnit) =>
    w.timeframe?.(n, tf) ??
    `${wholeNumber(String(n), lang)} ${pick((w.durationUnits ?? w.units)[tf], formAfter(w, { whole: String(n) }))}`;
  const rules: Rule[] = [
    // 2h30m, 1h 15m, 1d4h: a duration, each part with its unit.
    {
      name: 'duration',
      pattern: r(`(?<![\\p{L}\\p{N}_.,])(\\d{1,3})(d|h|H|hr)\\s?(\\d{1,2})(h|H|m|min)${NOT_BEFORE_WORD}`),
      speak: ([, a, first, b, second]) => {
        const big = TIMEFRAMES[first!]!;
        const small = TIMEFRAMES[second!]!;
        if (big === small || (big === 'hour' && small !== 'minute')) return undefined;
        return `${duration(Number(a), big)} ${duration(Number(b), small)}`;
      },
    },
    // 8 h, 24 h: hours written apart (French, Spanish, Italian, German), a count of hours.
    {
      name: 'spaced-hours',
      pattern: r('(?<![\\p{L}\\p{N}_.,:$€£¥])(\\d{1,3})[ \\u00A0]h(?![\\p{L}\\p{N}_])'),
      speak: ([, written]) => count(Number(written), 'hour'),
    },
    {
      name: 'timeframe',
      // After a currency sign it is money ($2M), never a timeframe.
      pattern: r(`(?<![\\p{L}\\p{N}_.,$€£¥])(\\d{1,4})(${units})${NOT_BEFORE_WORD}`),
      speak: ([all, written, unit], ctx) => {
        const n = Number(written);
        const tf =
          unit === 'M' || unit === 'm'
            ? minuteOrMillion(n, unit, ctx, ctx.index + all!.length)
            : // Turkish writes saat (hour) as S: 4S is four hours there, the seconds charts start at 15S.
              lang.code === 'tr' && unit === 'S' && n <= 12
              ? 'hour'
              : TIMEFRAMES[unit!]!;
        return tf === undefined ? undefined : timeframe(n, tf);
      },
    },
  ];
  if (w.ownUnits) rules.push(ownTimeframe(lang, timeframe, count));
  return rules;
}

/** The language's own abbreviations (4Ч, 15м, 1時間足, 日足, 4시간봉, 日线): a count, unless the chart word says it alone; never the start of a Korean word (초과 exceeds, 분석 analysis, 분기 quarter, 시간외 after hours). */
function ownTimeframe(
  lang: SpeechLanguage,
  timeframe: (n: number, tf: TimeUnit) => string,
  count: (n: number, tf: TimeUnit) => string,
): Rule {
  const w = wordsOf(lang);
  const own = w.ownUnits!;
  const keys = Object.keys(own).sort(byLengthDesc).map(escapeRegExp).join('|');
  const chart = w.chartWord;
  const chartGroup = chart ? `(${escapeRegExp(chart.written)})?` : '()';
  return {
    name: 'own-timeframe',
    pattern: new RegExp(
      `(?<![\\p{Script=Latin}\\p{Script=Cyrillic}\\p{N}_.,])(?:(\\d{1,4})\\s?)?(${keys})${chartGroup}(?:\\.(?=[ \\u00A0]\\p{Ll}))?(?![\\p{Script=Latin}\\p{Script=Cyrillic}\\p{N}_과석기할산외])`,
      'yu',
    ),
    speak: ([, written, unit, charted]) => {
      const tf = own[unit!]!;
      const withChart = Boolean(charted) || (chart !== undefined && unit!.endsWith(chart.written));
      const chartSaid = charted ? chart!.said : '';
      if (written === undefined) {
        if (!withChart) return undefined;
        if (tf === 'day' || tf === 'week' || tf === 'month') return w.single[tf] ?? count(1, tf);
        return `${pick(w.units[tf], 'many')}${chart!.said}`;
      }
      const n = Number(written);
      if (withChart && n === 1 && w.single[tf]) return w.single[tf]!;
      // Where the chart has its own word (足, 봉, 线), a count without it is a period (1ヶ月 いっかげつ), not the monthly chart.
      return `${withChart || chart ? count(n, tf) : timeframe(n, tf)}${chartSaid}`;
    },
  };
}
