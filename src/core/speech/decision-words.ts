// What a call with decision keys (#56) says, in each offered language, written by hand like the
// language tables: the choices after the message, the PIN's requests and the decision's end. The
// labels are the owner's own words, said as written. Pure.
import type { DecisionKey } from '../calls/decision-keys.js';
import type { LanguageCode } from './language-types.js';

export interface DecisionWords {
  /** After the message: "Press 7 for buy, 8 for skip." */
  choices(keys: readonly DecisionKey[]): string;
  enterPin: string;
  /** A wrong PIN with tries left. */
  wrongPin: string;
  /** The last wrong PIN: nothing is sent, the call ends. */
  refused: string;
  /** Said only once the decision is durably recorded: "Buy. Sent." */
  sent(label: string): string;
  /** The decision could not be recorded (the store did not answer). */
  notSent: string;
}

/** The # key's name in each language (the others are digits, which the engines say). */
const HASH: Readonly<Record<LanguageCode, string>> = {
  en: 'hash',
  de: 'Raute',
  fr: 'dièse',
  es: 'almohadilla',
  it: 'cancelletto',
  pt: 'cardinal',
  nl: 'hekje',
  pl: 'krzyżyk',
  tr: 'kare',
  ja: 'シャープ',
  ko: '우물 정',
  zh: '井号键',
  ru: 'решётку',
};

const spokenKey = (code: LanguageCode, key: string): string => (key === '#' ? HASH[code] : key);

/**
 * Each language's phrases as written: `first` says the first key and its label ("Press {key} for
 * {label}"), `rest` each further one (`first` when not given), joined by `separator` (", ") and
 * closed by `end` ("."). In `sent`, {Label} is the label with its first letter capitalised.
 */
interface Phrases extends Pick<DecisionWords, 'enterPin' | 'wrongPin' | 'refused' | 'notSent'> {
  first: string;
  rest?: string;
  end?: string;
  separator?: string;
  sent: string;
}

const PHRASES: Readonly<Record<LanguageCode, Phrases>> = {
  en: {
    first: 'Press {key} for {label}',
    rest: '{key} for {label}',
    enterPin: 'Enter your PIN, then hash.',
    wrongPin: 'Wrong PIN. Try again.',
    refused: 'Wrong PIN. Nothing was sent. Goodbye.',
    sent: '{Label}. Sent.',
    notSent: 'Your decision could not be sent. Goodbye.',
  },
  de: {
    first: 'Drücken Sie {key} für {label}',
    rest: '{key} für {label}',
    enterPin: 'Geben Sie Ihre PIN ein, dann Raute.',
    wrongPin: 'Falsche PIN. Bitte noch einmal.',
    refused: 'Falsche PIN. Es wurde nichts gesendet. Auf Wiederhören.',
    sent: '{Label}. Gesendet.',
    notSent: 'Ihre Entscheidung konnte nicht gesendet werden. Auf Wiederhören.',
  },
  fr: {
    first: 'Appuyez sur {key} pour {label}',
    rest: 'sur {key} pour {label}',
    enterPin: 'Entrez votre code PIN, puis dièse.',
    wrongPin: 'Code PIN erroné. Recommencez.',
    refused: "Code PIN erroné. Rien n'a été envoyé. Au revoir.",
    sent: '{Label}. Envoyé.',
    notSent: "Votre décision n'a pas pu être envoyée. Au revoir.",
  },
  es: {
    first: 'Pulse {key} para {label}',
    rest: '{key} para {label}',
    enterPin: 'Introduzca su PIN y después almohadilla.',
    wrongPin: 'PIN incorrecto. Inténtelo de nuevo.',
    refused: 'PIN incorrecto. No se ha enviado nada. Adiós.',
    sent: '{Label}. Enviado.',
    notSent: 'No se pudo enviar su decisión. Adiós.',
  },
  it: {
    first: 'Premi {key} per {label}',
    rest: '{key} per {label}',
    enterPin: 'Inserisci il PIN, poi cancelletto.',
    wrongPin: 'PIN errato. Riprova.',
    refused: 'PIN errato. Non è stato inviato nulla. Arrivederci.',
    sent: '{Label}. Inviato.',
    notSent: 'Non è stato possibile inviare la tua decisione. Arrivederci.',
  },
  pt: {
    first: 'Prima {key} para {label}',
    rest: '{key} para {label}',
    enterPin: 'Introduza o seu PIN e depois cardinal.',
    wrongPin: 'PIN errado. Tente de novo.',
    refused: 'PIN errado. Nada foi enviado. Adeus.',
    sent: '{Label}. Enviado.',
    notSent: 'Não foi possível enviar a sua decisão. Adeus.',
  },
  nl: {
    first: 'Druk op {key} voor {label}',
    rest: '{key} voor {label}',
    enterPin: 'Voer uw pincode in, dan hekje.',
    wrongPin: 'Verkeerde pincode. Probeer het opnieuw.',
    refused: 'Verkeerde pincode. Er is niets verstuurd. Tot ziens.',
    sent: '{Label}. Verstuurd.',
    notSent: 'Uw beslissing kon niet worden verstuurd. Tot ziens.',
  },
  pl: {
    first: 'Naciśnij {key}: {label}',
    rest: '{key}: {label}',
    enterPin: 'Wprowadź PIN, potem krzyżyk.',
    wrongPin: 'Błędny PIN. Spróbuj ponownie.',
    refused: 'Błędny PIN. Nic nie zostało wysłane. Do widzenia.',
    sent: '{Label}. Wysłano.',
    notSent: 'Nie udało się wysłać decyzji. Do widzenia.',
  },
  tr: {
    first: '{label} için {key}',
    end: ' tuşlayın.',
    enterPin: 'PIN kodunuzu girin, ardından kare.',
    wrongPin: 'Yanlış PIN. Tekrar deneyin.',
    refused: 'Yanlış PIN. Hiçbir şey gönderilmedi. Hoşça kalın.',
    sent: '{Label}. Gönderildi.',
    notSent: 'Kararınız gönderilemedi. Hoşça kalın.',
  },
  ja: {
    first: '{label} は {key}',
    end: ' を おして ください。',
    separator: '、 ',
    enterPin: 'あんしょう ばんごう を にゅうりょく して、 さいごに シャープ を おして ください。',
    wrongPin: 'あんしょう ばんごう が ちがいます。 もう いちど どうぞ。',
    refused: 'あんしょう ばんごう が ちがいます。 なにも そうしん して いません。 しつれい します。',
    sent: '{label}。 そうしん しました。',
    notSent: 'そうしん できません でした。 しつれい します。',
  },
  ko: {
    first: '{label}은 {key}번',
    end: '을 누르세요.',
    enterPin: '비밀번호를 입력하고 우물 정 자를 누르세요.',
    wrongPin: '비밀번호가 틀렸습니다. 다시 입력하세요.',
    refused: '비밀번호가 틀렸습니다. 아무것도 보내지 않았습니다. 안녕히 계세요.',
    sent: '{label}. 보냈습니다.',
    notSent: '결정을 보내지 못했습니다. 안녕히 계세요.',
  },
  zh: {
    first: '{label}请按{key}',
    end: '。',
    separator: '，',
    enterPin: '请输入您的密码，然后按井号键。',
    wrongPin: '密码错误，请重新输入。',
    refused: '密码错误，没有发送任何内容。再见。',
    sent: '{label}。已发送。',
    notSent: '您的决定未能发送。再见。',
  },
  ru: {
    first: 'Нажмите {key}: {label}',
    rest: '{key}: {label}',
    enterPin: 'Введите PIN-код, затем решётку.',
    wrongPin: 'Неверный PIN-код. Попробуйте ещё раз.',
    refused: 'Неверный PIN-код. Ничего не отправлено. До свидания.',
    sent: '{Label}. Отправлено.',
    notSent: 'Не удалось отправить ваше решение. До свидания.',
  },
};

const capitalised = (label: string): string => label.charAt(0).toLocaleUpperCase() + label.slice(1);

/** The phrase with its {key}, {label} and {Label} filled in (once: what is filled in is said as it is). */
const filled = (phrase: string, key: string, label: string): string =>
  phrase.replace(/\{(key|label|Label)\}/g, (_, name: string) =>
    name === 'key' ? key : name === 'label' ? label : capitalised(label),
  );

function decisionWords(
  code: LanguageCode,
  { first, rest = first, end = '.', separator = ', ', sent, ...said }: Phrases,
) {
  return {
    ...said,
    choices: (keys: readonly DecisionKey[]) =>
      keys
        .map(({ key, label }, i) => filled(i === 0 ? first : rest, spokenKey(code, key), label))
        .join(separator)
        .concat(end),
    sent: (label: string) => filled(sent, '', label),
  };
}

export const DECISION_WORDS: Readonly<Record<LanguageCode, DecisionWords>> = Object.fromEntries(
  Object.entries(PHRASES).map(([code, phrases]) => [code, decisionWords(code as LanguageCode, phrases)]),
) as Record<LanguageCode, DecisionWords>;
