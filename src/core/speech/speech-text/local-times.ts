// Times and dates written each language's own way: German, Polish, Russian, Turkish dates with dots
// (14.06.), English's 12-hour clock (2pm), Korean hours in native numbers (2시 두 시), French 14h30.
// Each rule is built into its languages' rules only (Rule.languages).
import { koreanNativeCount } from '../native-numbers.js';
import { before, type Rule } from './rule-context.js';
import { sayDate, sayTime12, sayTime24 } from './times.js';
import type { SpeechLanguage } from './words.js';

const SHORT_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
/** What may follow a month's first three letters: the rest of its name (January, Sept), never another word's (Market, Decline). */
const MONTH_ENDINGS = 'uary|ruary|ch|il|e|y|ust|t|tember|ober|ember';
/** The languages that write a day and month with dots (14.06.). */
const DOTTED_DATE_LANGUAGES = ['de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'tr', 'ru'];
/** Words after which a day and month are written (26.07): German, Polish, Russian, Turkish, Dutch and the Romance languages' own. */
const DATE_WORD_BEFORE =
  /(?:^|[^\p{L}])(?:am|vom|zum|seit|datum|termin|sitzung|verfall|le|el|del|il|dal|dia|dnia|data|posiedzenie|tarih|tarihi|дата|заседание|экспирация|числа)\s*$/iu;

/** The rules of times and dates a language writes its own way, tried before the ratios and clock times. */
export function localTimeRules(lang: SpeechLanguage): Rule[] {
  const r = (source: string) => new RegExp(source, 'yu');
  return [
    // 14.06. (the day and month with their dots, as German, Polish, Russian, Turkish write them), and
    // 26.07 after a word that names a date (am, Sitzung, заседание, dnia …): the date, never a decimal.
    {
      name: 'day-month',
      languages: DOTTED_DATE_LANGUAGES,
      pattern: r('(?<![\\p{L}\\p{N}_.,])(\\d{1,2})\\.(\\d{1,2})(\\.)?(?![\\p{N}]|\\.\\d|,\\d|\\s?[%\\p{Sc}])'),
      speak: ([, d, m, dot], ctx) => {
        if (dot === undefined && !DATE_WORD_BEFORE.test(before(ctx, 24))) return undefined;
        return sayDate(Number(m), Number(d), lang);
      },
    },
    // 2pm, 9:30 a.m.: the 12-hour clock as English says it.
    {
      name: 'am-pm-time',
      languages: ['en'],
      pattern: r('(?<![\\p{L}\\p{N}_:.])(1[0-2]|0?[1-9])(?::([0-5]\\d))? ?([ap])\\.?m\\.?(?![\\p{L}\\p{N}_])'),
      speak: ([, hh, mm, half]) =>
        `${lang.cardinal(Number(hh))}${mm === undefined || mm === '00' ? '' : ` ${sayTime12(Number(hh), Number(mm), lang).split(' ').slice(1).join(' ')}`} ${half!.toUpperCase()} M`,
    },
    // Korean says the hour of a time in its native numbers: 2시 30분 "두 시", 14시 "열네 시" (espeak-ng reads 2 as 이).
    {
      name: 'korean-hour',
      languages: ['ko'],
      pattern: r('(?<![\\p{N}_.,:])([01]?\\d|2[0-4]) ?시(?!간|\\p{N})'),
      speak: ([, hh]) => {
        const h = Number(hh);
        return h === 0 ? '영 시' : `${koreanNativeCount(h)} 시`;
      },
    },
    // Jul 19, Sept. 20 '24: a date with the month's short name, said as dates are (without the year).
    {
      name: 'english-month-day',
      languages: ['en'],
      pattern: r(
        `(?<![\\p{L}\\p{N}])(${SHORT_MONTHS.join('|')})(?:${MONTH_ENDINGS})?\\.? (\\d{1,2})(?:st|nd|rd|th)?(?:,? (?:'\\d{2}|\\d{4}))?(?![\\p{L}\\p{N}:.,]\\d|[\\p{L}\\p{N}%])`,
      ),
      speak: ([, month, day]) =>
        sayDate(SHORT_MONTHS.indexOf(month as (typeof SHORT_MONTHS)[number]) + 1, Number(day), lang),
    },
    // 17.35 Uhr, 17.35 uur: German and Dutch also write the time with a dot before the hour word.
    {
      name: 'dotted-clock-time',
      languages: ['de', 'nl'],
      pattern: r('(?<![\\p{L}\\p{N}_:.,])([01]?\\d|2[0-3])\\.([0-5]\\d)[ \\u00A0]?(?:Uhr|uur)(?!\\p{L})'),
      speak: ([, hh, mm]) => sayTime24(Number(hh), Number(mm), lang),
    },
    // o godz. 15:30: Polish writes godzina short before a time.
    {
      name: 'polish-hour-word',
      languages: ['pl'],
      pattern: r('(?<!\\p{L})godz\\.(?=[ \\u00A0]?\\d)'),
      speak: () => 'godzinie',
    },
    // French and Portuguese write the time 14h30: the 24-hour clock.
    {
      name: 'h-clock-time',
      languages: ['fr', 'pt'],
      pattern: r('(?<![\\p{L}\\p{N}_:.,])([01]?\\d|2[0-3]) ?h ?([0-5]\\d)(?![\\p{L}\\p{N}_])'),
      speak: ([, hh, mm]) => sayTime24(Number(hh), Number(mm), lang),
    },
  ];
}
