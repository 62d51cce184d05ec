// How numbers are written in an alert and said in a call, for one language. The speech normalizer
// only knows this interface, so another language needs only another implementation.

export interface NumberLanguage {
  /** How the alert writes the decimal point and the thousands separator. */
  decimalSeparator: string;
  groupSeparator: string;
  /** A whole number 0 <= n <= MAX_CARDINAL, in words. */
  cardinal(n: number): string;
  digit(d: number): string;
  point: string;
  minus: string;
  plus: string;
  percent: string;
  times: string;
  /** A run of zeros too long to count by ear ("four zeros"). */
  zeros(count: number): string;
  /**
   * The owner may write a decimal comma in their own language (1,25 %): a comma followed by other
   * than three digits, which cannot be a thousands separator, is then taken for the decimal point.
   */
  localDecimalComma?: boolean;
  /** From how many zeros after the point `zeros` is said instead of each (default ZERO_RUN); Infinity: never. */
  zeroRun?: number;
  /**
   * A number with a decimal part, written out for the engine to read itself (the whole part and
   * the decimals as digits); absent: said in words with `cardinal`, `point` and `digit`.
   */
  decimal?(whole: string, fraction: string): string;
  /** A whole number the engine would say wrong as digits, in words (Russian millions: espeak-ng says "два миллионов"); undefined: the digits. */
  largeWhole?(digits: string): string | undefined;
}

/** Beyond this, numbers are read digit by digit: nobody says "quadrillion" about a price. */
export const MAX_CARDINAL = 999_999_999_999_999;

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES: Array<[number, string]> = [
  [1e12, 'trillion'],
  [1e9, 'billion'],
  [1e6, 'million'],
  [1e3, 'thousand'],
];

function belowThousand(n: number): string {
  const words: string[] = [];
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (hundreds > 0) words.push(`${ONES[hundreds]} hundred`);
  if (rest > 0 && rest < 20) words.push(ONES[rest]!);
  else if (rest >= 20)
    words.push(rest % 10 === 0 ? TENS[rest / 10]! : `${TENS[Math.floor(rest / 10)]}-${ONES[rest % 10]}`);
  return words.join(' ');
}

function englishCardinal(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_CARDINAL) throw new RangeError(`cannot say ${n} in words`);
  if (n === 0) return 'zero';
  const words: string[] = [];
  let rest = n;
  for (const [size, name] of SCALES) {
    const count = Math.floor(rest / size);
    if (count > 0) words.push(`${belowThousand(count)} ${name}`);
    rest %= size;
  }
  if (rest > 0) words.push(belowThousand(rest));
  return words.join(' ');
}

export const english: NumberLanguage = {
  decimalSeparator: '.',
  groupSeparator: ',',
  cardinal: englishCardinal,
  digit: (d) => ONES[d]!,
  point: 'point',
  minus: 'minus',
  plus: 'plus',
  percent: 'percent',
  times: 'times',
  zeros: (count) => `${englishCardinal(count)} zeros`,
};

/** The words a language leaves to the speech engine's own reading of digits. */
export interface DigitsWords {
  minus: string;
  plus: string;
  percent: string;
  times: string;
  localDecimalComma?: boolean;
  /** How the whole part and the decimals are joined: a decimal comma, or a word where the engine drops the point. */
  decimal(whole: string, fraction: string): string;
  largeWhole?(digits: string): string | undefined;
}

/**
 * A language whose engine (espeak-ng) reads digits itself: numbers stay digits, alerts are still
 * read as the charting platform writes numbers (a decimal point, a comma between thousands).
 */
export function digitsLanguage(words: DigitsWords): NumberLanguage {
  return {
    decimalSeparator: '.',
    groupSeparator: ',',
    cardinal: String,
    digit: String,
    point: '',
    zeros: String,
    ...words,
  };
}

/**
 * Joined by a decimal comma: 187,2. Decimals of three digits or more, or starting with a zero, one
 * digit at a time (1,0 8 2 5), as a quote is said: espeak-ng reads 1,0825 in French "un virgule zéro
 * huit cent vingt-cinq" and in Spanish drops the zero of 1,05.
 */
export const decimalComma = (whole: string, fraction: string) =>
  fraction.length >= 3 || (fraction.length > 1 && fraction.startsWith('0'))
    ? `${whole},${fraction[0]} ${[...fraction.slice(1)].join(' ')}`
    : `${whole},${fraction}`;

/**
 * Joined by a spoken decimal word, the decimals one digit at a time, as they are said in Korean
 * (2 점 3 5): the engine would read "35" as thirty-five, and drops a written point.
 */
export const decimalWord = (word: string) => (whole: string, fraction: string) =>
  `${whole} ${word} ${[...fraction].join(' ')}`;

/** A decimal part starting with this many zeros or more says how many ("four zeros") rather than each. */
export const ZERO_RUN = 4;
