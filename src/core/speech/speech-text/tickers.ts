// Tickers, pairs and instruments as traders say them: spelled, split into base and quote, with
// their exchange (TradingView's NASDAQ:AAPL, Yahoo's SHOP.TO), futures (ES1!, CL=F), perpetuals
// (.P), share classes (BRK.B) and indices (^GSPC); dominance (BTC.D), TOTAL2/3 and BitMEX's XBT by name.
import type { NumberLanguage } from '../number-words.js';
import { spell, wholeNumber } from './numbers.js';
import { CAPS_WORDS, EXCHANGE_SUFFIXES, EXCHANGES, INDICATORS, QUOTE_CURRENCIES } from './vocabulary.js';
import { formAfter, pick, type SpeechLanguage, wordsOf } from './words.js';
import { currencyForms } from './currencies.js';
import { COIN_NAMES, instrumentWords, marketName, marketPhrase, monthName, totalCap } from './instruments.js';
import { withYear } from './times.js';
import { english } from '../number-words.js';

const byLengthDesc = (a: string, b: string) => b.length - a.length;
const QUOTES_LONGEST_FIRST = [...QUOTE_CURRENCIES].sort(byLengthDesc);

/** The letters a share class is written with (BRK.B); other single letters after a dot are markets (VOD.L). */
const SHARE_CLASSES = /^[A-EK]$/;

export function splitPair(token: string): [string, string] | undefined {
  for (const quote of QUOTES_LONGEST_FIRST) {
    const base = token.slice(0, -quote.length);
    if (token.endsWith(quote) && base.length >= 2 && base.length <= 6 && /^[A-Z]+$/.test(base)) return [base, quote];
  }
  return undefined;
}

/** A market's name: known ones as words, any other spelled (FX_IDC: "F X I D C"). */
export function sayExchange(name: string, lang: NumberLanguage): string {
  return (
    EXCHANGES[name] ??
    name
      .split('_')
      .filter(Boolean)
      .map((part) => spell(part, lang))
      .join(' ')
  );
}

/** A ticker, pair or instrument as it is said, or undefined when the token is none of these. */
export function saySymbol(token: string, lang: SpeechLanguage = english): string | undefined {
  const w = wordsOf(lang);
  const futures = /^([A-Z0-9]*[A-Z][A-Z0-9]*?)([12])!$/.exec(token);
  if (futures) return `${spell(futures[1]!, lang)}, ${w.futuresMonths[futures[2] as '1' | '2']}`;
  if (token.endsWith('.P')) {
    const base = saySymbol(token.slice(0, -2), lang);
    return base === undefined ? undefined : `${base}, ${w.perpetual}`;
  }
  const named = sayNamedInstrument(token, lang);
  if (named !== undefined) return named;
  const suffixed = /^([A-Z0-9]{1,10})[.-]([A-Z]{1,2})$/.exec(token);
  if (suffixed) return sayWithSuffix(suffixed[1]!, suffixed[2]!, token.includes('-'), lang);
  const word = CAPS_WORDS[token];
  if (word !== undefined) return word;
  const indicator = INDICATORS[token];
  if (indicator !== undefined) return indicator ?? spell(token, lang);
  // US10Y, DE02Y, JP30Y: a government bond by its country and tenor.
  const bond = /^([A-Z]{2})(\d{1,2})Y$/.exec(token);
  if (bond) {
    const years = String(Number(bond[2]));
    return `${spell(bond[1]!, lang)} ${lang.cardinal(Number(years))} ${w.year ? pick(w.year, formAfter(w, { whole: years })) : 'Y'}`;
  }
  const numbered = /^([A-Z]{1,8})(\d{1,4})$/.exec(token);
  if (numbered) {
    const [, letters = '', digits = ''] = numbered;
    const name = CAPS_WORDS[letters] ?? INDICATORS[letters] ?? (letters.length <= 6 ? spell(letters, lang) : undefined);
    return name === undefined ? undefined : `${name} ${wholeNumber(digits, lang)}`;
  }
  // SX5E, B3SA3: a ticker of letters and digits, spelled.
  if (/^[A-Z][A-Z0-9]*\d[A-Z0-9]*[A-Z]$/.test(token) && token.length <= 8) return spell(token, lang);
  if (!/^[A-Z]+$/.test(token)) return undefined;
  // BitMEX writes bitcoin XBT: XBTUSD is a bitcoin pair.
  const bitmex = /^XBT([A-Z]{3,4})$/.exec(token);
  if (bitmex && QUOTE_CURRENCIES.includes(bitmex[1]!))
    return `${currencyForms('bitcoin', lang, w).one}, ${spell(bitmex[1]!, lang)}`;
  const pair = splitPair(token);
  if (pair) return `${spell(pair[0], lang)}, ${spell(pair[1], lang)}`;
  return token.length <= 6 ? spell(token, lang) : undefined;
}

/** BRK.B and BRK-B (a share class), SHOP.TO and 7203.T (a market): digits of a numbered ticker one by one. */
function sayWithSuffix(base: string, suffix: string, dashed: boolean, lang: SpeechLanguage): string | undefined {
  const w = wordsOf(lang);
  // A name longer than a ticker (RELIANCE.NS) is a word, left for the engine to read.
  const name =
    /^\d{1,6}$/.test(base) || /^[A-Z]{1,6}$/.test(base) ? spell(base, lang) : /^[A-Z]+$/.test(base) ? base : undefined;
  if (name === undefined) return undefined;
  if (SHARE_CLASSES.test(suffix) && /^[A-Z]+$/.test(base)) return w.shareClass(name, suffix);
  const phrase = dashed ? undefined : marketPhrase(lang.code, suffix);
  if (phrase !== undefined) return `${name} ${phrase}`;
  const market = dashed ? undefined : (marketName(lang.code, suffix) ?? EXCHANGE_SUFFIXES[suffix]);
  return market === undefined ? undefined : `${name} ${w.on} ${market}`;
}

/** Yahoo's futures and currencies: CL=F "C L futures", EURUSD=X "E U R, U S D". */
export function sayYahooSymbol(base: string, kind: 'F' | 'X', lang: SpeechLanguage): string {
  const w = wordsOf(lang);
  if (kind === 'F') return `${spell(base, lang)} ${w.futures}`;
  const pair = splitPair(base);
  return pair ? `${spell(pair[0], lang)}, ${spell(pair[1], lang)}` : spell(base, lang);
}

/** BTC.D "bitcoin dominance", TOTAL2 and TOTAL3 (the crypto market cap without bitcoin, and ether): said by what they measure. */
function sayNamedInstrument(token: string, lang: SpeechLanguage): string | undefined {
  const words = instrumentWords(lang.code);
  const dominance = /^([A-Z]{2,6})\.D$/.exec(token);
  if (dominance) {
    const coin = dominance[1]!;
    const name = coin === 'BTC' ? currencyForms('bitcoin', lang, wordsOf(lang)).one : COIN_NAMES[coin];
    return words.dominance(name ?? spell(coin, lang));
  }
  const total = /^TOTAL([23])$/.exec(token);
  if (total) return totalCap(lang.code, Number(total[1]) as 2 | 3);
  // ESZ4, NQH25, CLZ2025: a CME future by its month code and year (the year of the 2020s for one digit).
  const cme = CME_CONTRACT.exec(token) ?? TWO_LETTER_CONTRACT.exec(token);
  if (!cme) return undefined;
  const [, root = '', code = '', year = ''] = cme;
  const fullYear = year.length === 4 ? Number(year) : year.length === 2 ? 2000 + Number(year) : 2020 + Number(year);
  return `${spell(root, lang)}, ${withYear(monthName(lang.code, MONTH_CODES.indexOf(code) + 1), fullYear, lang)}`;
}

/** The futures month codes, January to December. */
const MONTH_CODES = 'FGHJKMNQUVXZ';
/** The roots of CME futures traders write with a month code; other tickers ending in such a letter and a digit stay spelled. */
const CME_CONTRACT =
  /^(ES|NQ|YM|RTY|EMD|CL|QM|MCL|BZ|HO|RB|GC|SI|SIL|HG|PL|PA|NG|QG|ZB|UB|ZN|TN|ZF|ZT|ZQ|SR3|ZC|ZS|ZW|KE|ZL|ZM|ZO|ZR|LE|HE|GF|DC|KC|SB|CC|CT|OJ|DX|VX|6E|6J|6B|6A|6C|6S|6N|6M|M6E|M6A|M6B|MES|MNQ|MYM|M2K|MGC|MHG|MBT|MET|BTC|ETH|FDAX|FDXM|FDXS|FESX|FSMI|FGBL|FGBM|FGBS|FGBX|FVS|WIN|WDO|IND|DOL|DI1|BGI|CCM|FW20|FW40|RI|SI|BR|GD|MX|MM|NG|ED|EU)([FGHJKMNQUVXZ])(\d|\d{2}|20\d{2})$/;
/** Any other root of two letters with a month code and a year of this decade (LEZ4, ZLF25; not WIG20 or WIG30, indices): a future too. */
const TWO_LETTER_CONTRACT = /^([A-Z]{2})([FGHJKMNQUVXZ])(\d|2[4-9])$/;
