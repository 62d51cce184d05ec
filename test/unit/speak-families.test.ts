// The kinds of #42 as families, each over generated cases in every language it applies to: a
// timeframe by its place (every count × unit × position, after money and volume words too), the
// languages' own timeframe abbreviations, durations, signed quantities, %B/%K lines, exchange
// prefixes anywhere, the indicator family × its argument forms, Japanese with the dictionary
// (every kanji word read, numbers in 万/億, 時間足 日足 週足 分足), and letters of a script the
// voice cannot read: said as a word of the call's language, and noted, never dropped unheard.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import { LANGUAGE_CODES } from '../../src/core/speech/language-types.js';
import { type JapaneseReader, speakable, speakableNoted } from '../../src/core/speech/speakable.js';
import type { Forms, TimeUnit } from '../../src/core/speech/speech-text/words.js';
import { japaneseDictionary } from '../../src/speech/japanese-reader.js';

const en = LANGUAGES.en;
const forms = (f: Forms | undefined) => (f ? [f.one, f.few, f.many, f.fraction].filter((x): x is string => !!x) : []);
const anyOf = (said: string, words: readonly string[]) => words.some((word) => said.includes(word));
const HAN = /\p{Script=Han}/u;
const runs = { numRuns: 300 };

/** What English says for a count and a timeframe unit: "daily" for 1D, else "fifteen minute". */
function englishTimeframe(n: number, unit: TimeUnit): string {
  const single = n === 1 ? en.words.single[unit] : undefined;
  return single ?? `${en.cardinal(n)} ${en.words.units[unit].one}`;
}

const minuteCounts = fc.constantFrom(1, 2, 3, 5, 10, 15, 20, 30, 45, 90, 120, 240);
const ticker = fc.constantFrom('SOLUSDT', 'GBPUSD', 'BTCUSDT', 'BINANCE:ETHUSDT.P', 'ES1!', 'AAPL', 'XAUUSD');
/** Money and volume words earlier in the sentence: they must not make a timeframe an amount. */
const amountsBefore = fc.constantFrom(
  '',
  'Volume spike on',
  'liquidated 350K',
  '350K shares',
  'Trailing stop $2M',
  'mkt cap 2B, volume up',
  'Whale bought 1.2M USDT worth',
  'OI +15%',
);
/** The places a count is a timeframe: after a pair, after in/on/for, ending its field or sentence. */
const placed = fc.constantFrom(
  (t: string, tf: string) => `${t} ${tf}`,
  (t: string, tf: string) => `${t} ${tf} |`,
  (t: string, tf: string) => `${t} ${tf}.`,
  (_: string, tf: string) => `in ${tf}`,
  (_: string, tf: string) => `on the ${tf} chart`,
  (_: string, tf: string) => `for ${tf}`,
  (t: string, tf: string) => `${t} (${tf})`,
);

describe('timeframes by their place', () => {
  it('every count × unit × place says the timeframe, whatever money or volume words come before', () => {
    const unit = fc.constantFrom(
      ['m', 'minute'],
      ['min', 'minute'],
      ['h', 'hour'],
      ['H', 'hour'],
      ['hr', 'hour'],
      ['D', 'day'],
      ['W', 'week'],
      ['S', 'second'],
    ) as fc.Arbitrary<[string, TimeUnit]>;
    fc.assert(
      fc.property(amountsBefore, ticker, minuteCounts, unit, placed, (before, t, n, [written, tf], place) => {
        const alert = `${before} ${place(t, `${n}${written}`)}`.trim();
        const said = speakable(alert, en);
        expect(said, alert).toContain(englishTimeframe(n, tf));
        const millions = (text: string) => text.split('million').length;
        expect(millions(said), alert).toBe(millions(speakable(before, en)));
        expect(said, alert).not.toMatch(/\d/);
      }),
      runs,
    );
  });

  it('M after a minute count is minutes, after a month count months; an amount word right before it keeps millions', () => {
    fc.assert(
      fc.property(amountsBefore, ticker, placed, fc.constantFrom(5, 15, 30, 45, 240), (before, t, place, n) => {
        const alert = `${before} ${place(t, `${n}M`)}`.trim();
        expect(speakable(alert, en), alert).toContain(`${en.cardinal(n)} minute`);
      }),
      runs,
    );
    fc.assert(
      fc.property(ticker, fc.constantFrom(2, 3, 6, 12), (t, n) => {
        expect(speakable(`${t} ${n}M`, en)).toContain(`${en.cardinal(n)} month`);
      }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('volume ', 'Volume: ', 'mkt cap ', 'market cap: ', 'raised $', 'liquidated $', 'OI ', 'vol='),
        fc.integer({ min: 2, max: 999 }),
        fc.constantFrom('M', 'm'),
        (word, n, m) => {
          const alert = `${word}${n}${m} on BTCUSDT`;
          expect(speakable(alert, en), alert).toMatch(/million/);
        },
      ),
      runs,
    );
  });

  it('a duration (2h30m, 1h 15m, 1d4h) is said part by part, never spelled', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 23 }),
        fc.integer({ min: 1, max: 59 }),
        fc.constantFrom('', ' '),
        (h, m, gap) => {
          const said = speakable(`closes in ${h}h${gap}${m}m`, en);
          const hours = h === 1 ? 'hour' : 'hours';
          const minutes = m === 1 ? 'minute' : 'minutes';
          expect(said).toBe(`closes in ${en.cardinal(h)} ${hours} ${en.cardinal(m)} ${minutes}`);
        },
      ),
      runs,
    );
  });

  it('in every language, a Latin timeframe after a pair is a timeframe, never millions, and never left raw', () => {
    fc.assert(
      fc.property(fc.constantFrom(...LANGUAGE_CODES), ticker, minuteCounts, (code, t, n) => {
        const lang = LANGUAGES[code];
        const said = speakable(`${t} ${n}m`, lang);
        expect(said, code).not.toContain(`${n}m`);
        const millions = forms(lang.words.magnitudes?.million);
        if (millions.length > 0) expect(anyOf(said, millions), `${code}: ${said}`).toBe(false);
      }),
      runs,
    );
  });
});

describe("each language's own timeframe abbreviations", () => {
  const own = LANGUAGE_CODES.filter((code) => LANGUAGES[code].words.ownUnits).flatMap((code) =>
    Object.entries(LANGUAGES[code].words.ownUnits!).map(([written, unit]) => ({ code, written, unit })),
  );

  it('every language with its own abbreviations has them read (Russian, German, Turkish, Japanese, Korean, Chinese …)', () => {
    expect(new Set(own.map((o) => o.code))).toEqual(
      new Set(['de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'tr', 'ru', 'ja', 'ko', 'zh']),
    );
  });

  it('every count × abbreviation after a pair is said with a word of its unit, never left as written', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...own),
        fc.integer({ min: 1, max: 240 }),
        ticker,
        ({ code, written, unit }, n, t) => {
          const lang = LANGUAGES[code];
          const alert = `${t} ${n}${written}`;
          const said = speakable(alert, lang);
          expect(said, `${code} ${alert}`).not.toContain(`${n}${written}`);
          const w = lang.words;
          const unitWords = [
            ...forms(w.units[unit]),
            ...Object.values(w.single),
            ...(w.timeframe ? [w.timeframe(n, unit) ?? ''] : []),
          ].filter(Boolean);
          expect(anyOf(said, unitWords), `${code} ${alert} → ${said}`).toBe(true);
        },
      ),
      runs,
    );
  });
});

describe('signed quantities keep their sign', () => {
  const unit = fc.constantFrom(
    ['bps', 'basisPoint'],
    ['bp', 'basisPoint'],
    ['pips', 'pip'],
    ['pts', 'point'],
    ['points', 'point'],
    ['%', 'percent'],
  ) as fc.Arbitrary<[string, 'basisPoint' | 'pip' | 'point' | 'percent']>;

  it('every sign × amount × unit, attached or spaced, in every language: the sign word first, then the unit', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LANGUAGE_CODES),
        fc.constantFrom('+', '-', '−'),
        fc.oneof(fc.integer({ min: 1, max: 500 }).map(String), fc.constantFrom('2.5', '0.75', '12.25')),
        unit,
        fc.constantFrom('', ' '),
        (code, sign, amount, [written, quantity], gap) => {
          const lang = LANGUAGES[code];
          const alert = `US02Y ${sign}${amount}${gap}${written}`;
          const said = speakable(alert, lang);
          const signWord = sign === '+' ? lang.plus : lang.minus;
          expect(said, `${code} ${alert}`).toContain(signWord);
          const unitWords =
            quantity === 'percent'
              ? [lang.percent, ...forms(lang.words.percent), lang.words.percentBefore ?? lang.percent]
              : forms(lang.words.quantities?.[quantity]);
          expect(anyOf(said, unitWords), `${code} ${alert} → ${said}`).toBe(true);
          expect(said.replace(/(?<=\p{L})-(?=\p{L})/gu, ''), `${code} ${alert}`).not.toMatch(
            /[+\-−%]|\bbps?\b|\bpts\b/,
          );
        },
      ),
      runs,
    );
  });
});

describe('%B and %K lines', () => {
  it('BB%B, %K, %D, %R: the percent said and the line spelled, in every language', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LANGUAGE_CODES),
        fc.constantFrom('BB', 'Stoch ', 'Williams ', ''),
        fc.constantFrom('B', 'K', 'D', 'R'),
        (code, name, line) => {
          const lang = LANGUAGES[code];
          const alert = `${name}%${line} at 0.95`;
          const said = speakable(alert, lang);
          expect(anyOf(said, [lang.percent, ...forms(lang.words.percent)]), `${code} ${alert} → ${said}`).toBe(true);
          expect(said).toContain(line);
          expect(said).not.toContain('%');
        },
      ),
      runs,
    );
  });
});

describe('exchange prefixes anywhere', () => {
  it('EXCHANGE:SYMBOL at the start, inside or at the end of a sentence: the symbol, "on", the exchange', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('TVC', 'NASDAQ', 'BINANCE', 'NYSE', 'OANDA', 'CME_MINI', 'COINBASE', 'FX'),
        fc.constantFrom('US10Y', 'US02Y', 'AAPL', 'BTCUSDT', 'EURUSD', 'DXY', 'ES1!', 'NQ1!'),
        fc.constantFrom(
          (p: string) => `${p} yield up`,
          (p: string) => `Alert: ${p} crossed 4.5`,
          (p: string) => `yield on ${p}`,
          (p: string) => `watch ${p}, then act`,
        ),
        (exchange, symbol, sentence) => {
          const alert = sentence(`${exchange}:${symbol}`);
          const said = speakable(alert, en);
          expect(said, alert).not.toContain(`${exchange}:`);
          expect(said, alert).not.toContain('!');
          expect(said, alert).not.toContain(symbol);
          expect(said, alert).toContain(' on ');
        },
      ),
      runs,
    );
  });
});

describe('the indicator family × its argument forms', () => {
  const NAMES = ['SMA', 'EMA', 'WMA', 'VWAP', 'RSI', 'MACD', 'ATR', 'ADX', 'OBV', 'BB', 'DMI', 'CCI', 'MFI', 'SAR'];
  const spelled = (name: string) => name.split('').join(' ');
  const cased = fc.constantFrom(
    (n: string) => n,
    (n: string) => n.toLowerCase(),
    (n: string) => n[0] + n.slice(1).toLowerCase(),
  );
  type Written = { written: string; args: number[]; word?: string };
  const form = fc.constantFrom<Array<(name: string, a: number, b: number) => Written>>(
    (name: string, a: number) => ({ written: `${name}(${a})`, args: [a] }),
    (name: string, a: number) => ({ written: `${name}(close, ${a})`, args: [a], word: 'close' }),
    (name: string, a: number, b: number) => ({ written: `${name}(${a}, ${b})`, args: [a, b] }),
    (name: string, a: number, b: number) => ({ written: `${name}(${a},${b},9)`, args: [a, b, 9] }),
    (name: string, a: number) => ({ written: `${name} ${a}`, args: [a] }),
    (name: string) => ({ written: name, args: [] as number[] }),
  );

  it('every name in any case × argument form: the name spelled, then each argument; never a made-up word', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        cased,
        form,
        fc.integer({ min: 2, max: 200 }),
        fc.integer({ min: 2, max: 200 }),
        (name, caseOf, formOf, a, b) => {
          const { written, args, word } = formOf(caseOf(name), a, b);
          // "bb" and "sar" alone in small letters may be words of their own: read as names before an argument only.
          if (caseOf(name) !== name && args.length === 0 && (name === 'BB' || name === 'SAR')) return;
          const alert = `${written} crossed up`;
          const said = speakable(alert, en);
          expect(said, alert).toContain(spelled(name));
          for (const arg of args) expect(said, alert).toContain(en.cardinal(arg));
          if (word) expect(said, alert).toContain(word);
          expect(said, alert).not.toMatch(/[()]/);
          expect(said.toLowerCase(), alert).not.toMatch(new RegExp(`\\b${name.toLowerCase()}\\b`));
        },
      ),
      runs,
    );
  });
});

describe('Japanese with the dictionary', () => {
  let readJapanese: JapaneseReader | undefined;
  beforeAll(async () => {
    readJapanese = await japaneseDictionary({ setting: 'auto', logger: { info: () => {}, warn: () => {} } }).load();
    expect(readJapanese, 'kuromoji is a dependency: npm ci installs it').toBeDefined();
  });
  const ja = LANGUAGES.ja;
  const kanjiWords = fc.constantFrom(
    '日経平均',
    '突破',
    '上抜け',
    '下落',
    '急騰',
    '出来高',
    '損切り',
    '利確',
    '高値更新',
    '移動平均線',
    '支持線',
    '東証',
    '半導体',
    '決算発表',
    '為替介入',
    '金利',
    '原油',
    '銘柄',
    '上場',
    '薔薇',
  );
  const chart = fc.constantFrom(
    { written: '1時間足', said: 'いちじかんあし' },
    { written: '4時間足', said: 'よじかんあし' },
    { written: '5分足', said: 'ごふんあし' },
    { written: '15分足', said: 'じゅうごふんあし' },
    { written: '日足', said: 'ひあし' },
    { written: '週足', said: 'しゅうあし' },
    { written: '月足', said: 'つきあし' },
  );

  it('any alert of kanji words, kana, numbers and chart timeframes: every kanji read (none left, nothing noted)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(kanjiWords, fc.constantFrom('ビットコイン', 'が', 'を', 'USDJPY', '150.25', '38500')), {
          minLength: 1,
          maxLength: 6,
        }),
        chart,
        (words, tf) => {
          const alert = `${words.join(' ')} ${tf.written}`;
          const { text, notes } = speakableNoted(alert, ja, { readJapanese });
          expect(text, alert).not.toMatch(HAN);
          expect(notes, alert).toEqual([]);
          expect(text.endsWith(tf.said), `${alert} → ${text}`).toBe(true);
        },
      ),
      runs,
    );
  });

  it('numbers counted in 万 and 億', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10_000, max: 999_999_999_999 }), (n) => {
        const said = speakable(`日経平均 ${n}`, ja, { readJapanese });
        expect(said).toMatch(n >= 100_000_000 ? /おく/ : /まん/);
        expect(said).not.toMatch(/\d|\p{Script=Han}/u);
      }),
      runs,
    );
  });

  it('a count without the chart word is a period (1ヶ月 いっかげつ), with it the chart (1時間足 いちじかんあし)', () => {
    expect(speakable('1ヶ月 1週間 1時間足 1分足', ja, { readJapanese })).toBe(
      'いっかげつ いっしゅうかん いちじかんあし いっぷんあし',
    );
  });

  it('without the dictionary, kanji outside the market table are said かんじ and noted, never dropped', () => {
    const { text, notes } = speakableNoted('薔薇 突破 1時間足', ja);
    expect(text).toBe('かんじ とっぱ いちじかんあし');
    expect(notes).toEqual(['kanji said as "かんじ" (the Japanese dictionary was not loaded): 薔薇']);
  });
});

describe('a script the voice cannot read: said, and noted', () => {
  const foreign = fc.constantFrom(
    { script: 'Hangul', text: '돌파' },
    { script: 'Cyrillic', text: 'Пробой уровня' },
    { script: 'Han', text: '突破' },
    { script: 'Arabic', text: 'اختراق' },
    { script: 'Greek', text: 'διάσπαση' },
    { script: 'Hebrew', text: 'פריצה' },
    { script: 'Thai', text: 'ทะลุ' },
    { script: 'Devanagari', text: 'ब्रेकआउट' },
  );

  it('in every language: no letter of an unread script is left for the engine to drop; the history notes it', () => {
    fc.assert(
      fc.property(fc.constantFrom(...LANGUAGE_CODES), foreign, (code, { script, text }) => {
        const lang = LANGUAGES[code];
        const reads = lang.words.scripts!.reads;
        const alert = `BTC ${text} 64000`;
        const spoken = speakableNoted(alert, lang);
        if (reads.includes(script)) return;
        expect(spoken.text, `${code} ${alert}`).not.toMatch(new RegExp(`\\p{Script=${script}}`, 'u'));
        expect(spoken.text).toContain(lang.words.scripts!.otherScript);
        expect(spoken.notes.join(' '), `${code} ${alert}`).toContain(text);
      }),
      runs,
    );
  });
});
