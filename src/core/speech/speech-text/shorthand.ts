// Instruments and desk shorthand written short: 0DTE, a strike with C or P (540C), a tenor (10Y),
// y/y and YoY, a price per unit ($/oz), and English's est and exp after a figure.
import { NOT_AFTER_WORD, NOT_BEFORE_WORD, after, before, type Rule } from './rule-context.js';
import { instrumentWords, PER_UNITS, perUnit } from './instruments.js';
import { spell, wholeNumber, sayNumber } from './numbers.js';
import { formAfter, pick, type SpeechLanguage, wordsOf } from './words.js';

const PERIODS = {
  y: 'year over year',
  m: 'month over month',
  q: 'quarter over quarter',
  w: 'week over week',
  d: 'day over day',
} as const;

/** The rules of what a trader writes short after a number or a ticker, tried after the decimals with letters. */
export function shorthandRules(lang: SpeechLanguage): Rule[] {
  const r = (source: string) => new RegExp(source, 'yu');
  const w = wordsOf(lang);
  const num = (written: string) => sayNumber(written, lang);
  return [
    // 0DTE: options expiring today, "zero D T E" as traders say it.
    {
      name: 'days-to-expiry',
      pattern: r(`${NOT_AFTER_WORD}(\\d{1,3})DTE${NOT_BEFORE_WORD}`),
      speak: ([, days]) => `${wholeNumber(days!, lang)} ${spell('DTE', lang)}`,
    },
    // 250C, 5400P after a ticker or before an expiry: a strike and call or put; 10Y a tenor; else the number, then the letter.
    {
      name: 'number-and-letter',
      pattern: r('(?<![\\p{L}\\p{N}_.])(\\d{1,6}(?:\\.5)?)([A-Z])(?![\\p{L}\\p{N}_])'),
      speak: ([all, digits, letter], ctx) => {
        const option =
          (letter === 'C' || letter === 'P') &&
          (/(?:\b[A-Z]{1,6}|\dDTE|\d{1,2}\/\d{1,2})[\s,]+$/.test(before(ctx, 24)) ||
            /^[\s,]+(?:\d{1,2}\/\d{1,2}|\d{4}-\d{2}-\d{2}|exp)/i.test(after(ctx, ctx.index + all!.length, 12)));
        if (option) {
          const words = instrumentWords(lang.code);
          return `${num(digits!)} ${letter === 'C' ? words.call : words.put}`;
        }
        if (digits!.includes('.')) return undefined;
        // 10Y, and German 10J (Jahre): a tenor.
        if ((letter === 'Y' || (letter === 'J' && lang.code === 'de')) && Number(digits) <= 50 && w.year)
          return `${wholeNumber(digits!, lang)} ${pick(w.year, formAfter(w, { whole: String(Number(digits)) }))}`;
        return `${wholeNumber(digits!, lang)} ${letter}`;
      },
    },
    // y/y, m/m, q/q, YoY, MoM, QoQ: a change on the year, month or quarter before (English alerts write them so).
    {
      name: 'period-over-period',
      languages: ['en'],
      pattern: r(`${NOT_AFTER_WORD}(?:([ymqwd])\\/\\1|([YMQWD])o\\2)${NOT_BEFORE_WORD}`),
      speak: ([, short, long]) => PERIODS[(short ?? long!).toLowerCase() as keyof typeof PERIODS],
    },
    // $/oz, € / bbl: a price per unit of a commodity, after its currency or number.
    {
      name: 'per-unit',
      pattern: r(`(?<=[\\p{N}\\p{Sc}\\p{L}] ?)/ ?(${PER_UNITS.join('|')})(?![\\p{L}\\p{N}])`),
      speak: ([, unit]) => perUnit(lang.code, unit!),
    },
    // English desk shorthand flite misreads ("est" as "estate"): est and exp after a figure, AH after a change.
    {
      name: 'english-shorthand',
      languages: ['en'],
      pattern: r(`${NOT_AFTER_WORD}(est|exp|AH|avg|bbl)\\.?${NOT_BEFORE_WORD}`),
      speak: ([, word], ctx) => {
        if (word === 'avg') return 'average';
        if (word === 'bbl') return 'barrels';
        const afterFigure = /[\p{N}%kKMB]\s*$/u.test(before(ctx, 12));
        if (word === 'AH') return afterFigure ? 'after hours' : undefined;
        if (word === 'est') return afterFigure ? 'estimate' : undefined;
        // 6/21 exp, 250C exp: an option's expiry; 180K exp: the figure expected.
        const afterDateOrStrike = /(?:\d{1,2}\/\d{1,2}|\d[CP])\s*$/.test(before(ctx, 12));
        return afterFigure && !afterDateOrStrike ? 'expected' : 'expiry';
      },
    },
  ];
}
