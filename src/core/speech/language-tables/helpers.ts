// What the language tables share: building a language, its ordinals, units, times and dates.
import type { NumberLanguage } from '../number-words.js';
import { polishForm, russianForm } from '../native-numbers.js';
import type { Forms, SpeechWords, TimeUnit } from '../speech-text/words.js';
import type { Language, LanguageCode, Prompts } from '../language-types.js';
import { SCRIPTS } from '../speech-text/scripts.js';

export { polishForm, russianForm };
export { continuous, fewForms, forms, same } from '../speech-text/words.js';

export function lang(
  code: LanguageCode,
  name: string,
  nativeName: string,
  espeak: string,
  numbers: NumberLanguage,
  prompts: Prompts,
  words: SpeechWords,
): Language {
  return {
    ...numbers,
    code,
    name,
    nativeName,
    espeak,
    voices: code === 'en' ? ['slt', 'slt-hts', 'espeak-ng'] : ['espeak-ng'],
    prompts,
    words: { ...words, scripts: SCRIPTS[code] },
  };
}

/** The ordinal words for the first ten alerts (a call carries at most 10), then `beyond(n)`. */
export const ordinals =
  (words: readonly string[], beyond: (n: number) => string) =>
  (index: number): string =>
    words[index] ?? beyond(index + 1);

/** Words that do not change with the count, or their forms. */
export const units = (u: Record<TimeUnit, string | Forms>) =>
  Object.fromEntries(
    Object.entries(u).map(([k, v]) => [k, typeof v === 'string' ? { one: v, many: v } : v]),
  ) as SpeechWords['units'];

const twoDigits = (n: number) => String(n).padStart(2, '0');
/** "14 Uhr 5": the hour, a word, and the minutes unless on the hour. */
export const hourWord = (word: string) => (h: number, m: number) => (m === 0 ? `${h} ${word}` : `${h} ${word} ${m}`);
/** 14:05 as written: the engine reads clock times itself. */
export const asWritten = (h: number, m: number) => `${h}:${twoDigits(m)}`;
/** The noun that agrees with a count, by a language's rule (polishForm, russianForm). */
export const countNoun =
  (form: (n: number) => 'one' | 'few' | 'many') => (n: number, one: string, few: string, many: string) =>
    ({ one, few, many })[form(n)];

/** A date from the month names: `format` places the day and the month. */
export const monthDate =
  (months: string, format: (day: number, month: string) => string) =>
  (month: number, day: number): string =>
    format(day, months.split(' ')[month - 1]!);
