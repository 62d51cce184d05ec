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

/** "Press 7 for buy, 8 for skip.": the first pair with the verb, the rest after a comma. */
function choicesSaid(
  code: LanguageCode,
  first: (key: string, label: string) => string,
  rest: (key: string, label: string) => string,
  end = '.',
  separator = ', ',
) {
  return (keys: readonly DecisionKey[]) =>
    keys
      .map(({ key, label }, i) => (i === 0 ? first : rest)(spokenKey(code, key), label))
      .join(separator)
      .concat(end);
}

const capitalised = (label: string): string => label.charAt(0).toLocaleUpperCase() + label.slice(1);

export const DECISION_WORDS: Readonly<Record<LanguageCode, DecisionWords>> = {
  en: {
    choices: choicesSaid(
      'en',
      (k, l) => `Press ${k} for ${l}`,
      (k, l) => `${k} for ${l}`,
    ),
    enterPin: 'Enter your PIN, then hash.',
    wrongPin: 'Wrong PIN. Try again.',
    refused: 'Wrong PIN. Nothing was sent. Goodbye.',
    sent: (l) => `${capitalised(l)}. Sent.`,
    notSent: 'Your decision could not be sent. Goodbye.',
  },
  de: {
    choices: choicesSaid(
      'de',
      (k, l) => `Drücken Sie ${k} für ${l}`,
      (k, l) => `${k} für ${l}`,
    ),
    enterPin: 'Geben Sie Ihre PIN ein, dann Raute.',
    wrongPin: 'Falsche PIN. Bitte noch einmal.',
    refused: 'Falsche PIN. Es wurde nichts gesendet. Auf Wiederhören.',
    sent: (l) => `${capitalised(l)}. Gesendet.`,
    notSent: 'Ihre Entscheidung konnte nicht gesendet werden. Auf Wiederhören.',
  },
  fr: {
    choices: choicesSaid(
      'fr',
      (k, l) => `Appuyez sur ${k} pour ${l}`,
      (k, l) => `sur ${k} pour ${l}`,
    ),
    enterPin: 'Entrez votre code PIN, puis dièse.',
    wrongPin: 'Code PIN erroné. Recommencez.',
    refused: "Code PIN erroné. Rien n'a été envoyé. Au revoir.",
    sent: (l) => `${capitalised(l)}. Envoyé.`,
    notSent: "Votre décision n'a pas pu être envoyée. Au revoir.",
  },
  es: {
    choices: choicesSaid(
      'es',
      (k, l) => `Pulse ${k} para ${l}`,
      (k, l) => `${k} para ${l}`,
    ),
    enterPin: 'Introduzca su PIN y después almohadilla.',
    wrongPin: 'PIN incorrecto. Inténtelo de nuevo.',
    refused: 'PIN incorrecto. No se ha enviado nada. Adiós.',
    sent: (l) => `${capitalised(l)}. Enviado.`,
    notSent: 'No se pudo enviar su decisión. Adiós.',
  },
  it: {
    choices: choicesSaid(
      'it',
      (k, l) => `Premi ${k} per ${l}`,
      (k, l) => `${k} per ${l}`,
    ),
    enterPin: 'Inserisci il PIN, poi cancelletto.',
    wrongPin: 'PIN errato. Riprova.',
    refused: 'PIN errato. Non è stato inviato nulla. Arrivederci.',
    sent: (l) => `${capitalised(l)}. Inviato.`,
    notSent: 'Non è stato possibile inviare la tua decisione. Arrivederci.',
  },
  pt: {
    choices: choicesSaid(
      'pt',
      (k, l) => `Prima ${k} para ${l}`,
      (k, l) => `${k} para ${l}`,
    ),
    enterPin: 'Introduza o seu PIN e depois cardinal.',
    wrongPin: 'PIN errado. Tente de novo.',
    refused: 'PIN errado. Nada foi enviado. Adeus.',
    sent: (l) => `${capitalised(l)}. Enviado.`,
    notSent: 'Não foi possível enviar a sua decisão. Adeus.',
  },
  nl: {
    choices: choicesSaid(
      'nl',
      (k, l) => `Druk op ${k} voor ${l}`,
      (k, l) => `${k} voor ${l}`,
    ),
    enterPin: 'Voer uw pincode in, dan hekje.',
    wrongPin: 'Verkeerde pincode. Probeer het opnieuw.',
    refused: 'Verkeerde pincode. Er is niets verstuurd. Tot ziens.',
    sent: (l) => `${capitalised(l)}. Verstuurd.`,
    notSent: 'Uw beslissing kon niet worden verstuurd. Tot ziens.',
  },
  pl: {
    choices: choicesSaid(
      'pl',
      (k, l) => `Naciśnij ${k}: ${l}`,
      (k, l) => `${k}: ${l}`,
    ),
    enterPin: 'Wprowadź PIN, potem krzyżyk.',
    wrongPin: 'Błędny PIN. Spróbuj ponownie.',
    refused: 'Błędny PIN. Nic nie zostało wysłane. Do widzenia.',
    sent: (l) => `${capitalised(l)}. Wysłano.`,
    notSent: 'Nie udało się wysłać decyzji. Do widzenia.',
  },
  tr: {
    choices: choicesSaid(
      'tr',
      (k, l) => `${l} için ${k}`,
      (k, l) => `${l} için ${k}`,
      ' tuşlayın.',
    ),
    enterPin: 'PIN kodunuzu girin, ardından kare.',
    wrongPin: 'Yanlış PIN. Tekrar deneyin.',
    refused: 'Yanlış PIN. Hiçbir şey gönderilmedi. Hoşça kalın.',
    sent: (l) => `${capitalised(l)}. Gönderildi.`,
    notSent: 'Kararınız gönderilemedi. Hoşça kalın.',
  },
  ja: {
    choices: choicesSaid(
      'ja',
      (k, l) => `${l} は ${k}`,
      (k, l) => `${l} は ${k}`,
      ' を おして ください。',
      '、 ',
    ),
    enterPin: 'あんしょう ばんごう を にゅうりょく して、 さいごに シャープ を おして ください。',
    wrongPin: 'あんしょう ばんごう が ちがいます。 もう いちど どうぞ。',
    refused: 'あんしょう ばんごう が ちがいます。 なにも そうしん して いません。 しつれい します。',
    sent: (l) => `${l}。 そうしん しました。`,
    notSent: 'そうしん できません でした。 しつれい します。',
  },
  ko: {
    choices: choicesSaid(
      'ko',
      (k, l) => `${l}은 ${k}번`,
      (k, l) => `${l}은 ${k}번`,
      '을 누르세요.',
    ),
    enterPin: '비밀번호를 입력하고 우물 정 자를 누르세요.',
    wrongPin: '비밀번호가 틀렸습니다. 다시 입력하세요.',
    refused: '비밀번호가 틀렸습니다. 아무것도 보내지 않았습니다. 안녕히 계세요.',
    sent: (l) => `${l}. 보냈습니다.`,
    notSent: '결정을 보내지 못했습니다. 안녕히 계세요.',
  },
  zh: {
    choices: choicesSaid(
      'zh',
      (k, l) => `${l}请按${k}`,
      (k, l) => `${l}请按${k}`,
      '。',
      '，',
    ),
    enterPin: '请输入您的密码，然后按井号键。',
    wrongPin: '密码错误，请重新输入。',
    refused: '密码错误，没有发送任何内容。再见。',
    sent: (l) => `${l}。已发送。`,
    notSent: '您的决定未能发送。再见。',
  },
  ru: {
    choices: choicesSaid(
      'ru',
      (k, l) => `Нажмите ${k}: ${l}`,
      (k, l) => `${k}: ${l}`,
    ),
    enterPin: 'Введите PIN-код, затем решётку.',
    wrongPin: 'Неверный PIN-код. Попробуйте ещё раз.',
    refused: 'Неверный PIN-код. Ничего не отправлено. До свидания.',
    sent: (l) => `${capitalised(l)}. Отправлено.`,
    notSent: 'Не удалось отправить ваше решение. До свидания.',
  },
};
