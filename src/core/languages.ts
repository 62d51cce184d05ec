// The languages and voices a call can speak in: one table, with each language's fixed prompts and
// the normalizer's words, written by hand (nothing is translated at run time). English says its
// numbers in words; the other languages leave digits to espeak-ng, which reads them in the
// language, with the language's decimal comma or word. Pure.
import { z } from 'zod';
import { decimalComma, digitsLanguage, english, type NumberLanguage } from './number-words.js';
import { ENGLISH_WORDS, type SpeechLanguage, type SpeechWords } from './speakable.js';

export const LANGUAGE_CODES = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'tr', 'ja', 'ko', 'zh', 'ru'] as const;
export type LanguageCode = (typeof LANGUAGE_CODES)[number];

/** What the call says around the alerts, besides the account's own intro. */
export interface Prompts {
  /** The words before the message when the account has no intro of its own. */
  intro: string;
  /** After the message: the digits a person may press. */
  prompt: string;
  /** After a 1. */
  confirmed: string;
  /** What a test call says in place of an alert. */
  testCall: string;
  /** Before the alerts of a merged call: "You have four alerts." */
  alertCount(count: number): string;
  /** Before each alert of a merged call, from 0: "First", "Second"… */
  ordinal(index: number): string;
}

/** A speech engine as the speech module runs it. */
export type VoiceEngine = 'flite' | 'festival' | 'espeak-ng';

export interface Voice {
  /** What the account stores and the CLI and dashboard take. */
  id: VoiceId;
  label: string;
  engine: VoiceEngine;
  /** The engine's own voice name; espeak-ng's is the language's (`espeak` in the language table). */
  engineVoice?: string;
}

export const VOICE_IDS = ['slt', 'slt-hts', 'espeak-ng'] as const;
export type VoiceId = (typeof VOICE_IDS)[number];

export const VOICES: Readonly<Record<VoiceId, Voice>> = {
  slt: { id: 'slt', label: 'flite, slt (US English, female)', engine: 'flite', engineVoice: 'slt' },
  'slt-hts': { id: 'slt-hts', label: 'Festival, slt HTS (US English, female, smoother)', engine: 'festival', engineVoice: 'cmu_us_slt_arctic_hts' },
  'espeak-ng': { id: 'espeak-ng', label: 'espeak-ng (every language, robotic)', engine: 'espeak-ng' },
};

export interface Language extends SpeechLanguage {
  code: LanguageCode;
  /** Its name in English, then in itself, for lists and the dashboard. */
  name: string;
  nativeName: string;
  /** espeak-ng's voice for the language. */
  espeak: string;
  /** The voices offered, the default first. */
  voices: readonly VoiceId[];
  prompts: Prompts;
  words: SpeechWords;
}

/** The account's own intro: at most this many characters. */
export const MAX_INTRO = 60;

const ORDINALS_EN = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth', 'Seventh', 'Eighth', 'Ninth', 'Tenth'];

/** The ordinal words for the first ten alerts (a call carries at most 10), then `beyond(n)`. */
const ordinals =
  (words: readonly string[], beyond: (n: number) => string) =>
  (index: number): string =>
    words[index] ?? beyond(index + 1);

/** Words that do not change with the count. */
const same = (word: string) => ({ one: word, many: word });
const units = (u: Record<'second' | 'minute' | 'hour' | 'day' | 'week' | 'month', string | { one: string; few?: string; many: string }>) =>
  Object.fromEntries(Object.entries(u).map(([k, v]) => [k, typeof v === 'string' ? same(v) : v])) as SpeechWords['units'];
const twoDigits = (n: number) => String(n).padStart(2, '0');
/** "14 Uhr 5": the hour, a word, and the minutes unless on the hour. */
const hourWord = (word: string) => (h: number, m: number) => (m === 0 ? `${h} ${word}` : `${h} ${word} ${m}`);
/** 14:05 as written: the engine reads clock times itself. */
const asWritten = (h: number, m: number) => `${h}:${twoDigits(m)}`;
/** Polish and Russian nouns after a number: 1, 2–4 (not 12–14), and the rest. */
const slavicForm = (n: number): 'one' | 'few' | 'many' => (n === 1 ? 'one' : n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14) ? 'few' : 'many');
const slavicPlural = (n: number, one: string, few: string, many: string) => ({ one, few, many })[slavicForm(n)];
/** Where the engine drops a decimal point, it is said as a word. */
const decimalWord = (word: string) => (whole: string, fraction: string) => `${whole} ${word} ${fraction}`;

function lang(code: LanguageCode, name: string, nativeName: string, espeak: string, numbers: NumberLanguage, prompts: Prompts, words: SpeechWords): Language {
  return { ...numbers, code, name, nativeName, espeak, voices: code === 'en' ? ['slt', 'slt-hts', 'espeak-ng'] : ['espeak-ng'], prompts, words };
}

export const LANGUAGES: Readonly<Record<LanguageCode, Language>> = {
  en: lang(
    'en',
    'English',
    'English',
    'en-us',
    english,
    {
      intro: 'Alert from ringhook.',
      prompt: 'Press 1 to confirm, press 2 to hear it again.',
      confirmed: 'Confirmed. Goodbye.',
      testCall: 'This is a test call from ringhook. Your alerts will sound like this.',
      alertCount: (n) => `You have ${english.cardinal(n)} alerts.`,
      ordinal: ordinals(ORDINALS_EN, (n) => `Alert ${english.cardinal(n)}`),
    },
    ENGLISH_WORDS,
  ),
  de: lang(
    'de',
    'German',
    'Deutsch',
    'de',
    digitsLanguage({ minus: 'minus', plus: 'plus', percent: 'Prozent', thousand: 'tausend', times: 'mal', decimal: decimalComma }),
    {
      intro: 'Alarm von ringhook.',
      prompt: 'Drücken Sie 1 zum Bestätigen, 2 zum erneuten Anhören.',
      confirmed: 'Bestätigt. Auf Wiederhören.',
      testCall: 'Dies ist ein Testanruf von ringhook. So klingen Ihre Alarme.',
      alertCount: (n) => `Sie haben ${n} Alarme.`,
      ordinal: ordinals(
        ['Erstens', 'Zweitens', 'Drittens', 'Viertens', 'Fünftens', 'Sechstens', 'Siebtens', 'Achtens', 'Neuntens', 'Zehntens'],
        (n) => `Alarm ${n}`,
      ),
    },
    {
      futuresMonths: { '1': 'Frontmonat', '2': 'zweiter Monat' },
      perpetual: 'Perpetual',
      dot: 'Punkt',
      on: 'an der',
      crosses: 'kreuzt',
      utc: 'U T C',
      symbols: {
        atOrAbove: 'bei oder über',
        atOrBelow: 'bei oder unter',
        to: 'bis',
        above: 'über',
        below: 'unter',
        at: 'bei',
        and: 'und',
        up: 'hoch',
        down: 'runter',
        about: 'etwa',
      },
      units: units({
        second: { one: 'Sekunde', many: 'Sekunden' },
        minute: { one: 'Minute', many: 'Minuten' },
        hour: { one: 'Stunde', many: 'Stunden' },
        day: { one: 'Tag', many: 'Tage' },
        week: { one: 'Woche', many: 'Wochen' },
        month: { one: 'Monat', many: 'Monate' },
      }),
      single: { day: 'Tageschart', week: 'Wochenchart', month: 'Monatschart' },
      currencies: { $: same('Dollar'), '€': same('Euro'), '£': same('Pfund'), '¥': same('Yen') },
      time24: hourWord('Uhr'),
      time12: hourWord('Uhr'),
    },
  ),
  fr: lang(
    'fr',
    'French',
    'Français',
    'fr',
    digitsLanguage({ minus: 'moins', plus: 'plus', percent: 'pour cent', thousand: 'mille', times: 'fois', decimal: decimalComma }),
    {
      intro: 'Alerte de ringhook.',
      prompt: 'Appuyez sur 1 pour confirmer, sur 2 pour réécouter.',
      confirmed: 'Confirmé. Au revoir.',
      testCall: 'Ceci est un appel de test de ringhook. Vos alertes sonneront ainsi.',
      alertCount: (n) => `Vous avez ${n} alertes.`,
      ordinal: ordinals(
        [
          'Premièrement',
          'Deuxièmement',
          'Troisièmement',
          'Quatrièmement',
          'Cinquièmement',
          'Sixièmement',
          'Septièmement',
          'Huitièmement',
          'Neuvièmement',
          'Dixièmement',
        ],
        (n) => `Alerte ${n}`,
      ),
    },
    {
      futuresMonths: { '1': 'échéance proche', '2': 'échéance suivante' },
      perpetual: 'perpétuel',
      dot: 'point',
      on: 'sur',
      crosses: 'croise',
      utc: 'U T C',
      symbols: {
        atOrAbove: 'à ou au-dessus de',
        atOrBelow: 'à ou en dessous de',
        to: 'vers',
        above: 'au-dessus de',
        below: 'en dessous de',
        at: 'à',
        and: 'et',
        up: 'en hausse',
        down: 'en baisse',
        about: 'environ',
      },
      units: units({
        second: { one: 'seconde', many: 'secondes' },
        minute: { one: 'minute', many: 'minutes' },
        hour: { one: 'heure', many: 'heures' },
        day: { one: 'jour', many: 'jours' },
        week: { one: 'semaine', many: 'semaines' },
        month: 'mois',
      }),
      single: { day: 'quotidien', week: 'hebdomadaire', month: 'mensuel' },
      currencies: {
        $: { one: 'dollar', many: 'dollars' },
        '€': { one: 'euro', many: 'euros' },
        '£': { one: 'livre', many: 'livres' },
        '¥': { one: 'yen', many: 'yens' },
      },
      time24: hourWord('heures'),
      time12: hourWord('heures'),
    },
  ),
  es: lang(
    'es',
    'Spanish',
    'Español',
    'es',
    digitsLanguage({ minus: 'menos', plus: 'más', percent: 'por ciento', thousand: 'mil', times: 'veces', decimal: decimalComma }),
    {
      intro: 'Alerta de ringhook.',
      prompt: 'Pulse 1 para confirmar, pulse 2 para escucharla de nuevo.',
      confirmed: 'Confirmado. Adiós.',
      testCall: 'Esta es una llamada de prueba de ringhook. Así sonarán sus alertas.',
      alertCount: (n) => `Tiene ${n} alertas.`,
      ordinal: ordinals(['Primera', 'Segunda', 'Tercera', 'Cuarta', 'Quinta', 'Sexta', 'Séptima', 'Octava', 'Novena', 'Décima'], (n) => `Alerta ${n}`),
    },
    {
      futuresMonths: { '1': 'primer vencimiento', '2': 'segundo vencimiento' },
      perpetual: 'perpetuo',
      dot: 'punto',
      on: 'en',
      crosses: 'cruza',
      utc: 'U T C',
      symbols: {
        atOrAbove: 'en o por encima de',
        atOrBelow: 'en o por debajo de',
        to: 'a',
        above: 'por encima de',
        below: 'por debajo de',
        at: 'en',
        and: 'y',
        up: 'sube',
        down: 'baja',
        about: 'aproximadamente',
      },
      units: units({
        second: { one: 'segundo', many: 'segundos' },
        minute: { one: 'minuto', many: 'minutos' },
        hour: { one: 'hora', many: 'horas' },
        day: { one: 'día', many: 'días' },
        week: { one: 'semana', many: 'semanas' },
        month: { one: 'mes', many: 'meses' },
      }),
      single: { day: 'diario', week: 'semanal', month: 'mensual' },
      currencies: {
        $: { one: 'dólar', many: 'dólares' },
        '€': { one: 'euro', many: 'euros' },
        '£': { one: 'libra', many: 'libras' },
        '¥': { one: 'yen', many: 'yenes' },
      },
      time24: asWritten,
      time12: asWritten,
    },
  ),
  it: lang(
    'it',
    'Italian',
    'Italiano',
    'it',
    digitsLanguage({ minus: 'meno', plus: 'più', percent: 'per cento', thousand: 'mila', times: 'volte', decimal: decimalComma }),
    {
      intro: 'Avviso da ringhook.',
      prompt: 'Premi 1 per confermare, premi 2 per riascoltarlo.',
      confirmed: 'Confermato. Arrivederci.',
      testCall: 'Questa è una chiamata di prova da ringhook. I tuoi avvisi suoneranno così.',
      alertCount: (n) => `Hai ${n} avvisi.`,
      ordinal: ordinals(['Primo', 'Secondo', 'Terzo', 'Quarto', 'Quinto', 'Sesto', 'Settimo', 'Ottavo', 'Nono', 'Decimo'], (n) => `Avviso ${n}`),
    },
    {
      futuresMonths: { '1': 'scadenza più vicina', '2': 'seconda scadenza' },
      perpetual: 'perpetuo',
      dot: 'punto',
      on: 'su',
      crosses: 'incrocia',
      utc: 'U T C',
      symbols: {
        atOrAbove: 'a o sopra',
        atOrBelow: 'a o sotto',
        to: 'verso',
        above: 'sopra',
        below: 'sotto',
        at: 'a',
        and: 'e',
        up: 'su',
        down: 'giù',
        about: 'circa',
      },
      units: units({
        second: { one: 'secondo', many: 'secondi' },
        minute: { one: 'minuto', many: 'minuti' },
        hour: { one: 'ora', many: 'ore' },
        day: { one: 'giorno', many: 'giorni' },
        week: { one: 'settimana', many: 'settimane' },
        month: { one: 'mese', many: 'mesi' },
      }),
      single: { day: 'giornaliero', week: 'settimanale', month: 'mensile' },
      currencies: { $: { one: 'dollaro', many: 'dollari' }, '€': same('euro'), '£': { one: 'sterlina', many: 'sterline' }, '¥': same('yen') },
      time24: asWritten,
      time12: asWritten,
    },
  ),
  pt: lang(
    'pt',
    'Portuguese',
    'Português',
    'pt',
    digitsLanguage({ minus: 'menos', plus: 'mais', percent: 'por cento', thousand: 'mil', times: 'vezes', decimal: decimalComma }),
    {
      intro: 'Alerta do ringhook.',
      prompt: 'Prima 1 para confirmar, prima 2 para ouvir de novo.',
      confirmed: 'Confirmado. Adeus.',
      testCall: 'Esta é uma chamada de teste do ringhook. Os seus alertas vão soar assim.',
      alertCount: (n) => `Tem ${n} alertas.`,
      ordinal: ordinals(['Primeiro', 'Segundo', 'Terceiro', 'Quarto', 'Quinto', 'Sexto', 'Sétimo', 'Oitavo', 'Nono', 'Décimo'], (n) => `Alerta ${n}`),
    },
    {
      futuresMonths: { '1': 'primeiro vencimento', '2': 'segundo vencimento' },
      perpetual: 'perpétuo',
      dot: 'ponto',
      on: 'na',
      crosses: 'cruza',
      utc: 'U T C',
      symbols: {
        atOrAbove: 'em ou acima de',
        atOrBelow: 'em ou abaixo de',
        to: 'para',
        above: 'acima de',
        below: 'abaixo de',
        at: 'em',
        and: 'e',
        up: 'sobe',
        down: 'desce',
        about: 'cerca de',
      },
      units: units({
        second: { one: 'segundo', many: 'segundos' },
        minute: { one: 'minuto', many: 'minutos' },
        hour: { one: 'hora', many: 'horas' },
        day: { one: 'dia', many: 'dias' },
        week: { one: 'semana', many: 'semanas' },
        month: { one: 'mês', many: 'meses' },
      }),
      single: { day: 'diário', week: 'semanal', month: 'mensal' },
      currencies: {
        $: { one: 'dólar', many: 'dólares' },
        '€': { one: 'euro', many: 'euros' },
        '£': { one: 'libra', many: 'libras' },
        '¥': { one: 'iene', many: 'ienes' },
      },
      time24: asWritten,
      time12: asWritten,
    },
  ),
  nl: lang(
    'nl',
    'Dutch',
    'Nederlands',
    'nl',
    digitsLanguage({ minus: 'min', plus: 'plus', percent: 'procent', thousand: 'duizend', times: 'keer', decimal: decimalComma }),
    {
      intro: 'Melding van ringhook.',
      prompt: 'Druk op 1 om te bevestigen, druk op 2 om het opnieuw te horen.',
      confirmed: 'Bevestigd. Tot ziens.',
      testCall: 'Dit is een testoproep van ringhook. Zo klinken uw meldingen.',
      alertCount: (n) => `U hebt ${n} meldingen.`,
      ordinal: ordinals(['Eerste', 'Tweede', 'Derde', 'Vierde', 'Vijfde', 'Zesde', 'Zevende', 'Achtste', 'Negende', 'Tiende'], (n) => `Melding ${n}`),
    },
    {
      futuresMonths: { '1': 'eerste expiratie', '2': 'tweede expiratie' },
      perpetual: 'perpetual',
      dot: 'punt',
      on: 'op',
      crosses: 'kruist',
      utc: 'U T C',
      symbols: {
        atOrAbove: 'op of boven',
        atOrBelow: 'op of onder',
        to: 'naar',
        above: 'boven',
        below: 'onder',
        at: 'op',
        and: 'en',
        up: 'omhoog',
        down: 'omlaag',
        about: 'ongeveer',
      },
      units: units({
        second: { one: 'seconde', many: 'seconden' },
        minute: { one: 'minuut', many: 'minuten' },
        hour: 'uur',
        day: { one: 'dag', many: 'dagen' },
        week: { one: 'week', many: 'weken' },
        month: { one: 'maand', many: 'maanden' },
      }),
      single: { day: 'dagelijks', week: 'wekelijks', month: 'maandelijks' },
      currencies: { $: same('dollar'), '€': same('euro'), '£': same('pond'), '¥': same('yen') },
      time24: hourWord('uur'),
      time12: hourWord('uur'),
    },
  ),
  pl: lang(
    'pl',
    'Polish',
    'Polski',
    'pl',
    digitsLanguage({ minus: 'minus', plus: 'plus', percent: 'procent', thousand: 'tysięcy', times: 'razy', decimal: decimalComma }),
    {
      intro: 'Alert od ringhook.',
      prompt: 'Naciśnij 1, aby potwierdzić, naciśnij 2, aby odsłuchać ponownie.',
      confirmed: 'Potwierdzono. Do widzenia.',
      testCall: 'To jest połączenie testowe od ringhook. Tak będą brzmieć twoje alerty.',
      alertCount: (n) => `Masz ${n} ${slavicPlural(n, 'alert', 'alerty', 'alertów')}.`,
      ordinal: ordinals(['Pierwszy', 'Drugi', 'Trzeci', 'Czwarty', 'Piąty', 'Szósty', 'Siódmy', 'Ósmy', 'Dziewiąty', 'Dziesiąty'], (n) => `Alert ${n}`),
    },
    {
      futuresMonths: { '1': 'najbliższa seria', '2': 'druga seria' },
      perpetual: 'bezterminowy',
      dot: 'kropka',
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
      units: units({
        second: { one: 'sekunda', few: 'sekundy', many: 'sekund' },
        minute: { one: 'minuta', few: 'minuty', many: 'minut' },
        hour: { one: 'godzina', few: 'godziny', many: 'godzin' },
        day: { one: 'dzień', few: 'dni', many: 'dni' },
        week: { one: 'tydzień', few: 'tygodnie', many: 'tygodni' },
        month: { one: 'miesiąc', few: 'miesiące', many: 'miesięcy' },
      }),
      plural: slavicForm,
      single: { day: 'dzienny', week: 'tygodniowy', month: 'miesięczny' },
      currencies: { $: { one: 'dolar', many: 'dolarów' }, '€': same('euro'), '£': { one: 'funt', many: 'funtów' }, '¥': { one: 'jen', many: 'jenów' } },
      time24: asWritten,
      time12: asWritten,
    },
  ),
  tr: lang(
    'tr',
    'Turkish',
    'Türkçe',
    'tr',
    digitsLanguage({ minus: 'eksi', plus: 'artı', percent: 'yüzde', thousand: 'bin', times: 'kat', decimal: decimalComma }),
    {
      intro: 'ringhook uyarısı.',
      prompt: "Onaylamak için 1'e, tekrar dinlemek için 2'ye basın.",
      confirmed: 'Onaylandı. Hoşça kalın.',
      testCall: 'Bu, ringhook tarafından yapılan bir test aramasıdır. Uyarılarınız böyle duyulacak.',
      alertCount: (n) => `${n} uyarınız var.`,
      ordinal: ordinals(['Birinci', 'İkinci', 'Üçüncü', 'Dördüncü', 'Beşinci', 'Altıncı', 'Yedinci', 'Sekizinci', 'Dokuzuncu', 'Onuncu'], (n) => `Uyarı ${n}`),
    },
    {
      futuresMonths: { '1': 'yakın vade', '2': 'ikinci vade' },
      perpetual: 'vadesiz',
      dot: 'nokta',
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
      units: units({ second: 'saniye', minute: 'dakika', hour: 'saat', day: 'gün', week: 'hafta', month: 'ay' }),
      single: { day: 'günlük', week: 'haftalık', month: 'aylık' },
      currencies: { $: same('dolar'), '€': same('euro'), '£': same('sterlin'), '¥': same('yen') },
      time24: asWritten,
      time12: asWritten,
    },
  ),
  // Kana only: espeak-ng reads kanji as "Chinese letter".
  ja: lang(
    'ja',
    'Japanese',
    '日本語',
    'ja',
    digitsLanguage({ minus: 'マイナス', plus: 'プラス', percent: 'パーセント', thousand: 'せん', times: 'ばい', decimal: decimalWord('てん') }),
    {
      intro: 'リングフック からの アラート です。',
      prompt: 'かくにん する には 1 を、 もう いちど きく には 2 を おして ください。',
      confirmed: 'かくにん しました。 しつれい します。',
      testCall: 'これは リングフック からの テスト でんわ です。 アラートは このように きこえます。',
      alertCount: (n) => `アラートが ${n} けん あります。`,
      ordinal: ordinals(
        ['いっけんめ', 'にけんめ', 'さんけんめ', 'よんけんめ', 'ごけんめ', 'ろっけんめ', 'ななけんめ', 'はっけんめ', 'きゅうけんめ', 'じゅっけんめ'],
        (n) => `${n} けんめ`,
      ),
    },
    {
      futuresMonths: { '1': 'ちかぎり', '2': 'じげつ' },
      perpetual: 'むきげん',
      dot: 'ドット',
      on: '、',
      crosses: 'クロス',
      utc: 'U T C',
      symbols: {
        atOrAbove: 'いじょう',
        atOrBelow: 'いか',
        to: 'から',
        above: 'うわまわり',
        below: 'したまわり',
        at: 'で',
        and: 'と',
        up: 'あげ',
        down: 'さげ',
        about: 'やく',
      },
      units: units({ second: 'びょう', minute: 'ふん', hour: 'じかん', day: 'にち', week: 'しゅう', month: 'かげつ' }),
      single: { day: 'ひあし', week: 'しゅうあし', month: 'つきあし' },
      currencies: { $: same('ドル'), '€': same('ユーロ'), '£': same('ポンド'), '¥': same('えん') },
      time24: (h, m) => (m === 0 ? `${h} じ` : `${h} じ ${m} ふん`),
      time12: (h, m) => (m === 0 ? `${h} じ` : `${h} じ ${m} ふん`),
    },
  ),
  ko: lang(
    'ko',
    'Korean',
    '한국어',
    'ko',
    digitsLanguage({ minus: '마이너스', plus: '플러스', percent: '퍼센트', thousand: '천', times: '배', decimal: decimalWord('점') }),
    {
      intro: '링훅 알림입니다.',
      prompt: '확인하려면 1번, 다시 들으려면 2번을 누르세요.',
      confirmed: '확인되었습니다. 안녕히 계세요.',
      testCall: '링훅의 테스트 전화입니다. 알림은 이렇게 들립니다.',
      alertCount: (n) => `알림이 ${n}개 있습니다.`,
      ordinal: ordinals(['첫째', '둘째', '셋째', '넷째', '다섯째', '여섯째', '일곱째', '여덟째', '아홉째', '열째'], (n) => `알림 ${n}`),
    },
    {
      futuresMonths: { '1': '근월물', '2': '차월물' },
      perpetual: '무기한',
      dot: '점',
      on: ',',
      crosses: '교차',
      utc: 'U T C',
      symbols: {
        atOrAbove: '이상',
        atOrBelow: '이하',
        to: '에서',
        above: '초과',
        below: '미만',
        at: '에',
        and: '그리고',
        up: '상승',
        down: '하락',
        about: '약',
      },
      units: units({ second: '초', minute: '분', hour: '시간', day: '일', week: '주', month: '개월' }),
      single: { day: '일봉', week: '주봉', month: '월봉' },
      currencies: { $: same('달러'), '€': same('유로'), '£': same('파운드'), '¥': same('엔') },
      time24: (h, m) => (m === 0 ? `${h}시` : `${h}시 ${m}분`),
      time12: (h, m) => (m === 0 ? `${h}시` : `${h}시 ${m}분`),
    },
  ),
  // Mandarin, with espeak-ng's pinyin voice: its plain cmn voice reads tone numbers in English.
  zh: lang(
    'zh',
    'Chinese (Mandarin)',
    '中文',
    'cmn-latn-pinyin',
    digitsLanguage({ minus: '负', plus: '正', percent: '百分点', thousand: '千', times: '倍', decimal: decimalWord('点') }),
    {
      intro: '这是您的交易提醒。',
      prompt: '确认请按1，重听请按2。',
      confirmed: '已确认。再见。',
      testCall: '这是一个测试电话。您的提醒听起来就是这样。',
      alertCount: (n) => `您有${n}条提醒。`,
      ordinal: ordinals(['第一条', '第二条', '第三条', '第四条', '第五条', '第六条', '第七条', '第八条', '第九条', '第十条'], (n) => `第${n}条`),
    },
    {
      futuresMonths: { '1': '近月', '2': '次月' },
      perpetual: '永续',
      dot: '点',
      on: '，',
      crosses: '穿过',
      utc: 'U T C',
      symbols: {
        atOrAbove: '不低于',
        atOrBelow: '不高于',
        to: '到',
        above: '高于',
        below: '低于',
        at: '在',
        and: '和',
        up: '上涨',
        down: '下跌',
        about: '约',
      },
      units: units({ second: '秒', minute: '分钟', hour: '小时', day: '天', week: '周', month: '个月' }),
      single: { day: '日线', week: '周线', month: '月线' },
      currencies: { $: same('美元'), '€': same('欧元'), '£': same('英镑'), '¥': same('日元') },
      time24: (h, m) => (m === 0 ? `${h}点` : `${h}点${m}分`),
      time12: (h, m) => (m === 0 ? `${h}点` : `${h}点${m}分`),
    },
  ),
  ru: lang(
    'ru',
    'Russian',
    'Русский',
    'ru',
    digitsLanguage({ minus: 'минус', plus: 'плюс', percent: 'процентов', thousand: 'тысяч', times: 'раз', decimal: decimalComma }),
    {
      intro: 'Оповещение от ringhook.',
      prompt: 'Нажмите 1, чтобы подтвердить, или 2, чтобы прослушать ещё раз.',
      confirmed: 'Подтверждено. До свидания.',
      testCall: 'Это тестовый звонок от ringhook. Так будут звучать ваши оповещения.',
      alertCount: (n) => `У вас ${n} ${slavicPlural(n, 'оповещение', 'оповещения', 'оповещений')}.`,
      ordinal: ordinals(['Первое', 'Второе', 'Третье', 'Четвёртое', 'Пятое', 'Шестое', 'Седьмое', 'Восьмое', 'Девятое', 'Десятое'], (n) => `Оповещение ${n}`),
    },
    {
      futuresMonths: { '1': 'ближний месяц', '2': 'второй месяц' },
      perpetual: 'бессрочный',
      dot: 'точка',
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
      units: units({
        second: { one: 'секунда', few: 'секунды', many: 'секунд' },
        minute: { one: 'минута', few: 'минуты', many: 'минут' },
        hour: { one: 'час', few: 'часа', many: 'часов' },
        day: { one: 'день', few: 'дня', many: 'дней' },
        week: { one: 'неделя', few: 'недели', many: 'недель' },
        month: { one: 'месяц', few: 'месяца', many: 'месяцев' },
      }),
      plural: slavicForm,
      single: { day: 'дневной', week: 'недельный', month: 'месячный' },
      currencies: { $: { one: 'доллар', many: 'долларов' }, '€': same('евро'), '£': { one: 'фунт', many: 'фунтов' }, '¥': { one: 'иена', many: 'иен' } },
      time24: asWritten,
      time12: asWritten,
    },
  ),
};

export const DEFAULT_LANGUAGE: LanguageCode = 'en';

const list = (items: readonly string[]) => items.join(', ');

export const languageSchema = z.enum(LANGUAGE_CODES, { error: `the language must be one of ${list(LANGUAGE_CODES)}` });

export const voiceSchema = z.enum(VOICE_IDS, { error: `the voice must be one of ${list(VOICE_IDS)}` });

export function defaultVoice(language: LanguageCode): VoiceId {
  return LANGUAGES[language].voices[0]!;
}

/** Why the voice cannot speak the language, or undefined when it can. */
export function voiceProblem(language: LanguageCode, voice: VoiceId): string | undefined {
  const offered = LANGUAGES[language].voices;
  return offered.includes(voice) ? undefined : `the voice ${voice} does not speak ${LANGUAGES[language].name}: offered for ${language}: ${list(offered)}`;
}

/**
 * The language and voice after a change: a voice given must speak the language; without one, the
 * current voice is kept when it speaks the new language, else the language's default is taken.
 */
export function chooseVoice(
  current: { language: LanguageCode; voice: VoiceId },
  change: { language?: LanguageCode | undefined; voice?: VoiceId | undefined },
): { ok: true; language: LanguageCode; voice: VoiceId } | { ok: false; error: string } {
  const language = change.language ?? current.language;
  if (change.voice !== undefined) {
    const problem = voiceProblem(language, change.voice);
    return problem ? { ok: false, error: problem } : { ok: true, language, voice: change.voice };
  }
  const voice = voiceProblem(language, current.voice) === undefined ? current.voice : defaultVoice(language);
  return { ok: true, language, voice };
}

/** The account's spoken intro: a short line; empty (null) for the language's own. */
export const introSchema = z
  .string()
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .max(MAX_INTRO, { error: `the intro must be at most ${MAX_INTRO} characters` })
      .refine((s) => !/[\u0000-\u001F\u007F]/.test(s), { error: 'the intro must not contain control characters' }),
  )
  .transform((s) => (s === '' ? null : s));

/** What the call says before the message: the account's own intro, or its language's. */
export function introFor(account: { language: LanguageCode; intro: string | null }): string {
  return account.intro ?? LANGUAGES[account.language].prompts.intro;
}

/** The engine and its voice name for the account's voice; undefined: the server's own speech. */
export interface Synthesis {
  engine: VoiceEngine;
  voice: string;
}

/** How a call speaks: its language (prompts and words), the intro, and the engine. */
export interface CallSpeech {
  language: Language;
  intro: string;
  /** Absent for English with the default voice: the server's speech (RINGHOOK_TTS_COMMAND, RINGHOOK_TTS_ENGINE), flite slt unless the operator chose otherwise. */
  synthesis?: Synthesis;
}

export function callSpeech(account: { language: LanguageCode; voice: VoiceId; intro: string | null }): CallSpeech {
  const language = LANGUAGES[account.language];
  const intro = introFor(account);
  if (account.language === DEFAULT_LANGUAGE && account.voice === defaultVoice(DEFAULT_LANGUAGE)) return { language, intro };
  const voice = VOICES[account.voice];
  return { language, intro, synthesis: { engine: voice.engine, voice: voice.engineVoice ?? language.espeak } };
}

/** An account that never chose: English, the default voice and intro. */
export const DEFAULT_SPEECH: CallSpeech = callSpeech({ language: DEFAULT_LANGUAGE, voice: defaultVoice(DEFAULT_LANGUAGE), intro: null });
