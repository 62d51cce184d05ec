// Times of day and calendar dates as they are said.
import { english } from '../number-words.js';
import { chineseYear } from '../native-numbers.js';
import { formAfter, pick, type SpeechLanguage, wordsOf } from './words.js';

/** A time of day, 24-hour, as said on a trading desk: 14:00 "fourteen hundred", 09:05 "zero nine zero five". */
export function sayTime24(hours: number, minutes: number, lang: SpeechLanguage = english): string {
  const said = lang.words?.time24?.(hours, minutes);
  if (said !== undefined) return said;
  const h = hours < 10 ? `${lang.digit(0)} ${lang.digit(hours)}` : lang.cardinal(hours);
  const m =
    minutes === 0 ? 'hundred' : minutes < 10 ? `${lang.digit(0)} ${lang.digit(minutes)}` : lang.cardinal(minutes);
  return `${h} ${m}`;
}

export function sayTime12(hours: number, minutes: number, lang: SpeechLanguage): string {
  const said = lang.words?.time12?.(hours, minutes);
  if (said !== undefined) return said;
  const m = minutes === 0 ? "o'clock" : minutes < 10 ? `oh ${lang.digit(minutes)}` : lang.cardinal(minutes);
  return `${lang.cardinal(hours)} ${m}`;
}

/** Said in UTC without the date: the alert is spoken minutes after it was sent; its seconds only when written apart from a date (13:45:30Z). */
export function sayIsoTime(
  hh: string,
  mm: string,
  zone: string,
  lang: SpeechLanguage,
  seconds?: string,
): string | undefined {
  if (Number(hh) > 23 || Number(mm) > 59) return undefined;
  const [, sign = '+', offH = '0', offM = '0'] = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone) ?? [];
  const offset = (sign === '-' ? -1 : 1) * (Number(offH) * 60 + Number(offM));
  const local = Number(hh) * 60 + Number(mm);
  const utc = (((local - offset) % 1440) + 1440) % 1440;
  return `${sayTime24(Math.floor(utc / 60), utc % 60, lang)}${saySeconds(seconds, lang)} ${wordsOf(lang).utc}`;
}

/** " and thirty seconds" after a time; nothing for none or 00. */
export function saySeconds(seconds: string | undefined, lang: SpeechLanguage): string {
  const s = Number(seconds ?? 0);
  if (!s) return '';
  const w = wordsOf(lang);
  const unit = (w.durationUnits ?? w.units).second;
  // Japanese, Chinese and Korean join the seconds on without an "and": 十四点三十分十五秒, 45분 30초.
  const and = w.joinsWords ? '' : ` ${w.symbols.and}`;
  return `${and} ${lang.cardinal(s)} ${pick(unit, formAfter(w, { whole: String(s) }))}`;
}

/** A Unix time stamp (seconds, or milliseconds with 13 digits) of 2001–2036, as its UTC date and time. */
export function sayUnixTime(digits: string, lang: SpeechLanguage): string | undefined {
  const ms = digits.length === 13 ? Number(digits) : digits.length === 10 ? Number(digits) * 1000 : Number.NaN;
  if (!(ms >= 978_307_200_000 && ms < 2_114_380_800_000)) return undefined;
  const at = new Date(ms);
  const date = sayDate(at.getUTCMonth() + 1, at.getUTCDate(), lang);
  const time = sayTime24(at.getUTCHours(), at.getUTCMinutes(), lang);
  return `${withYear(date ?? '', at.getUTCFullYear(), lang)}, ${time}${saySeconds(String(at.getUTCSeconds()), lang)} ${wordsOf(lang).utc}`;
}

/** A year as said: 2025 "twenty twenty-five" in English, "二零二五" in Chinese, digits elsewhere (the engines read a year). */
export function wholeYear(year: number, lang: SpeechLanguage): string {
  if (lang.code === 'zh') return chineseYear(year);
  if (lang.cardinal(21) === String(21)) return String(year);
  if ((lang.code === 'en' || lang.code === undefined) && year >= 2010)
    return `${lang.cardinal(Math.floor(year / 100))} ${lang.cardinal(year % 100)}`;
  return lang.cardinal(year);
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A month and day that exist (29 February included: the year is not said). */
export const isDate = (month: number, day: number): boolean =>
  month >= 1 && month <= 12 && day >= 1 && day <= DAYS_IN_MONTH[month - 1]!;

/** A date said without its year: the year of an alert is this one, and the engine would read it as a number. */
export function sayDate(month: number, day: number, lang: SpeechLanguage): string | undefined {
  return isDate(month, day) ? wordsOf(lang).date(month, day) : undefined;
}

/** A date or month with its year, in the language's order: "December 2024"; year first in Japanese, Chinese and Korean (二零二四年十二月, 2024년 12월, にせんにじゅうよねん じゅうにがつ). */
export function withYear(date: string, year: number, lang: SpeechLanguage): string {
  if (lang.code === 'zh') return `${chineseYear(year)}${date}`;
  if (lang.code === 'ko') return `${year}년 ${date}`;
  if (lang.code === 'ja') return `${lang.cardinal(year)}ねん ${date}`;
  return `${date} ${wholeYear(year, lang)}`;
}
