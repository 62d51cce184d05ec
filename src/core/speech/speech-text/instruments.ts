// Instruments by name: OCC option symbols (TSLA250117P00200000), dominance and total-cap symbols
// (BTC.D, TOTAL3), MOEX futures (Si-3.25, the March 2025 contract), and markets' names said in
// the call's language (6758.T: "Tokyo" in the Japanese voice's own letters).
import type { LanguageCode } from '../language-types.js';

export interface InstrumentWords {
  call: string;
  put: string;
  /** "bitcoin dominance": the coin's name, then the word, as the language orders them. */
  dominance(coin: string): string;
  /** TOTAL, TOTAL2, TOTAL3: the total crypto market cap, without bitcoin, without bitcoin and ether. */
  total: [string, string, string];
  months: string;
  /** Market names by Yahoo suffix where the language says them otherwise than in English. */
  markets?: Readonly<Record<string, string>>;
}

const EN_MONTHS = 'January February March April May June July August September October November December';

export const INSTRUMENT_WORDS: Readonly<Record<LanguageCode, InstrumentWords>> = {
  en: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `${coin} dominance`,
    total: [
      'total crypto market cap',
      'crypto market cap excluding bitcoin',
      'crypto market cap excluding bitcoin and ether',
    ],
    months: EN_MONTHS,
  },
  de: {
    call: 'Call',
    put: 'Put',
    dominance: (coin) => `${coin}-Dominanz`,
    total: [
      'gesamte Krypto-Marktkapitalisierung',
      'Krypto-Marktkapitalisierung ohne Bitcoin',
      'Krypto-Marktkapitalisierung ohne Bitcoin und Ether',
    ],
    months: 'Januar Februar März April Mai Juni Juli August September Oktober November Dezember',
  },
  fr: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `dominance du ${coin}`,
    total: [
      'capitalisation totale crypto',
      'capitalisation crypto hors bitcoin',
      'capitalisation crypto hors bitcoin et ether',
    ],
    months: 'janvier février mars avril mai juin juillet août septembre octobre novembre décembre',
  },
  es: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `dominancia de ${coin}`,
    total: [
      'capitalización total cripto',
      'capitalización cripto sin bitcoin',
      'capitalización cripto sin bitcoin ni ether',
    ],
    months: 'enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre',
  },
  it: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `dominanza di ${coin}`,
    total: [
      'capitalizzazione totale cripto',
      'capitalizzazione cripto senza bitcoin',
      'capitalizzazione cripto senza bitcoin ed ether',
    ],
    months: 'gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre',
  },
  pt: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `dominância do ${coin}`,
    total: [
      'capitalização total cripto',
      'capitalização cripto sem bitcoin',
      'capitalização cripto sem bitcoin e ether',
    ],
    months: 'janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro',
  },
  nl: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `${coin}-dominantie`,
    total: [
      'totale cryptomarktwaarde',
      'cryptomarktwaarde zonder bitcoin',
      'cryptomarktwaarde zonder bitcoin en ether',
    ],
    months: 'januari februari maart april mei juni juli augustus september oktober november december',
  },
  pl: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `dominacja ${coin}`,
    total: [
      'całkowita kapitalizacja krypto',
      'kapitalizacja krypto bez bitcoina',
      'kapitalizacja krypto bez bitcoina i etheru',
    ],
    months: 'styczeń luty marzec kwiecień maj czerwiec lipiec sierpień wrzesień październik listopad grudzień',
  },
  tr: {
    call: 'call',
    put: 'put',
    dominance: (coin) => `${coin} hakimiyeti`,
    total: [
      'toplam kripto piyasa değeri',
      'bitcoin hariç kripto piyasa değeri',
      'bitcoin ve ether hariç kripto piyasa değeri',
    ],
    months: 'Ocak Şubat Mart Nisan Mayıs Haziran Temmuz Ağustos Eylül Ekim Kasım Aralık',
  },
  ru: {
    call: 'колл',
    put: 'пут',
    dominance: (coin) => `доминация ${coin}`,
    total: [
      'общая капитализация крипторынка',
      'капитализация крипторынка без биткоина',
      'капитализация крипторынка без биткоина и эфира',
    ],
    months: 'январь февраль март апрель май июнь июль август сентябрь октябрь ноябрь декабрь',
    markets: { T: 'Токио', HK: 'Гонконг', L: 'Лондон', SS: 'Шанхай', SZ: 'Шэньчжэнь', TO: 'Торонто' },
  },
  ja: {
    call: 'コール',
    put: 'プット',
    dominance: (coin) => `${coin} ドミナンス`,
    total: [
      'あんごうしさん の そうじかそうがく',
      'ビットコイン を のぞく じかそうがく',
      'ビットコイン と イーサ を のぞく じかそうがく',
    ],
    months:
      'いちがつ にがつ さんがつ しがつ ごがつ ろくがつ しちがつ はちがつ くがつ じゅうがつ じゅういちがつ じゅうにがつ',
    markets: {
      T: 'とうきょう',
      HK: 'ほんこん',
      L: 'ロンドン',
      SS: 'シャンハイ',
      SZ: 'シンセン',
      KS: 'かんこく',
      TO: 'トロント',
      NS: 'インド',
    },
  },
  zh: {
    call: '看涨期权',
    put: '看跌期权',
    dominance: (coin) => `${coin} 市值占比`,
    total: ['加密货币总市值', '不含比特币的加密货币市值', '不含比特币和以太坊的加密货币市值'],
    months: '一月 二月 三月 四月 五月 六月 七月 八月 九月 十月 十一月 十二月',
    markets: { T: '东京', HK: '香港', L: '伦敦', SS: '上海', SZ: '深圳', KS: '韩国', TO: '多伦多', NS: '印度' },
  },
  ko: {
    call: '콜',
    put: '풋',
    dominance: (coin) => `${coin} 도미넌스`,
    total: ['암호화폐 총 시가총액', '비트코인 제외 시가총액', '비트코인과 이더리움 제외 시가총액'],
    months: '1월 2월 3월 4월 5월 6월 7월 8월 9월 10월 11월 12월',
    markets: { T: '도쿄', HK: '홍콩', L: '런던', SS: '상하이', SZ: '선전', KS: '한국거래소', TO: '토론토', NS: '인도' },
  },
};

export const instrumentWords = (code: string | undefined): InstrumentWords =>
  INSTRUMENT_WORDS[code as LanguageCode] ?? INSTRUMENT_WORDS.en;

/** A month's name alone (a futures contract's month). */
export const monthName = (code: string | undefined, month: number): string =>
  instrumentWords(code).months.split(' ')[month - 1]!;

/** Coins whose dominance traders name by the coin's name rather than its letters. */
export const COIN_NAMES: Readonly<Record<string, string>> = { BTC: 'bitcoin', ETH: 'ether', USDT: 'tether' };
