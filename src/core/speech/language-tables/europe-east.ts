// Polish, Turkish and Russian: their prompts and the normalizer's words, written by hand. Russian
// decimals are said in words (две целых тридцать пять сотых): espeak-ng reads 2,35 as "two and
// three five tenths".
import { decimalComma, digitsLanguage } from '../number-words.js';
import { russianDecimal, russianLargeWhole } from '../native-numbers.js';
import {
  asWritten,
  continuous,
  countNoun,
  fewForms,
  lang,
  monthDate,
  ordinals,
  polishForm,
  russianForm,
  same,
  units,
} from './helpers.js';

export const pl = lang(
  'pl',
  'Polish',
  'Polski',
  'pl',
  digitsLanguage({
    minus: 'minus',
    plus: 'plus',
    percent: 'procent',
    times: 'razy',
    decimal: decimalComma,
    localDecimalComma: true,
  }),
  {
    intro: 'Alert od ringhook.',
    prompt: 'Naciśnij 1, aby potwierdzić, naciśnij 2, aby odsłuchać ponownie.',
    keys: 'Naciśnij 1, aby potwierdzić, 2 lub gwiazdkę, aby odsłuchać ponownie, 0, aby usłyszeć te opcje.',
    confirmed: 'Potwierdzono. Do widzenia.',
    testCall: 'To jest połączenie testowe od ringhook. Tak będą brzmieć twoje alerty.',
    alertCount: (n) => `Masz ${n} ${countNoun(polishForm)(n, 'alert', 'alerty', 'alertów')}.`,
    olderHeld: (n) =>
      `Oraz ${n} ${countNoun(polishForm)(n, 'starszy alert', 'starsze alerty', 'starszych alertów')}: zobacz historię.`,
    ordinal: ordinals(
      ['Pierwszy', 'Drugi', 'Trzeci', 'Czwarty', 'Piąty', 'Szósty', 'Siódmy', 'Ósmy', 'Dziewiąty', 'Dziesiąty'],
      (n) => `Alert ${n}`,
    ),
  },
  {
    futuresMonths: continuous('najbliższa seria', 'druga seria'),
    perpetual: 'bezterminowy',
    futures: 'kontrakt terminowy',
    shareClass: (ticker, letter) => `${ticker} klasa ${letter}`,
    on: 'na',
    crosses: 'przecina',
    utc: 'U T C',
    symbols: {
      atOrAbove: 'na poziomie lub powyżej',
      atOrBelow: 'na poziomie lub poniżej',
      to: 'do',
      above: 'powyżej',
      below: 'poniżej',
      at: 'na',
      and: 'i',
      up: 'w górę',
      down: 'w dół',
      about: 'około',
    },
    numberSign: 'numer',
    riskReward: 'ryzyko do zysku',
    ratioTo: 'do',
    date: monthDate(
      'stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia',
      (d, m) => `${d} ${m}`,
    ),
    units: units({
      second: fewForms('sekunda', 'sekundy', 'sekund', 'sekundy'),
      minute: fewForms('minuta', 'minuty', 'minut', 'minuty'),
      hour: fewForms('godzina', 'godziny', 'godzin', 'godziny'),
      day: fewForms('dzień', 'dni', 'dni', 'dnia'),
      week: fewForms('tydzień', 'tygodnie', 'tygodni', 'tygodnia'),
      month: fewForms('miesiąc', 'miesiące', 'miesięcy', 'miesiąca'),
    }),
    plural: polishForm,
    fractionForm: 'fraction',
    single: { day: 'dzienny', week: 'tygodniowy', month: 'miesięczny' },
    ownUnits: { godz: 'hour', dz: 'day', tydz: 'week', mies: 'month' },
    quantities: {
      basisPoint: fewForms('punkt bazowy', 'punkty bazowe', 'punktów bazowych', 'punktu bazowego'),
      pip: fewForms('pips', 'pipsy', 'pipsów', 'pipsa'),
      point: fewForms('punkt', 'punkty', 'punktów', 'punktu'),
    },
    year: fewForms('rok', 'lata', 'lat'),
    currencies: {
      $: fewForms('dolar', 'dolary', 'dolarów', 'dolara'),
      '€': same('euro'),
      '£': fewForms('funt', 'funty', 'funtów', 'funta'),
      '¥': fewForms('jen', 'jeny', 'jenów', 'jena'),
    },
    magnitudes: {
      thousand: fewForms('tysiąc', 'tysiące', 'tysięcy', 'tysiąca'),
      million: fewForms('milion', 'miliony', 'milionów', 'miliona'),
      billion: fewForms('miliard', 'miliardy', 'miliardów', 'miliarda'),
      trillion: fewForms('bilion', 'biliony', 'bilionów', 'biliona'),
    },
    time24: asWritten,
    time12: asWritten,
  },
);

export const tr = lang(
  'tr',
  'Turkish',
  'Türkçe',
  'tr',
  digitsLanguage({
    minus: 'eksi',
    plus: 'artı',
    percent: 'yüzde',
    times: 'kat',
    decimal: decimalComma,
    localDecimalComma: true,
  }),
  {
    intro: 'ringhook uyarısı.',
    prompt: "Onaylamak için 1'e, tekrar dinlemek için 2'ye basın.",
    keys: "Onaylamak için 1'e, tekrar dinlemek için 2'ye veya yıldıza, bu seçenekleri duymak için 0'a basın.",
    confirmed: 'Onaylandı. Hoşça kalın.',
    testCall: 'Bu, ringhook tarafından yapılan bir test aramasıdır. Uyarılarınız böyle duyulacak.',
    alertCount: (n) => `${n} uyarınız var.`,
    olderHeld: (n) => `Ve ${n} eski uyarı daha: geçmişinize bakın.`,
    ordinal: ordinals(
      ['Birinci', 'İkinci', 'Üçüncü', 'Dördüncü', 'Beşinci', 'Altıncı', 'Yedinci', 'Sekizinci', 'Dokuzuncu', 'Onuncu'],
      (n) => `Uyarı ${n}`,
    ),
  },
  {
    futuresMonths: continuous('yakın vade', 'ikinci vade'),
    perpetual: 'vadesiz',
    futures: 'vadeli',
    shareClass: (ticker, letter) => `${ticker} ${letter} sınıfı`,
    on: ',',
    crosses: 'kesiyor',
    utc: 'U T C',
    symbols: {
      atOrAbove: 'eşit veya üstünde',
      atOrBelow: 'eşit veya altında',
      to: 'ila',
      above: 'üstünde',
      below: 'altında',
      at: 'seviyesi',
      and: 've',
      up: 'yukarı',
      down: 'aşağı',
      about: 'yaklaşık',
    },
    numberSign: 'numara',
    riskReward: 'risk getiri',
    ratioTo: 'karşı',
    date: monthDate(
      'Ocak Şubat Mart Nisan Mayıs Haziran Temmuz Ağustos Eylül Ekim Kasım Aralık',
      (d, m) => `${d} ${m}`,
    ),
    units: units({ second: 'saniye', minute: 'dakika', hour: 'saat', day: 'gün', week: 'hafta', month: 'ay' }),
    single: { day: 'günlük', week: 'haftalık', month: 'aylık' },
    ownUnits: { sn: 'second', dk: 'minute', sa: 'hour', G: 'day', hf: 'week', ay: 'month' },
    quantities: { basisPoint: same('baz puan'), pip: same('pip'), point: same('puan') },
    // %2,5 and 2,5%: "yüzde iki virgül beş", the percent first.
    percentBefore: 'yüzde',
    year: same('yıllık'),
    currencies: { $: same('dolar'), '€': same('euro'), '£': same('sterlin'), '¥': same('yen') },
    magnitudes: { thousand: same('bin'), million: same('milyon'), billion: same('milyar'), trillion: same('trilyon') },
    time24: asWritten,
    time12: asWritten,
  },
);

const RU_DAY_ORDINALS =
  'первое второе третье четвёртое пятое шестое седьмое восьмое девятое десятое одиннадцатое двенадцатое тринадцатое четырнадцатое пятнадцатое шестнадцатое семнадцатое восемнадцатое девятнадцатое двадцатое'.split(
    ' ',
  );
/** 14 → "четырнадцатое" (the date's day, neuter). */
const russianDay = (d: number) =>
  d <= 20
    ? RU_DAY_ORDINALS[d - 1]!
    : d === 30
      ? 'тридцатое'
      : `${d < 30 ? 'двадцать' : 'тридцать'} ${RU_DAY_ORDINALS[(d % 10) - 1]}`;

export const ru = lang(
  'ru',
  'Russian',
  'Русский',
  'ru',
  digitsLanguage({
    minus: 'минус',
    plus: 'плюс',
    percent: 'процентов',
    times: 'раз',
    decimal: russianDecimal,
    largeWhole: russianLargeWhole,
    localDecimalComma: true,
  }),
  {
    intro: 'Оповещение от ringhook.',
    prompt: 'Нажмите 1, чтобы подтвердить, или 2, чтобы прослушать ещё раз.',
    keys: 'Нажмите 1, чтобы подтвердить, 2 или звёздочку, чтобы прослушать ещё раз, 0, чтобы услышать эти варианты.',
    confirmed: 'Подтверждено. До свидания.',
    testCall: 'Это тестовый звонок от ringhook. Так будут звучать ваши оповещения.',
    alertCount: (n) => `У вас ${n} ${countNoun(russianForm)(n, 'оповещение', 'оповещения', 'оповещений')}.`,
    olderHeld: (n) =>
      `И ещё ${n} ${countNoun(russianForm)(n, 'более раннее оповещение', 'более ранних оповещения', 'более ранних оповещений')}: смотрите историю.`,
    ordinal: ordinals(
      ['Первое', 'Второе', 'Третье', 'Четвёртое', 'Пятое', 'Шестое', 'Седьмое', 'Восьмое', 'Девятое', 'Десятое'],
      (n) => `Оповещение ${n}`,
    ),
  },
  {
    futuresMonths: continuous('ближний месяц', 'второй месяц'),
    perpetual: 'бессрочный',
    futures: 'фьючерс',
    shareClass: (ticker, letter) => `${ticker} класс ${letter}`,
    on: 'на',
    crosses: 'пересекает',
    utc: 'U T C',
    symbols: {
      atOrAbove: 'на уровне или выше',
      atOrBelow: 'на уровне или ниже',
      to: 'до',
      above: 'выше',
      below: 'ниже',
      at: 'по',
      and: 'и',
      up: 'вверх',
      down: 'вниз',
      about: 'около',
    },
    numberSign: 'номер',
    riskReward: 'риск к прибыли',
    ratioTo: 'к',
    date: monthDate(
      'января февраля марта апреля мая июня июля августа сентября октября ноября декабря',
      (d, m) => `${russianDay(d)} ${m}`,
    ),
    units: units({
      second: fewForms('секунда', 'секунды', 'секунд'),
      minute: fewForms('минута', 'минуты', 'минут'),
      hour: fewForms('час', 'часа', 'часов'),
      day: fewForms('день', 'дня', 'дней'),
      week: fewForms('неделя', 'недели', 'недель'),
      month: fewForms('месяц', 'месяца', 'месяцев'),
    }),
    plural: russianForm,
    // The genitive singular after a decimal: две целых пять десятых процента, доллара.
    fractionForm: 'few',
    single: { day: 'дневной', week: 'недельный', month: 'месячный' },
    // TradingView's Russian timeframes: 15м, 4Ч, 1Д, 1Н, 1М.
    ownUnits: {
      с: 'second',
      м: 'minute',
      мин: 'minute',
      ч: 'hour',
      Ч: 'hour',
      час: 'hour',
      д: 'day',
      Д: 'day',
      дн: 'day',
      н: 'week',
      Н: 'week',
      нед: 'week',
      М: 'month',
      мес: 'month',
    },
    quantities: {
      basisPoint: fewForms('базисный пункт', 'базисных пункта', 'базисных пунктов'),
      pip: fewForms('пипс', 'пипса', 'пипсов'),
      point: fewForms('пункт', 'пункта', 'пунктов'),
    },
    year: fewForms('год', 'года', 'лет'),
    currencies: {
      $: fewForms('доллар', 'доллара', 'долларов'),
      '€': same('евро'),
      '£': fewForms('фунт', 'фунта', 'фунтов'),
      '¥': fewForms('иена', 'иены', 'иен'),
    },
    percent: fewForms('процент', 'процента', 'процентов'),
    magnitudes: {
      thousand: fewForms('тысяча', 'тысячи', 'тысяч'),
      million: fewForms('миллион', 'миллиона', 'миллионов'),
      billion: fewForms('миллиард', 'миллиарда', 'миллиардов'),
      trillion: fewForms('триллион', 'триллиона', 'триллионов'),
    },
    time24: asWritten,
    time12: asWritten,
  },
);
