// The families of #57's second round over generated cases in every language each concerns: each
// language's own magnitudes (2,3 Mio. €, 1,5 mld zł, 12,5 млн, 3 mil) with the currency after them
// said; markets named by their city in the call's language (7203.T "in Tokio", "w Tokio"); a
// currency code after a slash read as a pair's quote, never an amount's currency (USD/TRY 34,25);
// French elisions left whole (L'or); an hour word written after a time said once (09:00 Uhr);
// strikes with C or P as call and put; futures by any two-letter root with a month code; Korean
// hours in native numbers and a Chinese year digit by digit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import { LANGUAGE_CODES, type LanguageCode } from '../../src/core/speech/language-types.js';
import { koreanNativeCount } from '../../src/core/speech/native-numbers.js';
import { speakable } from '../../src/core/speech/speakable.js';
import { currencyForms } from '../../src/core/speech/speech-text/currencies.js';
import { instrumentWords, marketPhrase, monthName, perUnit } from '../../src/core/speech/speech-text/instruments.js';
import { LOCAL_MAGNITUDES } from '../../src/core/speech/speech-text/suffixes.js';
import { QUOTE_CURRENCIES } from '../../src/core/speech/speech-text/vocabulary.js';
import { spell } from '../../src/core/speech/speech-text/numbers.js';
import { harmonize } from '../../src/core/speech/speech-text/turkish-suffixes.js';
import { russianAccusative } from '../../src/core/speech/speech-text/russian-case.js';

const runs = { numRuns: 200 };
const language = fc.constantFrom(...LANGUAGE_CODES);
const europe = fc.constantFrom(...LANGUAGE_CODES.filter((c) => LOCAL_MAGNITUDES[c] !== undefined));

describe('each language’s own magnitudes', () => {
  // A lone M written against the count (1M) is a timeframe's or a magnitude's by its place (speak-families.test.ts); spaced, it is millions.
  it('are said in the language’s word for the magnitude, and a currency after them is said, never dropped', () => {
    fc.assert(
      fc.property(
        europe,
        fc.integer({ min: 1, max: 999 }),
        fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
        fc.boolean(),
        fc.boolean(),
        (code, whole, decimal, spaced, withEuro) => {
          const lang = LANGUAGES[code];
          const own = LOCAL_MAGNITUDES[code]!;
          for (const [written, magnitude] of Object.entries(own)) {
            const point = lang.localDecimalComma ? ',' : '.';
            const number = decimal === undefined ? String(whole) : `${whole}${point}${decimal}`;
            const alert = `Ziel ${number}${spaced || written === 'M' || /^\p{L}{2}/u.test(written) ? ' ' : ''}${written}${withEuro ? ' €' : ''} ok`;
            const said = speakable(alert, lang);
            const forms = lang.words.magnitudes?.[magnitude];
            if (forms) {
              const words = Object.values(forms);
              expect(
                words.some((word) => said.includes(word)),
                `${code}: ${alert} → ${said}`,
              ).toBe(true);
            }
            if (withEuro) {
              const euro = Object.values(currencyForms('€', lang, lang.words));
              expect(
                euro.some((name) => said.includes(name)),
                `${code}: ${alert} → ${said}`,
              ).toBe(true);
            }
            expect(said, `${code}: ${alert}`).not.toMatch(/€/);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('markets named by their city, in the call’s language', () => {
  const suffixes = fc.constantFrom(...'TO L F PA AS BR MI MC LS VI ST OL CO HE IR HK T SS SZ WA IS ME'.split(' '));
  it('a ticker with a market’s suffix is spelled, then its city with the language’s preposition or ending', () => {
    fc.assert(
      fc.property(language, suffixes, fc.constantFrom('SHOP', 'VOD', 'ENI', '7203', '0700'), (code, suffix, base) => {
        const phrase = marketPhrase(code, suffix);
        if (phrase === undefined) return;
        const said = speakable(`Alert ${base}.${suffix} up`, LANGUAGES[code]);
        expect(said, `${code} ${base}.${suffix}`).toContain(`${spell(base, LANGUAGES[code])} ${phrase}`);
      }),
      runs,
    );
  });

  it('every European language and Russian names every city market', () => {
    for (const code of ['de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'tr', 'ru'] as LanguageCode[])
      for (const suffix of 'TO L F PA MI MC HK T SS WA IS ME'.split(' '))
        expect(marketPhrase(code, suffix), `${code} ${suffix}`).toMatch(/\p{L}{2}/u);
  });
});

describe('a currency code after a slash is a pair’s quote', () => {
  it('is spelled as the pair’s second half, and the number after it keeps no currency', () => {
    fc.assert(
      fc.property(
        language,
        fc.constantFrom('USD', 'EUR', 'BTC'),
        fc.constantFrom(...QUOTE_CURRENCIES.filter((q) => /^[A-Z]{3}$/.test(q))),
        fc.integer({ min: 2, max: 999 }),
        (code, base, quote, price) => {
          if (base === quote) return;
          const lang = LANGUAGES[code];
          const said = speakable(`${base}/${quote} ${price} ok`, lang);
          expect(said, `${code}: ${base}/${quote} ${price}`).toContain(`${spell(base, lang)}, ${spell(quote, lang)}`);
        },
      ),
      runs,
    );
  });
});

describe('French elisions, hour words and 14h30', () => {
  it("a letter before an apostrophe is part of its word (L'or, D'après), never spelled", () => {
    fc.assert(
      fc.property(
        fc.constantFrom('L', 'D', 'J', 'N', 'S', 'C'),
        fc.constantFrom('or', 'après', 'euro', 'indice'),
        (l, word) => {
          expect(speakable(`${l}'${word} monte`, LANGUAGES.fr)).toContain(`${l}'${word}`);
        },
      ),
      runs,
    );
  });

  it('an hour word written after a time is said once', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(['de', 'Uhr'], ['fr', 'h'], ['fr', 'heures'], ['nl', 'uur']),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        ([code, word], h, m) => {
          const said = speakable(
            `Start ${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')} ${word} ok`,
            LANGUAGES[code as LanguageCode],
          );
          const hourWord = { de: 'Uhr', fr: 'heures', nl: 'uur' }[code as 'de' | 'fr' | 'nl'];
          expect(said.split(hourWord).length - 1, said).toBe(1);
        },
      ),
      runs,
    );
  });

  it('French 14h30 is the time, said as the language says a 24-hour time', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), (h, m) => {
        const mm = String(m).padStart(2, '0');
        expect(speakable(`à ${h}h${mm} ok`, LANGUAGES.fr)).toContain(m === 0 ? `${h} heures` : `${h} heures ${m}`);
      }),
      runs,
    );
  });
});

describe('options and futures written short', () => {
  it('a strike with C or P after a ticker is a call or a put, in every language', () => {
    fc.assert(
      fc.property(
        language,
        fc.constantFrom('SPY', 'AAPL', 'QQQ', 'SPX'),
        fc.integer({ min: 1, max: 9999 }),
        fc.constantFrom('C', 'P'),
        (code, ticker, strike, side) => {
          const words = instrumentWords(code);
          const said = speakable(`${ticker} ${strike}${side} bought`, LANGUAGES[code]);
          expect(said, `${code}: ${ticker} ${strike}${side}`).toContain(side === 'C' ? words.call : words.put);
        },
      ),
      runs,
    );
  });

  it('any two-letter root with a month code and a year of the 2020s is that contract, never spelled', () => {
    fc.assert(
      fc.property(
        language,
        fc.constantFrom('LE', 'HE', 'ZL', 'KE', 'GF', 'DX'),
        fc.integer({ min: 0, max: 11 }),
        fc.integer({ min: 4, max: 9 }),
        (code, root, month, year) => {
          const said = speakable(`${root}${'FGHJKMNQUVXZ'[month]}${year} up`, LANGUAGES[code]);
          expect(said, `${code} ${root}`).toContain(monthName(code, month + 1));
        },
      ),
      runs,
    );
  });

  it('an index of two or three letters and a number is not taken for a contract (WIG20, WIG30)', () => {
    for (const code of LANGUAGE_CODES) {
      expect(speakable('WIG20 up', LANGUAGES[code])).not.toContain(monthName(code, 2));
      expect(speakable('WIG30 up', LANGUAGES[code])).not.toContain(monthName(code, 2));
    }
  });
});

describe('Korean hours and Chinese years', () => {
  it('Korean counts hours in its native numbers, written or on a chart', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 24 }), fc.constantFrom('시간봉', '시간', 'H'), (n, unit) => {
        const said = speakable(`BTC ${n}${unit} 돌파`, LANGUAGES.ko);
        expect(said).toContain(`${koreanNativeCount(n)} 시간`);
        expect(said).not.toMatch(new RegExp(`(?<!\\d)${n} 시간`));
      }),
      runs,
    );
  });

  it('a Chinese year (an option’s expiry, a time stamp) is said digit by digit, then 年', () => {
    fc.assert(
      fc.property(fc.integer({ min: 25, max: 29 }), fc.integer({ min: 1, max: 12 }), (yy, mm) => {
        const expiry = `${yy}${String(mm).padStart(2, '0')}17`;
        const said = speakable(`TSLA${expiry}C00200000`, LANGUAGES.zh);
        expect(said).toContain(`二零二${'零一二三四五六七八九'[yy % 10]}年`);
      }),
      runs,
    );
  });
});

describe('ranges, triangles and prices per unit', () => {
  it('a dash right after a number or a percent is a range, never a minus', () => {
    fc.assert(
      fc.property(
        language,
        fc.integer({ min: 1, max: 99 }),
        fc.integer({ min: 1, max: 99 }),
        fc.boolean(),
        (code, a, b, pct) => {
          const lang = LANGUAGES[code];
          const said = speakable(`Spanne ${a}${pct ? '%' : ''}-${b}% ok`, lang);
          expect(said, `${code}: ${a}-${b}`).toContain(lang.words.symbols.to);
          expect(said, `${code}: ${a}-${b}`).not.toContain(` ${lang.minus} `);
        },
      ),
      runs,
    );
  });

  it('▲ and ▼ are said as up and down', () => {
    for (const code of LANGUAGE_CODES) {
      const lang = LANGUAGES[code];
      expect(speakable('BTC ▲0.4', lang)).toContain(lang.words.symbols.up);
      expect(speakable('BTC ▼0.4', lang)).toContain(lang.words.symbols.down);
    }
  });

  it('$/oz and USD/bbl: the currency, then the unit in the language, never a pause or "slash"', () => {
    fc.assert(
      fc.property(
        language,
        fc.constantFrom('$', ' USD', ' €'),
        fc.constantFrom('oz', 'bbl', 'lb'),
        (code, currency, unit) => {
          const lang = LANGUAGES[code];
          const said = speakable(`Gold 2350${currency}/${unit} ok`, lang);
          const sign = currency.trim() === '€' ? '€' : '$';
          const names = Object.values(currencyForms(sign, lang, lang.words));
          expect(
            names.some((name) => said.includes(name)),
            `${code}: ${said}`,
          ).toBe(true);
          expect(said, `${code}`).toContain(perUnit(code, unit)!);
        },
      ),
      runs,
    );
  });
});

describe('words in capitals and Korean words that start like a unit', () => {
  it('a pair in a sentence in capitals stays a pair, however long; in Japanese, Chinese and Korean no sentence is "in capitals"', () => {
    fc.assert(
      fc.property(
        language,
        fc.constantFrom('BTCUSDT', 'ETHUSDT', 'SOLUSDC', 'XRPUSDT'),
        fc.constantFrom('BREAKS OUT', 'RSI 70', 'ドル 4時間足 RSI', '突破 RSI', '돌파 RSI'),
        (code, pair, rest) => {
          const lang = LANGUAGES[code];
          const said = speakable(`${pair} ${rest} 70000`, lang);
          expect(said, `${code}: ${pair} ${rest}`).not.toContain(pair.toLowerCase());
        },
      ),
      runs,
    );
  });

  it('초과 (exceeds), 분석 (analysis), 분기 (quarter) are words, never seconds or minutes', () => {
    for (const word of ['초과', '분석', '분기', '시간외']) {
      const said = speakable(`RSI 70 ${word}`, LANGUAGES.ko);
      expect(said).toContain(word);
    }
    expect(speakable('30초 후', LANGUAGES.ko)).toContain('30 초');
  });
});

describe('Turkish endings after a sign, a code or a number', () => {
  it('join the currency’s word in its vowel harmony, and stay on digits with no pause', () => {
    const cases: Array<[string, string]> = [
      ["100.000 $'ı aştı", 'doları aştı'],
      ["285,50 TL'yi kırdı", 'lirayı kırdı'],
      ["2.350 $'dan işlem", 'dolardan işlem'],
      ["50 €'ya yükseldi", 'euroya yükseldi'],
      ["RSI 70'in üzerinde", "70'in üzerinde"],
      ["saat 14:30'da", "14:30'da"],
    ];
    for (const [alert, said] of cases) expect(speakable(alert, LANGUAGES.tr), alert).toContain(said);
  });

  it('an ending takes the harmony of the word it follows, whatever the harmony it was written in', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(['dolar', 'a'], ['lira', 'a'], ['avro', 'o'], ['euro', 'o'], ['rupi', 'i'], ['ruble', 'e']),
        fc.constantFrom('ı', 'i', 'u', 'ü', 'dan', 'den', 'a', 'e', 'yı', 'yi'),
        ([word, vowel], ending) => {
          const joined = harmonize(word, ending);
          const four = { a: 'ı', o: 'u', i: 'i', e: 'i' }[vowel]!;
          const two = { a: 'a', o: 'a', i: 'e', e: 'e' }[vowel]!;
          expect(joined).toBe(ending.replace(/[ıiuü]/g, four).replace(/[ae]/g, two));
        },
      ),
      runs,
    );
  });
});

describe('dates with dots, hours written apart, times before a colon', () => {
  const dotted = fc.constantFrom<LanguageCode>('de', 'pl', 'ru', 'tr', 'nl', 'fr', 'es', 'it', 'pt');
  it('14.06. (with its last dot), or 26.07 after a word naming a date, is the date; a price with a sign or percent never is', () => {
    fc.assert(
      fc.property(dotted, fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1, max: 12 }), (code, d, m) => {
        const lang = LANGUAGES[code];
        const dm = `${d}.${String(m).padStart(2, '0')}`;
        const date = lang.words.date(m, d);
        expect(speakable(`Termin ${dm}. ok`, lang), `${code} ${dm}.`).toContain(date);
        const word = {
          de: 'Sitzung',
          pl: 'dnia',
          ru: 'заседание',
          tr: 'tarih',
          nl: 'datum',
          fr: 'le',
          es: 'el',
          it: 'il',
          pt: 'dia',
        }[code as 'de'];
        expect(speakable(`${word} ${dm} ok`, lang), `${code} ${word} ${dm}`).toContain(date);
        expect(speakable(`${word} ${dm}% ok`, lang), `${code} ${dm}%`).not.toContain(date);
      }),
      runs,
    );
  });

  it('8 h is a count of hours; 15 h 30 a French time; a time before a colon is still a time', () => {
    for (const code of ['fr', 'es', 'it', 'de'] as LanguageCode[]) {
      const lang = LANGUAGES[code];
      expect(speakable('cada 8 h ok', lang)).not.toMatch(/\b8 h\b/);
    }
    expect(speakable('à 15 h 30 ok', LANGUAGES.fr)).toContain('15 heures 30');
    expect(speakable('a las 15:45: futuro', LANGUAGES.es)).not.toContain('15: 45');
    expect(speakable('at 15:45: futures', LANGUAGES.en)).toContain('fifteen forty-five');
  });

  it('a ticker of letters and digits (SX5E) is spelled; B3 and Warsaw futures by their month and year', () => {
    for (const code of LANGUAGE_CODES) {
      const lang = LANGUAGES[code];
      expect(speakable('Index SX5E ok', lang)).toContain(spell('SX5E', lang));
      expect(speakable('Futuro WINQ24 ok', lang)).toContain(monthName(code, 8));
      expect(speakable('Futures FW20U24 ok', lang)).toContain(monthName(code, 9));
    }
  });
});

describe('English desk shorthand and hyphens left by a said word', () => {
  it('est and exp after a figure are "estimate" and "expected"; exp before a date "expiry"; 10-year "ten year"', () => {
    const en = LANGUAGES.en;
    expect(speakable('CPI 3.4% vs 3.5% est', en)).toContain('three point five percent estimate');
    expect(speakable('NFP +272K vs +180K exp', en)).toContain('thousand expected');
    expect(speakable('calls, exp 2024-06-21', en)).toContain('expiry June twenty-first');
    expect(speakable('$TSLA 250C 6/21 exp', en)).toContain('June twenty-first expiry');
    expect(speakable('10-year yield 4.28%', en)).toContain('ten year yield');
    expect(speakable('DAX-Future 18.400', LANGUAGES.de)).toContain('D A X Future');
  });
});

describe('Russian numbers in words after на, за, в', () => {
  it('take the accusative where it differs (одну целую, одну десятую); elsewhere the nominative stays', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom('на', 'за'),
        (whole, tenth, prep) => {
          const said = speakable(`вырос ${prep} ${whole},${tenth}% ok`, LANGUAGES.ru);
          expect(said).not.toMatch(/ одна | целая | десятая /);
          if (whole % 10 === 1 && whole % 100 !== 11) expect(said).toContain('одну целую');
          if (tenth === 1) expect(said).toContain('одну десятую');
          expect(speakable(`BTC ${whole},${tenth}% ok`, LANGUAGES.ru)).not.toMatch(/одну|целую|десятую/);
        },
      ),
      runs,
    );
    expect(russianAccusative('на одна целая две десятых процента, одна целая')).toBe(
      'на одну целую две десятых процента, одна целая',
    );
  });
});

describe('Japanese, Chinese and Korean dates and times in their order', () => {
  it('a contract’s or an expiry’s year comes first (二零二四年十二月, 2024년 12월), a time’s seconds without "and"', () => {
    expect(speakable('NQZ4 20,150', LANGUAGES.zh)).toContain('二零二四年十二月');
    expect(speakable('NQZ4 20,150', LANGUAGES.ko)).toContain('2024년 12월');
    expect(speakable('ESZ4', LANGUAGES.ja)).toMatch(/ねん じゅうにがつ/);
    expect(speakable('TSLA250117P00200000', LANGUAGES.zh)).toContain('二零二五年一月十七日');
    expect(speakable('恒指 14:30:15 更新', LANGUAGES.zh)).toContain('十四点三十分 十五 秒');
    expect(speakable('ESZ4', LANGUAGES.de)).toMatch(/Dezember 2024/);
  });

  it('Korean says the hour of a time in native numbers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 24 }), fc.integer({ min: 0, max: 59 }), (h, m) => {
        expect(speakable(`오후 ${h}시 ${m}분`, LANGUAGES.ko)).toContain(`${koreanNativeCount(h)} 시`);
      }),
      runs,
    );
  });
});

describe('Portuguese 14h30', () => {
  it('is the time, as Portuguese says a 24-hour time', () => {
    expect(speakable('Bitcoin a 58.300 € às 14h30', LANGUAGES.pt)).toContain('às 14:30');
  });
});

describe('English dates with a month’s short name, and more desk shorthand', () => {
  it('Jul 19 ’24, Sept. 20, Dec 5th are dates; WoW, avg and bbl words', () => {
    const en = LANGUAGES.en;
    expect(speakable("AAPL Jul 19 '24 $200 Call", en)).toContain('July nineteenth two hundred dollars');
    expect(speakable('FOMC Sept. 20, 2024 decision', en)).toContain('September twentieth decision');
    expect(speakable('CPI Dec 5th at 8:30', en)).toContain('December fifth');
    expect(speakable('SOL +12% WoW, avg $150', en)).toContain('week over week, average one hundred fifty dollars');
    expect(speakable('inventories -3.1M bbl', en)).toContain('million barrels');
    expect(speakable('May 5 rally', en)).toContain('May fifth');
    expect(speakable('Mar 2 points', en)).toContain('March second');
  });
});

describe('words that begin like a month', () => {
  it('Market 5, Decline 3, May 5% are not dates', () => {
    const en = LANGUAGES.en;
    expect(speakable('Market 5 up', en)).not.toContain('March');
    expect(speakable('Decline 3 days', en)).not.toContain('December');
    expect(speakable('May 5% drop', en)).not.toContain('fifth');
    expect(speakable('January 17 expiry, September 20', en)).toContain(
      'January seventeenth expiry, September twentieth',
    );
  });
});

describe('Turkish S', () => {
  it('is saat (hours) for a count of a chart’s hours, seconds beyond', () => {
    expect(speakable('RSI 4S 68', LANGUAGES.tr)).toContain('4 saat');
    expect(speakable('RSI 30S 68', LANGUAGES.tr)).toContain('30 saniye');
    expect(speakable('RSI 4S 68', LANGUAGES.de)).not.toContain('Stunde');
  });
});

describe('dates and times as German, Dutch, Polish and Russian write them', () => {
  it('a date with its year before a comma, with r. or г.; 17.35 Uhr and uur; o godz. 15:30', () => {
    expect(speakable('Stand: 14.06.2024, 17:35 Uhr', LANGUAGES.de)).toContain('Stand: 14. Juni, 17 Uhr 35');
    expect(speakable('Notowania 14.06.2024 r., kurs 45,20 zł', LANGUAGES.pl)).toContain('Notowania 14 czerwca, kurs');
    expect(speakable('Данные на 14.06.2024 г. 17:35', LANGUAGES.ru)).not.toContain('г.');
    expect(speakable('Slot om 17.35 uur: AEX', LANGUAGES.nl)).toContain('17 uur 35');
    expect(speakable('Schluss 17.35 Uhr', LANGUAGES.de)).toContain('17 Uhr 35');
    expect(speakable('Sesja o godz. 15:30', LANGUAGES.pl)).toContain('o godzinie 15:30');
    expect(speakable('Kurs 17.35 USD', LANGUAGES.de)).not.toContain('Uhr');
  });
});

describe('the other dollars, and ¥ in Chinese', () => {
  it('HK$, C$, A$ are the dollar with their letters; ¥ is 元 in a Chinese call, JPY the yen everywhere', () => {
    fc.assert(
      fc.property(
        language,
        fc.constantFrom('HK', 'C', 'A', 'NZ', 'S'),
        fc.integer({ min: 2, max: 999 }),
        (code, country, amount) => {
          const lang = LANGUAGES[code];
          const said = speakable(`Ziel ${country}$${amount} ok`, lang);
          expect(said, `${code} ${country}$`).toContain(spell(country, lang));
          const dollars = Object.values(currencyForms('$', lang, lang.words));
          expect(
            dollars.some((d) => said.includes(d)),
            `${code}: ${said}`,
          ).toBe(true);
        },
      ),
      runs,
    );
    expect(speakable('茅台 ¥1,850 目标价', LANGUAGES.zh)).toContain('一千八百五十 元');
    expect(speakable('JPY 100', LANGUAGES.zh)).toContain('日元');
    expect(speakable('¥500', LANGUAGES.en)).toContain('yen');
  });
});

describe('a hyphen before a number, German tenors', () => {
  it('Nasdaq-100 has no hyphen left; Rendite 10J is ten years', () => {
    expect(speakable('Nasdaq-100 schließt bei 20.125,75', LANGUAGES.de)).toContain('Nasdaq 100 schließt');
    expect(speakable('Rendite 10J 2,45 %', LANGUAGES.de)).toMatch(/10 Jahre?n? 2,45/);
  });
});

describe('an abbreviated unit’s dot inside a sentence', () => {
  it('is not said as the sentence’s end (in 1 Std. auf 61.250)', () => {
    expect(speakable('Bitcoin fällt 5 % in 1 Std. auf 61.250 USD', LANGUAGES.de)).toContain(
      'in 1 Stunde auf 61250 Dollar',
    );
    expect(speakable('BTC fällt in 4 Std. Ende.', LANGUAGES.de)).toContain('Ende');
  });
});
