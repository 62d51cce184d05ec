// The speech normalizer: every rule with its cases, the English number words, and the sentence
// each alert of the fixture file becomes.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { english, MAX_CARDINAL, type NumberLanguage } from '../../src/core/speech/number-words.js';
import { parseAlertBody } from '../../src/core/webhook/payload.js';
import { CAPS_WORDS, saySymbol, sayTime24, speakable } from '../../src/core/speech/speakable.js';

const cases = (rows: Array<[string, string]>) =>
  it.each(rows)('%j → %j', (input, spoken) => expect(speakable(input)).toBe(spoken));

describe('English number words', () => {
  it.each([
    [0, 'zero'],
    [7, 'seven'],
    [13, 'thirteen'],
    [20, 'twenty'],
    [21, 'twenty-one'],
    [100, 'one hundred'],
    [187, 'one hundred eighty-seven'],
    [1000, 'one thousand'],
    [1234, 'one thousand two hundred thirty-four'],
    [100_000, 'one hundred thousand'],
    [58_213_400, 'fifty-eight million two hundred thirteen thousand four hundred'],
    [2_000_000_000, 'two billion'],
    [3_000_000_000_001, 'three trillion one'],
    [
      MAX_CARDINAL,
      'nine hundred ninety-nine trillion nine hundred ninety-nine billion nine hundred ninety-nine million nine hundred ninety-nine thousand nine hundred ninety-nine',
    ],
  ])('%d → %s', (n, words) => expect(english.cardinal(n)).toBe(words));

  it('refuses what it cannot say', () => {
    expect(() => english.cardinal(MAX_CARDINAL + 1)).toThrow(RangeError);
    expect(() => english.cardinal(-1)).toThrow(RangeError);
    expect(() => english.cardinal(1.5)).toThrow(RangeError);
  });
});

describe('exchange prefixes', () => {
  cases([
    ['NASDAQ:AAPL', 'A A P L on Nasdaq'],
    ['NYSE:F', 'F on N Y S E'],
    ['BINANCE:BTCUSDT', 'B T C, U S D T on Binance'],
    ['COINBASE:ETHUSD', 'E T H, U S D on Coinbase'],
    ['BINANCE:BTCUSDT.P', 'B T C, U S D T, perpetual on Binance'],
    ['CME_MINI:ES1!', 'E S, front month on C M E mini'],
    ['FX_IDC:EURUSD', 'E U R, U S D on F X I D C'],
    ['TVC:DXY', 'D X Y on T V C'],
    // Not an exchange prefix: a label and a number, a label and a word.
    ['RSI:70', 'R S I: seventy'],
    ['NOTE:BUY', 'note: buy'],
  ]);
});

describe('tickers and pairs', () => {
  cases([
    ['AAPL', 'A A P L'],
    ['F', 'F'],
    ['GOOGL up', 'G O O G L up'],
    ['BTCUSDT', 'B T C, U S D T'],
    ['ETHBTC', 'E T H, B T C'],
    ['EURUSD', 'E U R, U S D'],
    ['GBPJPY', 'G B P, J P Y'],
    ['BNBBUSD', 'B N B, B U S D'],
    ['SOLUSDC', 'S O L, U S D C'],
    ['BTC/USD', 'B T C, U S D'],
    ['ETH-USDT', 'E T H, U S D T'],
    ['$AAPL', 'A A P L'],
    ['BRK.B', 'B R K class B'],
    ['ES1! long entry', 'E S, front month long entry'],
    ['NQ2!', 'N Q, second month'],
    ['6E1!', 'six E, front month'],
    ['US30 NAS100', 'U S thirty N A S one hundred'],
    ['USDT', 'U S D T'],
    // Too long for a ticker and not a pair: left to the engine.
    ['BREAKOUT', 'BREAKOUT'],
    // A quote currency with a single letter before it is a ticker, not a pair.
    ['SETH', 'S E T H'],
    // Lower case and mixed case are words.
    ['Apple and iPhone', 'Apple and iPhone'],
  ]);
});

describe('all-caps words and indicators', () => {
  cases([
    ['BUY SELL LONG SHORT ALERT', 'buy sell long short alert'],
    ['UP DOWN STOP', 'up down stop'],
    ['TP SL', 'take profit stop loss'],
    ['TP1 hit, SL2 moved', 'take profit one hit, stop loss two moved'],
    ['RSI MACD EMA SMA VWAP ATR', 'R S I M A C D E M A S M A V W A P A T R'],
    ['STOCH oversold', 'stochastic oversold'],
    ['EMA200 reclaimed', 'E M A two hundred reclaimed'],
    ['EMA9 x EMA21', 'E M A nine crosses E M A twenty-one'],
    ['SMA50 X SMA200', 'S M A fifty crosses S M A two hundred'],
    ['MACD × RSI', 'M A C D crosses R S I'],
    // "x" between other tokens is left alone.
    ['AAPL x TSLA', 'A A P L x T S L A'],
  ]);

  it('every listed word is a lone all-caps token said as given', () => {
    for (const [word, said] of Object.entries(CAPS_WORDS)) {
      expect(word).toMatch(/^[A-Z]{1,6}$/);
      expect(saySymbol(word)).toBe(said);
    }
  });
});

describe('numbers', () => {
  cases([
    ['187.20', 'one hundred eighty-seven point two zero'],
    ['187.2', 'one hundred eighty-seven point two'],
    ['1,234.5', 'one thousand two hundred thirty-four point five'],
    ['100000', 'one hundred thousand'],
    ['1,000,000', 'one million'],
    ['2500000000000', 'two trillion five hundred billion'],
    ['-3.5', 'minus three point five'],
    ['−3.5', 'minus three point five'],
    ['+3.2%', 'plus three point two percent'],
    ['down 12%', 'down twelve percent'],
    ['0.5', 'zero point five'],
    ['.5', 'point five'],
    ['0.001', 'zero point zero zero one'],
    ['0.00001234', 'zero point, four zeros, one two three four'],
    ['0.0000', 'zero point, four zeros'],
    ['007', 'zero zero seven'],
    [
      '1234567890123456789',
      'one two three four five six seven eight nine zero one two three four five six seven eight nine',
    ],
    ['100k', 'one hundred thousand'],
    ['2.5K', 'two point five thousand'],
    ['10x leverage', 'ten times leverage'],
    ['$100', 'one hundred dollars'],
    ['-$5', 'minus five dollars'],
    ['$1', 'one dollar'],
    // A narrow or plain no-break space groups thousands; an ordinary space separates two numbers.
    ['2\u202F650 $', 'two thousand six hundred fifty dollars'],
    ['2\u00A0650', 'two thousand six hundred fifty'],
    ['2 650', 'two six hundred fifty'],
    ['€5.5', 'five point five euros'],
    ['(42)', '(forty-two)'],
    ['ended at 42.', 'ended at forty-two.'],
    // An ambiguous comma is not a thousands separator.
    ['1,5', 'one, five'],
    // Digits inside words, ordinals and units are the engine's.
    ['3rd v2 100kg', '3rd v2 100kg'],
  ]);
});

describe('timeframes', () => {
  cases([
    ['15m', 'fifteen minute'],
    ['15min', 'fifteen minute'],
    ['4H', 'four hour'],
    ['4h', 'four hour'],
    ['1D', 'daily'],
    ['2D', 'two day'],
    ['1W', 'weekly'],
    ['1M', 'monthly'],
    ['3M', 'three month'],
    ['30S', 'thirty second'],
    ['on the 1h chart', 'on the one hour chart'],
    ['on the 1D chart', 'on the daily chart'],
  ]);
});

describe('symbols', () => {
  cases([
    ['price > 100', 'price above one hundred'],
    ['price < 100', 'price below one hundred'],
    ['price >= 100', 'price at or above one hundred'],
    ['price ≥ 100', 'price at or above one hundred'],
    ['price <= 100', 'price at or below one hundred'],
    ['price ≤ 100', 'price at or below one hundred'],
    ['100 -> 110', 'one hundred to one hundred ten'],
    ['100 → 110', 'one hundred to one hundred ten'],
    ['filled @ 187.2', 'filled at one hundred eighty-seven point two'],
    ['stop & reverse', 'stop and reverse'],
    ['EURUSD ↑', 'E U R, U S D up'],
    ['EURUSD ↓', 'E U R, U S D down'],
  ]);
});

describe('emoji, URLs and times', () => {
  cases([
    ['AAPL 🚀🚀 to the moon 🌕', 'A A P L to the moon'],
    ['thumbs 👍🏽 up', 'thumbs up'],
    ['flag 🇺🇸 and family 👨‍👩‍👧', 'flag and family'],
    ['chart https://www.tradingview.com/chart/abc/?symbol=NASDAQ:AAPL here', 'chart here'],
    ['see www.example.com/x.', 'see'],
    ['at 2026-11-22T14:00:00Z', 'at fourteen hundred U T C'],
    ['at 2026-11-22T14:30:00.000Z', 'at fourteen thirty U T C'],
    ['at 2026-11-22T16:30:00+02:00', 'at fourteen thirty U T C'],
    ['at 2026-11-22T09:05:00-05:00', 'at fourteen zero five U T C'],
    ['at 2026-11-22T01:00:00+0200', 'at twenty-three hundred U T C'],
    ['at 2026-11-22T00:00:00Z', 'at zero zero hundred U T C'],
    ['at 2026-11-22T09:05:59Z', 'at zero nine zero five U T C'],
    ['at 14:00 UTC', 'at fourteen hundred U T C'],
    ['opens 9:30', 'opens nine thirty'],
    ['opens 9:00', "opens nine o'clock"],
    ['opens 9:05', 'opens nine oh five'],
  ]);

  it('says a 24-hour time the way a trading desk does', () => {
    expect(sayTime24(14, 0)).toBe('fourteen hundred');
    expect(sayTime24(23, 59)).toBe('twenty-three fifty-nine');
    expect(sayTime24(7, 30)).toBe('zero seven thirty');
  });
});

describe('anything else', () => {
  cases([
    ['  AAPL   broke\n\tout  ', 'A A P L broke out'],
    ["Prix de l'or au-dessus", "Prix de l'or au-dessus"],
    ['hello, world!', 'hello, world!'],
  ]);

  it('falls back to the original text rather than say nothing', () => {
    expect(speakable('🚀🚀')).toBe('🚀🚀');
    expect(speakable(' https://example.com ')).toBe('https://example.com');
  });

  it('is never empty for a non-empty message, and always the same for the same message', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80, unit: 'grapheme' }), (text) => {
        const once = speakable(text);
        expect(once).toBe(speakable(text));
        if (text.trim() !== '') expect(once.trim()).not.toBe('');
      }),
    );
  });

  it('takes its number words and separators from the language it is given', () => {
    const digitsOnly: NumberLanguage = {
      ...english,
      decimalSeparator: ',',
      groupSeparator: '.',
      cardinal: (n) => `[${n}]`,
      point: 'komma',
    };
    expect(speakable('1.234,5 and 3,25', digitsOnly)).toBe('[1234] komma five and [3] komma two five');
  });
});

describe('the fixture alerts', () => {
  const fixtures = readFileSync(new URL('../fixtures/tradingview-alerts.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { content_type: string; body: string; note: string });

  // The spoken sentence of each alert, in file order; null where the alert is refused (nothing is spoken).
  const expected: Array<string | null> = [
    'A A P L broke resistance at one hundred eighty-seven point two with volume fifty-eight million two hundred thirteen thousand four hundred',
    'B T C, U S D crossed one hundred thousand on the one hour chart',
    'N V D A sell signal at one hundred thirty-one point zero seven',
    'E S, front month long entry',
    'E T H alert from a sender that labels J S O N as text',
    'E U R, U S D one point zero eight four two up crossed the two hundred S M A',
    // English number words until a language supplies its own.
    "Prix de l'or au-dessus de two thousand six hundred fifty dollars — clôture fifteen min",
    'x'.repeat(500),
    null,
    'T S L A alert',
    null,
    null,
  ];

  it('has one expectation per fixture', () => expect(expected).toHaveLength(fixtures.length));

  it.each(fixtures.map((f, i) => [i + 1, f.note, f] as const))('alert %d (%s)', (i, _note, fixture) => {
    const result = parseAlertBody(new TextEncoder().encode(fixture.body), fixture.content_type);
    expect(result.ok ? speakable(result.alert.message) : null).toBe(expected[i - 1]);
  });
});
