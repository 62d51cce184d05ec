// Money beyond the four signs every language table names ($ € £ ¥): the signs and ISO codes traders
// write before or after an amount (R$, zł, ₺, ₽, ₿, ₹, 元, 円, ₩; USD, EUR, PLN, TRY, RUB, BRL, INR,
// CNY, JPY, KRW), each said by its name in the call's language, in the form the count takes.
import type { LanguageCode } from '../language-types.js';
import { type CurrencySymbol, type Forms, same, type SpeechLanguage, type SpeechWords } from './words.js';

export type MoreCurrency = 'real' | 'zloty' | 'lira' | 'ruble' | 'bitcoin' | 'rupee' | 'yuan' | 'yen' | 'won';
export type Currency = CurrencySymbol | MoreCurrency;

/** How each currency is written next to an amount: a sign or a code, and the currency it names. */
export const WRITTEN_CURRENCIES: Readonly<Record<string, Currency>> = {
  $: '$',
  US$: '$',
  USD: '$',
  '€': '€',
  EUR: '€',
  '£': '£',
  GBP: '£',
  '¥': '¥',
  JPY: '¥',
  円: 'yen',
  R$: 'real',
  BRL: 'real',
  zł: 'zloty',
  PLN: 'zloty',
  '₺': 'lira',
  TRY: 'lira',
  TL: 'lira',
  '₽': 'ruble',
  RUB: 'ruble',
  'руб.': 'ruble',
  руб: 'ruble',
  '₿': 'bitcoin',
  '₹': 'rupee',
  INR: 'rupee',
  元: 'yuan',
  CNY: 'yuan',
  RMB: 'yuan',
  '₩': 'won',
  KRW: 'won',
  원: 'won',
  // Chinese, Japanese and Korean write the currency's name after the amount: 64250.5美元, 100ドル, 50달러.
  美元: '$',
  欧元: '€',
  英镑: '£',
  日元: 'yen',
  人民币: 'yuan',
  韩元: 'won',
  卢布: 'ruble',
  ドル: '$',
  ユーロ: '€',
  달러: '$',
  유로: '€',
};

/** Written only after the amount where words touch (38500円, 1800元, 5万원, 100美元): before a number there they end the words before it (美元 14:30). */
export const AFTER_ONLY = new Set(['円', '元', '원', '美元', '欧元', '英镑', '日元', '人民币', '韩元', '卢布', 'ドル', 'ユーロ', '달러', '유로']);

/** Written with letters (a code, zł): said only where no letter touches them. */
export const isLetters = (written: string) => /\p{L}{2}/u.test(written);

const f = (one: string, many: string, few?: string, fraction?: string): Forms => ({
  one,
  many,
  ...(few === undefined ? {} : { few }),
  ...(fraction === undefined ? {} : { fraction }),
});

const NAMES: Readonly<Record<LanguageCode, Record<MoreCurrency, Forms>>> = {
  en: {
    real: f('real', 'reais'),
    zloty: f('zloty', 'zlotys'),
    lira: same('lira'),
    ruble: f('ruble', 'rubles'),
    bitcoin: same('bitcoin'),
    rupee: f('rupee', 'rupees'),
    yuan: same('yuan'),
    yen: same('yen'),
    won: same('won'),
  },
  de: {
    real: same('Real'),
    zloty: same('Złoty'),
    lira: same('Lira'),
    ruble: same('Rubel'),
    bitcoin: same('Bitcoin'),
    rupee: f('Rupie', 'Rupien'),
    yuan: same('Yuan'),
    yen: same('Yen'),
    won: same('Won'),
  },
  fr: {
    real: f('réal', 'réais'),
    zloty: f('zloty', 'zlotys'),
    lira: f('livre turque', 'livres turques'),
    ruble: f('rouble', 'roubles'),
    bitcoin: f('bitcoin', 'bitcoins'),
    rupee: f('roupie', 'roupies'),
    yuan: f('yuan', 'yuans'),
    yen: f('yen', 'yens'),
    won: f('won', 'wons'),
  },
  es: {
    real: f('real', 'reales'),
    zloty: f('esloti', 'eslotis'),
    lira: f('lira', 'liras'),
    ruble: f('rublo', 'rublos'),
    bitcoin: f('bitcoin', 'bitcoins'),
    rupee: f('rupia', 'rupias'),
    yuan: f('yuan', 'yuanes'),
    yen: f('yen', 'yenes'),
    won: f('won', 'wones'),
  },
  it: {
    real: same('real'),
    zloty: same('zloty'),
    lira: f('lira', 'lire'),
    ruble: f('rublo', 'rubli'),
    bitcoin: same('bitcoin'),
    rupee: f('rupia', 'rupie'),
    yuan: same('yuan'),
    yen: same('yen'),
    won: same('won'),
  },
  pt: {
    real: f('real', 'reais'),
    zloty: f('zlóti', 'zlótis'),
    lira: f('lira', 'liras'),
    ruble: f('rublo', 'rublos'),
    bitcoin: f('bitcoin', 'bitcoins'),
    rupee: f('rupia', 'rupias'),
    yuan: f('iuane', 'iuanes'),
    yen: f('iene', 'ienes'),
    won: f('won', 'wons'),
  },
  nl: {
    real: same('real'),
    zloty: same('zloty'),
    lira: same('lira'),
    ruble: same('roebel'),
    bitcoin: same('bitcoin'),
    rupee: same('roepie'),
    yuan: same('yuan'),
    yen: same('yen'),
    won: same('won'),
  },
  pl: {
    real: f('real', 'reali', 'reale', 'reala'),
    zloty: f('złoty', 'złotych', 'złote', 'złotego'),
    lira: f('lira', 'lir', 'liry', 'liry'),
    ruble: f('rubel', 'rubli', 'ruble', 'rubla'),
    bitcoin: f('bitcoin', 'bitcoinów', 'bitcoiny', 'bitcoina'),
    rupee: f('rupia', 'rupii', 'rupie', 'rupii'),
    yuan: f('juan', 'juanów', 'juany', 'juana'),
    yen: f('jen', 'jenów', 'jeny', 'jena'),
    won: f('won', 'wonów', 'wony', 'wona'),
  },
  tr: {
    real: same('real'),
    zloty: same('zloti'),
    lira: same('lira'),
    ruble: same('ruble'),
    bitcoin: same('bitcoin'),
    rupee: same('rupi'),
    yuan: same('yuan'),
    yen: same('yen'),
    won: same('won'),
  },
  ru: {
    real: f('реал', 'реалов', 'реала'),
    zloty: f('злотый', 'злотых', 'злотых'),
    lira: f('лира', 'лир', 'лиры'),
    ruble: f('рубль', 'рублей', 'рубля'),
    bitcoin: f('биткоин', 'биткоинов', 'биткоина'),
    rupee: f('рупия', 'рупий', 'рупии'),
    yuan: f('юань', 'юаней', 'юаня'),
    yen: f('иена', 'иен', 'иены'),
    won: f('вона', 'вон', 'воны'),
  },
  ja: {
    real: same('レアル'),
    zloty: same('ズロチ'),
    lira: same('リラ'),
    ruble: same('ルーブル'),
    bitcoin: same('ビットコイン'),
    rupee: same('ルピー'),
    yuan: same('げん'),
    yen: same('えん'),
    won: same('ウォン'),
  },
  zh: {
    real: same('雷亚尔'),
    zloty: same('兹罗提'),
    lira: same('里拉'),
    ruble: same('卢布'),
    bitcoin: same('比特币'),
    rupee: same('卢比'),
    yuan: same('元'),
    yen: same('日元'),
    won: same('韩元'),
  },
  ko: {
    real: same('헤알'),
    zloty: same('즐로티'),
    lira: same('리라'),
    ruble: same('루블'),
    bitcoin: same('비트코인'),
    rupee: same('루피'),
    yuan: same('위안'),
    yen: same('엔'),
    won: same('원'),
  },
};

/** A currency's name and its forms in a language (its table's for the four signs). */
export function currencyForms(currency: Currency, lang: SpeechLanguage, w: SpeechWords): Forms {
  if (currency in w.currencies) return w.currencies[currency as CurrencySymbol];
  return (NAMES[lang.code as LanguageCode] ?? NAMES.en)[currency as MoreCurrency];
}
