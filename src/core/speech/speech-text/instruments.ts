// Instruments by name: OCC option symbols (TSLA250117P00200000), dominance and total-cap symbols
// (BTC.D, TOTAL3), MOEX futures (Si-3.25, the March 2025 contract), and markets' names said in
// the call's language (6758.T: "Tokyo" in the Japanese voice's own letters).
import type { LanguageCode } from '../language-types.js';

export interface InstrumentWords {
  call: string;
  put: string;
  /** "bitcoin dominance": the coin's name, then the word, as the language orders them. */
  dominance(coin: string): string;
  /** TOTAL, TOTAL2, TOTAL3: the total crypto market cap, without bitcoin, without bitcoin and ether (split by |). */
  total: string;
  months: string;
}

const EN_MONTHS = 'January February March April May June July August September October November December';

export const INSTRUMENT_WORDS: Readonly<Record<LanguageCode, InstrumentWords>> = {
  en: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `${coin} dominance`,
    total: 'total crypto market cap|crypto market cap excluding bitcoin|crypto market cap excluding bitcoin and ether',
    months: EN_MONTHS,
  },
  de: {
    call: 'Call',
    put: 'Put',
    dominance: (coin) => `${coin}-Dominanz`,
    total:
      'gesamte Krypto-Marktkapitalisierung|Krypto-Marktkapitalisierung ohne Bitcoin|Krypto-Marktkapitalisierung ohne Bitcoin und Ether',
    months: 'Januar Februar März April Mai Juni Juli August September Oktober November Dezember',
  },
  fr: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `dominance du ${coin}`,
    total:
      'capitalisation totale crypto|capitalisation crypto hors bitcoin|capitalisation crypto hors bitcoin et ether',
    months: 'janvier février mars avril mai juin juillet août septembre octobre novembre décembre',
  },
  es: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `dominancia de ${coin}`,
    total: 'capitalización total cripto|capitalización cripto sin bitcoin|capitalización cripto sin bitcoin ni ether',
    months: 'enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre',
  },
  it: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `dominanza di ${coin}`,
    total:
      'capitalizzazione totale cripto|capitalizzazione cripto senza bitcoin|capitalizzazione cripto senza bitcoin ed ether',
    months: 'gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre',
  },
  pt: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `dominância do ${coin}`,
    total: 'capitalização total cripto|capitalização cripto sem bitcoin|capitalização cripto sem bitcoin e ether',
    months: 'janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro',
  },
  nl: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `${coin}-dominantie`,
    total: 'totale cryptomarktwaarde|cryptomarktwaarde zonder bitcoin|cryptomarktwaarde zonder bitcoin en ether',
    months: 'januari februari maart april mei juni juli augustus september oktober november december',
  },
  pl: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `dominacja ${coin}`,
    total:
      'całkowita kapitalizacja krypto|kapitalizacja krypto bez bitcoina|kapitalizacja krypto bez bitcoina i etheru',
    months: 'styczeń luty marzec kwiecień maj czerwiec lipiec sierpień wrzesień październik listopad grudzień',
  },
  tr: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `${coin} hakimiyeti`,
    total: 'toplam kripto piyasa değeri|bitcoin hariç kripto piyasa değeri|bitcoin ve ether hariç kripto piyasa değeri',
    months: 'Ocak Şubat Mart Nisan Mayıs Haziran Temmuz Ağustos Eylül Ekim Kasım Aralık',
  },
  ru: {
    call: 'колл',
    put: 'пут',
    dominance: (coin) => `доминация ${coin}`,
    total:
      'общая капитализация крипторынка|капитализация крипторынка без биткоина|капитализация крипторынка без биткоина и эфира',
    months: 'январь февраль март апрель май июнь июль август сентябрь октябрь ноябрь декабрь',
  },
  ja: {
    call: 'コール',
    put: 'プット',
    dominance: (coin) => `${coin} ドミナンス`,
    total:
      'あんごうしさん の そうじかそうがく|ビットコイン を のぞく じかそうがく|ビットコイン と イーサ を のぞく じかそうがく',
    months:
      'いちがつ にがつ さんがつ しがつ ごがつ ろくがつ しちがつ はちがつ くがつ じゅうがつ じゅういちがつ じゅうにがつ',
  },
  zh: {
    call: '看涨期权',
    put: '看跌期权',
    dominance: (coin) => `${coin} 市值占比`,
    total: '加密货币总市值|不含比特币的加密货币市值|不含比特币和以太坊的加密货币市值',
    months: '一月 二月 三月 四月 五月 六月 七月 八月 九月 十月 十一月 十二月',
  },
  ko: {
    call: '콜',
    put: '풋',
    dominance: (coin) => `${coin} 도미넌스`,
    total: '암호화폐 총 시가총액|비트코인 제외 시가총액|비트코인과 이더리움 제외 시가총액',
    months: '1월 2월 3월 4월 5월 6월 7월 8월 9월 10월 11월 12월',
  },
};

export const instrumentWords = (code: string | undefined): InstrumentWords =>
  INSTRUMENT_WORDS[code as LanguageCode] ?? INSTRUMENT_WORDS.en;

/** Market names by Yahoo suffix where the language says them otherwise than in English. */
const MARKET_NAMES: Readonly<Partial<Record<LanguageCode, Readonly<Record<string, string>>>>> = {
  ru: { T: 'Токио', HK: 'Гонконг', L: 'Лондон', SS: 'Шанхай', SZ: 'Шэньчжэнь', TO: 'Торонто' },
  ja: {
    T: 'とうきょう',
    HK: 'ほんこん',
    L: 'ロンドン',
    SS: 'シャンハイ',
    SZ: 'シンセン',
    KS: 'かんこく',
    TO: 'トロント',
    NS: 'インド',
  },
  zh: { T: '东京', HK: '香港', L: '伦敦', SS: '上海', SZ: '深圳', KS: '韩国', TO: '多伦多', NS: '印度' },
  ko: { T: '도쿄', HK: '홍콩', L: '런던', SS: '상하이', SZ: '선전', KS: '한국거래소', TO: '토론토', NS: '인도' },
};

/** 6758.T in Japanese: the market's name in the language's own letters, or undefined where it has none. */
export const marketName = (code: string | undefined, suffix: string): string | undefined =>
  MARKET_NAMES[code as LanguageCode]?.[suffix];

/** TOTAL (1), TOTAL2 and TOTAL3 said by what they measure. */
export const totalCap = (code: string | undefined, which: 1 | 2 | 3): string =>
  instrumentWords(code).total.split('|')[which - 1]!;

/** A month's name alone (a futures contract's month). */
export const monthName = (code: string | undefined, month: number): string =>
  instrumentWords(code).months.split(' ')[month - 1]!;

/** Coins whose dominance traders name by the coin's name rather than its letters. */
export const COIN_NAMES: Readonly<Record<string, string>> = { BTC: 'bitcoin', ETH: 'ether', USDT: 'tether' };

/** The Yahoo suffixes of markets named after their city, in the order of MARKET_PHRASES' lists. */
const CITY_SUFFIXES = 'TO L IL F PA AS BR MI MC LS VI ST OL CO HE IR HK T SS SZ TW JK BK WA IS ME'.split(' ');

/**
 * Where a market is, said in the language as its traders say it (7203.T: "in Tokio", "à Tokyo",
 * "w Tokio", "Tokyo'da", "в Токио"): the city's own name in the language, with the preposition or
 * case ending it takes. Markets known by their initials (Xetra, S I X, N S E) keep the language's "on".
 */
const MARKET_PHRASES: Readonly<Partial<Record<LanguageCode, string>>> = {
  de: 'in Toronto|in London|in London|in Frankfurt|in Paris|in Amsterdam|in Brüssel|in Mailand|in Madrid|in Lissabon|in Wien|in Stockholm|in Oslo|in Kopenhagen|in Helsinki|in Dublin|in Hongkong|in Tokio|in Shanghai|in Shenzhen|in Taiwan|in Jakarta|in Bangkok|in Warschau|in Istanbul|in Moskau',
  fr: 'à Toronto|à Londres|à Londres|à Francfort|à Paris|à Amsterdam|à Bruxelles|à Milan|à Madrid|à Lisbonne|à Vienne|à Stockholm|à Oslo|à Copenhague|à Helsinki|à Dublin|à Hong Kong|à Tokyo|à Shanghai|à Shenzhen|à Taïwan|à Jakarta|à Bangkok|à Varsovie|à Istanbul|à Moscou',
  es: 'en Toronto|en Londres|en Londres|en Fráncfort|en París|en Ámsterdam|en Bruselas|en Milán|en Madrid|en Lisboa|en Viena|en Estocolmo|en Oslo|en Copenhague|en Helsinki|en Dublín|en Hong Kong|en Tokio|en Shanghái|en Shenzhen|en Taiwán|en Yakarta|en Bangkok|en Varsovia|en Estambul|en Moscú',
  it: 'a Toronto|a Londra|a Londra|a Francoforte|a Parigi|ad Amsterdam|a Bruxelles|a Milano|a Madrid|a Lisbona|a Vienna|a Stoccolma|a Oslo|a Copenaghen|a Helsinki|a Dublino|a Hong Kong|a Tokyo|a Shanghai|a Shenzhen|a Taiwan|a Giacarta|a Bangkok|a Varsavia|a Istanbul|a Mosca',
  pt: 'em Toronto|em Londres|em Londres|em Frankfurt|em Paris|em Amesterdão|em Bruxelas|em Milão|em Madrid|em Lisboa|em Viena|em Estocolmo|em Oslo|em Copenhaga|em Helsínquia|em Dublin|em Hong Kong|em Tóquio|em Xangai|em Shenzhen|em Taiwan|em Jacarta|em Banguecoque|em Varsóvia|em Istambul|em Moscovo',
  nl: 'in Toronto|in Londen|in Londen|in Frankfurt|in Parijs|in Amsterdam|in Brussel|in Milaan|in Madrid|in Lissabon|in Wenen|in Stockholm|in Oslo|in Kopenhagen|in Helsinki|in Dublin|in Hongkong|in Tokio|in Shanghai|in Shenzhen|in Taiwan|in Jakarta|in Bangkok|in Warschau|in Istanboel|in Moskou',
  pl: 'w Toronto|w Londynie|w Londynie|we Frankfurcie|w Paryżu|w Amsterdamie|w Brukseli|w Mediolanie|w Madrycie|w Lizbonie|w Wiedniu|w Sztokholmie|w Oslo|w Kopenhadze|w Helsinkach|w Dublinie|w Hongkongu|w Tokio|w Szanghaju|w Shenzhen|na Tajwanie|w Dżakarcie|w Bangkoku|w Warszawie|w Stambule|w Moskwie',
  tr: "Toronto'da|Londra'da|Londra'da|Frankfurt'ta|Paris'te|Amsterdam'da|Brüksel'de|Milano'da|Madrid'de|Lizbon'da|Viyana'da|Stokholm'de|Oslo'da|Kopenhag'da|Helsinki'de|Dublin'de|Hong Kong'da|Tokyo'da|Şanghay'da|Shenzhen'de|Tayvan'da|Cakarta'da|Bangkok'ta|Varşova'da|İstanbul'da|Moskova'da",
  ru: 'в Торонто|в Лондоне|в Лондоне|во Франкфурте|в Париже|в Амстердаме|в Брюсселе|в Милане|в Мадриде|в Лиссабоне|в Вене|в Стокгольме|в Осло|в Копенгагене|в Хельсинки|в Дублине|в Гонконге|в Токио|в Шанхае|в Шэньчжэне|на Тайване|в Джакарте|в Бангкоке|в Варшаве|в Стамбуле|в Москве',
};

/** "in Tokio" for 7203.T in German: the market's city with its preposition, or undefined where the language has none written for it. */
export function marketPhrase(code: string | undefined, suffix: string): string | undefined {
  const phrases = MARKET_PHRASES[code as LanguageCode];
  const at = CITY_SUFFIXES.indexOf(suffix);
  return phrases === undefined || at < 0 ? undefined : phrases.split('|')[at];
}

/** A price per unit of a commodity ($/oz, $/bbl, $/lb): "per ounce", "je Unze", "за унцию". */
/** Per ounce, per barrel and per pound (split by |). */
const PER_UNIT: Readonly<Record<LanguageCode, string>> = {
  en: 'per ounce|per barrel|per pound',
  de: 'je Unze|je Barrel|je Pfund',
  fr: "l'once|le baril|la livre",
  es: 'por onza|por barril|por libra',
  it: "l'oncia|al barile|per libbra",
  pt: 'por onça|por barril|por libra',
  nl: 'per ons|per vat|per pond',
  pl: 'za uncję|za baryłkę|za funt',
  tr: 'ons başına|varil başına|libre başına',
  ru: 'за унцию|за баррель|за фунт',
  ja: 'オンス あたり|バレル あたり|ポンド あたり',
  zh: '每盎司|每桶|每磅',
  ko: '온스당|배럴당|파운드당',
};
const UNIT_INDEX: Readonly<Record<string, 0 | 1 | 2>> = {
  oz: 0,
  ozt: 0,
  bbl: 1,
  lb: 2,
  lbs: 2,
  盎司: 0,
  桶: 1,
  磅: 2,
  オンス: 0,
  バレル: 1,
  온스: 0,
  배럴: 1,
};
export const PER_UNITS = Object.keys(UNIT_INDEX);

export const perUnit = (code: string | undefined, unit: string): string | undefined => {
  const at = UNIT_INDEX[unit];
  return at === undefined ? undefined : (PER_UNIT[code as LanguageCode] ?? PER_UNIT.en).split('|')[at];
};
