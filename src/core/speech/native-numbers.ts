// Numbers as a native speaker says them where espeak-ng's own reading is wrong: Japanese in kana
// (espeak-ng reads 64250 as "six ten four thousand…" and a digit string after a decimal word as
// one number), Chinese in characters (it says 六十四千 for 64250), and Russian decimals in words
// (it reads 2,35 as "two and three five tenths"). Checked on espeak-ng's phonemes in the tests.
import { MAX_CARDINAL, type NumberLanguage } from './number-words.js';

const JA_DIGITS = ['ぜろ', 'いち', 'に', 'さん', 'よん', 'ご', 'ろく', 'なな', 'はち', 'きゅう'];
const JA_HUNDREDS: Record<number, string> = { 1: 'ひゃく', 3: 'さんびゃく', 6: 'ろっぴゃく', 8: 'はっぴゃく' };
const JA_THOUSANDS: Record<number, string> = { 1: 'せん', 3: 'さんぜん', 8: 'はっせん' };
const JA_UNITS: Array<[number, string]> = [
  [1e12, 'ちょう'],
  [1e8, 'おく'],
  [1e4, 'まん'],
];

function checkCardinal(n: number): void {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_CARDINAL) throw new RangeError(`cannot say ${n} in words`);
}

/** 1 to 9999 in kana; before まん/おく a thousand is いっせん. */
function japaneseBelowTenThousand(n: number, beforeUnit: boolean): string {
  const [th, h, t, o] = [Math.floor(n / 1000), Math.floor(n / 100) % 10, Math.floor(n / 10) % 10, n % 10];
  const parts: string[] = [];
  if (th > 0)
    parts.push(th === 1 && beforeUnit && n % 1000 === 0 ? 'いっせん' : (JA_THOUSANDS[th] ?? `${JA_DIGITS[th]}せん`));
  if (h > 0) parts.push(JA_HUNDREDS[h] ?? `${JA_DIGITS[h]}ひゃく`);
  if (t > 0) parts.push(t === 1 ? 'じゅう' : `${JA_DIGITS[t]}じゅう`);
  if (o > 0) parts.push(JA_DIGITS[o]!);
  return parts.join('');
}

export function japaneseCardinal(n: number): string {
  checkCardinal(n);
  if (n === 0) return JA_DIGITS[0]!;
  const groups: string[] = [];
  let rest = n;
  for (const [size, unit] of JA_UNITS) {
    const count = Math.floor(rest / size);
    rest %= size;
    if (count === 0) continue;
    groups.push(count === 1 && unit === 'ちょう' ? 'いっちょう' : `${japaneseBelowTenThousand(count, true)}${unit}`);
  }
  if (rest > 0) groups.push(japaneseBelowTenThousand(rest, false));
  return groups.join(' ');
}

const ZH_DIGITS = '零一二三四五六七八九';
const ZH_UNITS: Array<[number, string]> = [
  [1e12, '万亿'],
  [1e8, '亿'],
  [1e4, '万'],
  [1, ''],
];

/** 1 to 9999 in characters, with 零 for the zeros inside; `leading`: the number's first group. */
function chineseBelowTenThousand(n: number, leading: boolean): string {
  const places: Array<[number, string]> = [
    [1000, '千'],
    [100, '百'],
    [10, '十'],
    [1, ''],
  ];
  let out = '';
  let zero = false;
  let started = false;
  for (const [size, name] of places) {
    const d = Math.floor(n / size) % 10;
    if (d === 0) {
      zero = started;
      continue;
    }
    if (zero) out += '零';
    zero = false;
    // 两千, 两百 in front; 十五, not 一十五, at the start of the number.
    const digit =
      d === 2 && size >= 100 && !started ? '两' : d === 1 && size === 10 && !started && leading ? '' : ZH_DIGITS[d]!;
    out += digit + name;
    started = true;
  }
  return out;
}

export function chineseCardinal(n: number): string {
  checkCardinal(n);
  if (n === 0) return '零';
  let out = '';
  let rest = n;
  let pendingZero = false;
  for (const [size, unit] of ZH_UNITS) {
    const count = Math.floor(rest / size);
    rest %= size;
    if (count === 0) {
      pendingZero = out !== '';
      continue;
    }
    if (out !== '' && (pendingZero || count < 1000)) out += '零';
    pendingZero = false;
    out += (count === 2 && unit !== '' && out === '' ? '两' : chineseBelowTenThousand(count, out === '')) + unit;
  }
  return out;
}

const RU_ONES = ['ноль', 'один', 'два', 'три', 'четыре', 'пять', 'шесть', 'семь', 'восемь', 'девять'];
const RU_TEENS = [
  'десять',
  'одиннадцать',
  'двенадцать',
  'тринадцать',
  'четырнадцать',
  'пятнадцать',
  'шестнадцать',
  'семнадцать',
  'восемнадцать',
  'девятнадцать',
];
const RU_TENS = [
  '',
  '',
  'двадцать',
  'тридцать',
  'сорок',
  'пятьдесят',
  'шестьдесят',
  'семьдесят',
  'восемьдесят',
  'девяносто',
];
const RU_HUNDREDS = [
  '',
  'сто',
  'двести',
  'триста',
  'четыреста',
  'пятьсот',
  'шестьсот',
  'семьсот',
  'восемьсот',
  'девятьсот',
];
const RU_SCALES: Array<[number, [string, string, string], boolean]> = [
  [1e12, ['триллион', 'триллиона', 'триллионов'], false],
  [1e9, ['миллиард', 'миллиарда', 'миллиардов'], false],
  [1e6, ['миллион', 'миллиона', 'миллионов'], false],
  [1e3, ['тысяча', 'тысячи', 'тысяч'], true],
];

const fewForm = (n: number) => n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14);
/** Russian nouns after a number: 1 (21, 31…, not 11), 2–4 (not 12–14), and the rest. */
export const russianForm = (n: number): 'one' | 'few' | 'many' =>
  n % 10 === 1 && n % 100 !== 11 ? 'one' : fewForm(n) ? 'few' : 'many';
/** Polish nouns after a number: 1 alone, 2–4 (not 12–14), and the rest (21 minut). */
export const polishForm = (n: number): 'one' | 'few' | 'many' => (n === 1 ? 'one' : fewForm(n) ? 'few' : 'many');

function russianBelowThousand(n: number, feminine: boolean): string[] {
  const words = [RU_HUNDREDS[Math.floor(n / 100)]!];
  const rest = n % 100;
  if (rest >= 10 && rest < 20) words.push(RU_TEENS[rest - 10]!);
  else {
    words.push(RU_TENS[Math.floor(rest / 10)]!);
    const one = rest % 10;
    if (one > 0) words.push(feminine && one <= 2 ? ['', 'одна', 'две'][one]! : RU_ONES[one]!);
  }
  return words.filter(Boolean);
}

/** A whole number in Russian words; `feminine` for a count of feminine nouns (одна целая, две сотых). */
export function russianCardinal(n: number, feminine = false): string {
  checkCardinal(n);
  if (n === 0) return RU_ONES[0]!;
  const words: string[] = [];
  let rest = n;
  for (const [size, names, femaleScale] of RU_SCALES) {
    const count = Math.floor(rest / size);
    rest %= size;
    if (count === 0) continue;
    words.push(...russianBelowThousand(count, femaleScale), names[['one', 'few', 'many'].indexOf(russianForm(count))]!);
  }
  words.push(...russianBelowThousand(rest, feminine));
  return words.join(' ');
}

const RU_FRACTIONS = ['десят', 'сот', 'тысячн', 'десятитысячн', 'стотысячн', 'миллионн'];

/**
 * A Russian decimal as it is said: "две целых тридцать пять сотых" (to a millionth); with more
 * decimals, the whole part and "запятая", then each digit.
 */
export function russianDecimal(whole: string, fraction: string): string {
  const w = Number(whole);
  if (fraction.length > RU_FRACTIONS.length || w > MAX_CARDINAL) return `${whole} запятая ${[...fraction].join(' ')}`;
  const f = Number(fraction);
  const wholeWords = `${russianCardinal(w, true)} ${russianForm(w) === 'one' ? 'целая' : 'целых'}`;
  const ending = russianForm(f) === 'one' ? 'ая' : 'ых';
  return `${wholeWords} ${russianCardinal(f, true)} ${RU_FRACTIONS[fraction.length - 1]}${ending}`;
}

/** A million or more in words: espeak-ng's Russian says 2345678 "два миллионов" (and 2 345 678 as three numbers). */
export function russianLargeWhole(digits: string): string | undefined {
  const n = Number(digits);
  return digits.length > 1 && digits.startsWith('0')
    ? undefined
    : n >= 1_000_000 && n <= MAX_CARDINAL
      ? russianCardinal(n)
      : undefined;
}

/** A language that writes its numbers in its own characters and says decimals one digit at a time after `point`. */
const characterNumbers =
  (cardinal: NumberLanguage['cardinal'], digits: ArrayLike<string>, point: string) =>
  (words: { minus: string; plus: string; percent: string; times: string }): NumberLanguage => ({
    decimalSeparator: '.',
    groupSeparator: ',',
    cardinal,
    digit: (d) => digits[d]!,
    point,
    zeros: String,
    zeroRun: Number.POSITIVE_INFINITY,
    ...words,
  });

/** Japanese: kana numbers, the decimals one digit at a time after てん (に てん さん ご). */
export const japaneseNumbers = characterNumbers(japaneseCardinal, JA_DIGITS, 'てん');

/** Chinese: numbers in characters, the decimals one digit at a time after 点 (二 点 三 五). */
export const chineseNumbers = characterNumbers(chineseCardinal, ZH_DIGITS, '点');

const KO_NATIVE_ONES = ['', '한', '두', '세', '네', '다섯', '여섯', '일곱', '여덟', '아홉'];
const KO_NATIVE_TENS = ['', '열', '스물'];

/** Korean's native count before a counter (네 시간, 열두 시), 1 to 29; espeak-ng reads 4 as the Sino-Korean 사. */
export function koreanNativeCount(n: number): string | undefined {
  if (!Number.isInteger(n) || n < 1 || n > 29) return undefined;
  if (n === 20) return '스무';
  return `${KO_NATIVE_TENS[Math.floor(n / 10)]}${KO_NATIVE_ONES[n % 10]}`;
}

/** A year one digit at a time, as Chinese says it: 2025 "二零二五年". */
export const chineseYear = (year: number): string => `${[...String(year)].map((d) => ZH_DIGITS[Number(d)]).join('')}年`;
