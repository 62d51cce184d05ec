// The families of #57 over generated cases in every language each concerns: numbers written the
// language's own way (its thousands and decimal marks, the charting platforms' way, no-break and
// narrow no-break spaces), each read to the same whole and decimals; money, every sign and code before
// or after the amount, said by its name in the form the count takes; a message the webhook cut, said
// with a word that it was cut, last, in the call's language; times with seconds and zones, Unix time
// stamps, exponents with their sign and Greek letters by name; points in the language's own
// abbreviation and a percent sign written first; OCC options, dominance and MOEX futures by name.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import { LANGUAGE_CODES, type LanguageCode } from '../../src/core/speech/language-types.js';
import { speakable } from '../../src/core/speech/speakable.js';
import { AFTER_ONLY, currencyForms, WRITTEN_CURRENCIES } from '../../src/core/speech/speech-text/currencies.js';
import { THOUSANDS_MARK } from '../../src/core/speech/speech-text/number-marks.js';
import { sayRead } from '../../src/core/speech/speech-text/numbers.js';
import { SAID_SHORTENED } from '../../src/core/speech/speech-text/shortened.js';
import { sayGreek } from '../../src/core/speech/speech-text/greek.js';
import { instrumentWords, monthName } from '../../src/core/speech/speech-text/instruments.js';
import { sayDate, saySeconds, sayTime24 } from '../../src/core/speech/speech-text/times.js';
import { markedShortened, MAX_SPOKEN_CHARS, spokenAlertsNoted } from '../../src/core/speech/spoken-alerts.js';
import { spokenCall } from '../../src/core/speech/spoken-call.js';
import { callSpeech } from '../../src/core/speech/languages.js';

const runs = { numRuns: 200 };
const language = fc.constantFrom(...LANGUAGE_CODES);

/** Digits grouped by threes with a mark: 2345678 and ' ' → "2 345 678". */
const grouped = (digits: string, mark: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, mark);

/** The decimal mark a language writes. */
const decimalMark = (code: LanguageCode) => (LANGUAGES[code].localDecimalComma ? ',' : '.');

describe('numbers written the language’s own way', () => {
  const wholes = fc.integer({ min: 1000, max: 99_999_999 }).map(String);
  const fractions = fc.option(fc.stringMatching(/^\d{1,4}$/), { nil: undefined });

  it('its own marks, the platforms’ marks and no-break spaces all read to the same number', () => {
    fc.assert(
      fc.property(
        language,
        wholes,
        fractions,
        fc.constantFrom('own', 'platform', 'nbsp', 'narrow'),
        (code, whole, fraction, style) => {
          const lang = LANGUAGES[code];
          const own = THOUSANDS_MARK[code] === ' ' ? ' ' : THOUSANDS_MARK[code];
          const [group, point] = {
            own: [own, decimalMark(code)],
            platform: [',', '.'],
            nbsp: ['\u00A0', decimalMark(code)],
            narrow: ['\u202F', decimalMark(code)],
          }[style] as [string, string];
          // The platforms' 1,234 with no decimals is a decimal where ',' is the decimal mark: there, written with decimals or two groups.
          if (style === 'platform' && fraction === undefined && whole.length <= 6 && lang.localDecimalComma) return;
          const written = grouped(whole, group) + (fraction === undefined ? '' : point + fraction);
          const expected = sayRead(fraction === undefined ? { whole } : { whole, fraction }, lang);
          const said = speakable(`Kurs ${written} ok`, lang);
          expect(said, `${code} ${JSON.stringify(written)}`).toContain(expected.split(' ')[0]!);
          expect(said.replace(/\s+/g, ' '), `${code} ${JSON.stringify(written)}`).toContain(
            expected.replace(/\s+/g, ' '),
          );
        },
      ),
      runs,
    );
  });

  it('one mark and three digits after it: thousands where the language groups with the mark, a decimal elsewhere', () => {
    fc.assert(
      fc.property(
        language,
        fc.integer({ min: 1, max: 999 }),
        fc.stringMatching(/^\d{3}$/),
        fc.constantFrom('.', ','),
        (code, head, tail, mark) => {
          const lang = LANGUAGES[code];
          const decimals = mark === '.' || lang.localDecimalComma;
          if (!decimals) return; // English 1,234: thousands, as always.
          const written = `${head}${mark}${tail}`;
          const thousands = THOUSANDS_MARK[code] === mark;
          const expected = sayRead(
            thousands ? { whole: `${head}${tail}` } : { whole: String(head), fraction: tail },
            lang,
          );
          expect(speakable(`Kurs ${written} ok`, lang).replace(/\s+/g, ' '), `${code} ${written}`).toContain(
            expected.replace(/\s+/g, ' '),
          );
        },
      ),
      runs,
    );
  });

  it('a whole part of 0 is a decimal whatever the marks: 0.125 and 0,125', () => {
    for (const code of LANGUAGE_CODES) {
      const lang = LANGUAGES[code];
      const expected = sayRead({ whole: '0', fraction: '125' }, lang).replace(/\s+/g, ' ');
      expect(speakable('Kurs 0.125 ok', lang).replace(/\s+/g, ' '), code).toContain(expected);
      if (lang.localDecimalComma)
        expect(speakable('Kurs 0,125 ok', lang).replace(/\s+/g, ' '), code).toContain(expected);
    }
  });
});

describe('money: every sign and code, before or after the amount', () => {
  it('is said by its name in the call’s language, in the form the count takes, and no sign is left', () => {
    const written = fc.constantFrom(...Object.keys(WRITTEN_CURRENCIES));
    const amounts = fc.constantFrom('1', '2', '5', '21', '250', '1.5');
    const places = fc.constantFrom('before', 'before-spaced', 'after', 'after-spaced');
    fc.assert(
      fc.property(language, written, amounts, places, (code, sign, amount, place) => {
        const lang = LANGUAGES[code];
        // Where words touch (Japanese, Chinese, Korean) 円, 元, 원, 美元 … are written after the amount only.
        if (lang.words.joinsWords && AFTER_ONLY.has(sign) && place.startsWith('before')) return;
        const letters = /\p{L}$/u.test(sign) || /^\p{L}/u.test(sign);
        const money = {
          before: letters ? `${sign} ${amount}` : `${sign}${amount}`,
          'before-spaced': `${sign} ${amount}`,
          after: letters ? `${amount} ${sign}` : `${amount}${sign}`,
          'after-spaced': `${amount} ${sign}`,
        }[place];
        const alert = `Ziel ${money} ok`;
        const said = speakable(alert, lang);
        const forms = currencyForms(WRITTEN_CURRENCIES[sign]!, lang, lang.words);
        const number = amount === '1.5' ? { whole: '1', fraction: '5' } : { whole: amount };
        const form =
          number.fraction !== undefined
            ? (lang.words.fractionForm ?? 'many')
            : (lang.words.plural?.(Number(amount)) ?? (amount === '1' ? 'one' : 'many'));
        const name = forms[form] ?? forms.many;
        expect(said, `${code}: ${alert}`).toContain(` ${name}`);
        expect(said, `${code}: ${alert}`).toContain(sayRead(number, lang).split(' ')[0]!);
        expect(said, `${code}: ${alert}`).not.toMatch(/\p{Sc}/u);
      }),
      { numRuns: 400 },
    );
  });
});

describe('a message the webhook cut', () => {
  const messages = fc.constantFrom('BTC 64250.5 ', '1234567 ', 'RSI overbought on ETHUSDT 4H, ', 'x');
  it('ends with the word that it was cut, in the call’s language, however long its reading, alone or with others', () => {
    fc.assert(
      fc.property(
        language,
        messages,
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 3 }),
        (code, unit, n, count) => {
          const lang = LANGUAGES[code];
          const message =
            unit
              .repeat(Math.ceil(n / unit.length))
              .slice(0, n)
              .trim() || 'x';
          const others = Array.from({ length: count - 1 }, (_, i) => `alert ${i}`);
          const { text } = spokenAlertsNoted([markedShortened(message, true), ...others], lang);
          const word = SAID_SHORTENED[code];
          expect(text.length, `${code}: ${message.length}`).toBeLessThanOrEqual(MAX_SPOKEN_CHARS + 200);
          if (count === 1) expect(text.endsWith(` ${word}`), `${code}: ${text.slice(-60)}`).toBe(true);
          else expect(text, code).toContain(` ${word}`);
          expect(text.split(word).length - 1, code).toBe(1);
          expect(spokenAlertsNoted([message], lang).text, code).not.toContain(word);
        },
      ),
      runs,
    );
  });

  it('ringhook say shows it: a body over 500 characters, said with the word, in every language', () => {
    for (const code of LANGUAGE_CODES) {
      const speech = callSpeech({ language: code, voice: 'espeak-ng', intro: null });
      const long = spokenCall(`ETH ${'9'.repeat(600)}`, speech);
      const short = spokenCall('ETH 9', speech);
      if (!long.ok || !short.ok) throw new Error('refused');
      expect(long.phrases.message.endsWith(SAID_SHORTENED[code]), code).toBe(true);
      expect(short.phrases.message, code).not.toContain(SAID_SHORTENED[code]);
    }
  });
});

describe('times, time stamps, exponents and Greek letters', () => {
  it('a time with seconds and a zone: the time, its seconds and UTC, nothing left as written', () => {
    fc.assert(
      fc.property(
        language,
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 1, max: 59 }),
        fc.constantFrom('Z', ' UTC', ' GMT'),
        (code, h, m, sec, zone) => {
          const lang = LANGUAGES[code];
          const two = (n: number) => String(n).padStart(2, '0');
          const said = speakable(`Filled ${two(h)}:${two(m)}:${two(sec)}${zone} ok`, lang);
          const expected = `${sayTime24(h, m, lang)}${saySeconds(String(sec), lang)} ${lang.words.utc}`;
          expect(said, code).toContain(expected);
          // The seconds as written, or the zone's letters, never reach the engine (asWritten languages keep 14:05 for it).
          expect(said, code).not.toMatch(/:\d\d:|\bZ\b|GMT/);
        },
      ),
      runs,
    );
  });

  it('a Unix time stamp in ms (and in s after a word for time) is its UTC date and time', () => {
    fc.assert(
      fc.property(
        language,
        fc.integer({ min: 1_000_000_000, max: 2_100_000_000 }),
        fc.boolean(),
        (code, seconds, inMs) => {
          const lang = LANGUAGES[code];
          const at = new Date(seconds * 1000);
          const written = inMs ? `${seconds}000` : String(seconds);
          const said = speakable(`time ${written}`, lang);
          expect(said, `${code} ${written}`).toContain(sayDate(at.getUTCMonth() + 1, at.getUTCDate(), lang)!);
          expect(said, `${code} ${written}`).toContain(`${sayTime24(at.getUTCHours(), at.getUTCMinutes(), lang)}`);
          expect(said, `${code} ${written}`).toContain(lang.words.utc);
        },
      ),
      runs,
    );
  });

  it('an exponent keeps its sign; a number before a Greek letter is said, then the letter by name', () => {
    fc.assert(
      fc.property(
        language,
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom('-', '+', ''),
        fc.constantFrom('σ', 'Δ', 'β', 'α'),
        fc.constantFrom('-', '+', ''),
        (code, mantissa, exponent, expSign, letter, sign) => {
          const lang = LANGUAGES[code];
          const said = speakable(`funding ${mantissa}e${expSign}${exponent} move ${sign}3${letter}`, lang);
          const signWord = expSign === '-' ? lang.minus : expSign === '+' ? lang.plus : '';
          expect(said, code).toContain(['E', signWord, speakable(String(exponent), lang)].filter(Boolean).join(' '));
          const moveSign = sign === '-' ? `${lang.minus} ` : sign === '+' ? `${lang.plus} ` : '';
          expect(said, code).toContain(`${moveSign}${speakable('3', lang)} ${sayGreek(letter, code)}`);
        },
      ),
      runs,
    );
  });
});

describe('units as the language writes them', () => {
  it('points in any abbreviation are the language’s word in the count’s form; a percent written first is the same percent', () => {
    fc.assert(
      fc.property(
        language,
        fc.constantFrom('1', '2', '5', '22', '50', '1.5'),
        fc.constantFrom('pkt', 'Pkt', 'pts', 'pt'),
        (code, n, unit) => {
          const lang = LANGUAGES[code];
          expect(speakable(`WIG +${n} ${unit}`, lang), code).toBe(speakable(`WIG +${n} pts`, lang));
          expect(speakable(`BIST %${n} up`, lang), code).toBe(speakable(`BIST ${n}% up`, lang));
          expect(speakable(`BIST %${n} up`, lang), code).not.toMatch(/%/);
        },
      ),
      runs,
    );
  });
});

describe('instruments by name', () => {
  const two = (n: number) => String(n).padStart(2, '0');
  it('an OCC option: the root spelled, its expiry, its strike, put or call, in every language', () => {
    fc.assert(
      fc.property(
        language,
        fc.constantFrom('TSLA', 'SPY', 'AAPL', 'NVDA', 'QQQ'),
        fc.integer({ min: 24, max: 30 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
        fc.constantFrom('C', 'P'),
        fc.integer({ min: 1, max: 99_999 }),
        fc.boolean(),
        (code, root, yy, mm, dd, kind, strike, padded) => {
          const lang = LANGUAGES[code];
          const symbol = `${padded ? root.padEnd(6, ' ') : root}${two(yy)}${two(mm)}${two(dd)}${kind}${String(strike * 1000).padStart(8, '0')}`;
          const said = speakable(`${symbol} bought`, lang);
          const words = instrumentWords(code);
          expect(said, `${code} ${symbol}`).toContain(sayDate(mm, dd, lang)!);
          expect(said, `${code} ${symbol}`).toContain(
            `${speakable(String(strike), lang)} ${kind === 'P' ? words.put : words.call}`,
          );
          expect(said, `${code} ${symbol}`).not.toMatch(/\d{6}/);
        },
      ),
      runs,
    );
  });

  it('dominance, MOEX and CME futures: what they measure, the contract month and year, never a decimal', () => {
    fc.assert(
      fc.property(
        language,
        fc.constantFrom('BTC', 'ETH', 'USDT', 'SOL'),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 24, max: 29 }),
        fc.constantFrom('Si', 'RTS', 'BR', 'GD'),
        (code, coin, month, yy, root) => {
          const lang = LANGUAGES[code];
          const cme = `ES${'FGHJKMNQUVXZ'[month - 1]}${yy % 10}`;
          const said = speakable(`${coin}.D up, ${root}-${month}.${yy} up, ${cme} up`, lang);
          expect(said.split(monthName(code, month)).length - 1, `${code} ${cme}`).toBe(2);
          expect(said, code).toContain(instrumentWords(code).dominance('').trim().split(' ')[0]!.replace(/^-/, ''));
          expect(said, code).toContain(monthName(code, month));
          expect(said, code).not.toContain(`${month},${yy}`);
          expect(said, code).not.toContain(`${month}.${yy}`);
        },
      ),
      runs,
    );
  });
});
