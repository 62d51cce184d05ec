// How each language writes its numbers (the mark between thousands, the decimal mark), and the
// reader that takes a number as written in an alert to its whole digits and its decimals: German
// 18.420,75, French 64 318,5 (a space, a no-break or a narrow no-break space between thousands),
// Swiss 1'234.50, English 64,250.5. A number with one mark and three digits after it (131.200) is
// thousands in a language that groups with that mark, else a decimal; 0.125 is always a decimal.
import type { LanguageCode } from '../language-types.js';
import type { NumberLanguage } from '../number-words.js';

/** The mark between thousands a language writes (a space: also the no-break and narrow no-break ones). */
export const THOUSANDS_MARK: Readonly<Record<LanguageCode, ',' | '.' | ' '>> = {
  en: ',',
  ja: ',',
  zh: ',',
  ko: ',',
  de: '.',
  es: '.',
  it: '.',
  pt: '.',
  nl: '.',
  tr: '.',
  fr: ' ',
  pl: ' ',
  ru: ' ',
};

/** What the reader needs of a language: its code (absent: its own separators) and whether it writes a decimal comma. */
export type MarkedLanguage = NumberLanguage & { code?: string };

export interface ReadNumber {
  /** Digits only. */
  whole: string;
  /** The decimals' digits, when written. */
  fraction?: string;
}

const SPACES = /[ \u00A0\u202F]/g;

/** The regular expression source of a number as the language may write it (for the rules' patterns). */
export function numberSource(lang: MarkedLanguage): string {
  const spaces = groupsWith(lang) === ' ' ? '[ \\u00A0\\u202F]' : '[\\u00A0\\u202F]';
  const grouped = [
    '\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?',
    '\\d{1,3}(?:\\.\\d{3})+(?:,\\d+)?',
    `\\d{1,3}(?:${spaces}\\d{3})+(?:[.,]\\d+)?`,
    "\\d{1,3}(?:['’]\\d{3})+(?:\\.\\d+)?",
  ];
  const plain = readsDecimalComma(lang) ? '\\d+(?:[.,]\\d+(?![.,]\\d))?' : '\\d+(?:\\.\\d+)?';
  return `(?:${grouped.join('|')})(?![.,'’]?\\d)|${plain}|\\.\\d+`;
}

/** The mark a language writes between thousands: its table's, else the number language's own. */
export const groupsWith = (lang: MarkedLanguage): string =>
  (lang.code && THOUSANDS_MARK[lang.code as LanguageCode]) || lang.groupSeparator;

/** A decimal comma is read where the language writes one; the point always (the charting platforms write it). */
const readsDecimalComma = (lang: MarkedLanguage) => lang.localDecimalComma === true || lang.decimalSeparator === ',';

/** A number as written, read by the language's marks; undefined when it is not one number (1.2.3). */
export function readWritten(written: string, lang: MarkedLanguage): ReadNumber | undefined {
  const text = written.replace(SPACES, ' ').replace(/’/g, "'");
  const parts = text.split(/[.,' ]/);
  const marks = text.replace(/\d/g, '');
  if (marks === '') return /^\d+$/.test(text) ? { whole: text } : undefined;
  if (parts.some((p) => !/^\d*$/.test(p))) return undefined;
  if (parts[0] === '') return marks.length === 1 ? { whole: '', fraction: parts[1]! } : undefined;
  const groupsValid = (groups: string[]) =>
    groups.length > 0 && groups[0]!.length <= 3 && groups.slice(1).every((g) => g.length === 3);
  const last = marks[marks.length - 1]!;
  const others = marks.slice(0, -1);
  if (others !== '' && !others.split('').every((m) => m === others[0])) return undefined;
  const decimalMarks = readsDecimalComma(lang) ? '.,' : '.';
  if (others !== '' && others[0] !== last) {
    // Two marks: the first between thousands, the last the decimal point (18.420,75; 64,250.5).
    if (!'.,'.includes(last) || !groupsValid(parts.slice(0, -1))) return undefined;
    return { whole: parts.slice(0, -1).join(''), fraction: parts[parts.length - 1]! };
  }
  if (marks.length > 1) return groupsValid(parts) ? { whole: parts.join('') } : undefined;
  // One mark.
  const [whole, after] = [parts[0]!, parts[1]!];
  const decimal = decimalMarks.includes(last) && (after.length !== 3 || whole === '0' || last !== groupsWith(lang));
  if (decimal) return { whole, fraction: after };
  return groupsValid(parts) ? { whole: whole + after } : undefined;
}
