// A message the webhook cut at its limit (500 characters) is said with a word that it was cut, in
// the call's language, after what is said of it: never cut without a word.
import type { LanguageCode } from '../language-types.js';

/** Marks a message as cut before it is spoken: a Unicode noncharacter, which no alert text is meant to carry. */
export const SHORTENED_MARK = '\uFDD0';

export const SAID_SHORTENED: Readonly<Record<LanguageCode, string>> = {
  en: 'message shortened',
  de: 'Nachricht gekürzt',
  fr: 'message raccourci',
  es: 'mensaje acortado',
  it: 'messaggio abbreviato',
  pt: 'mensagem encurtada',
  nl: 'bericht ingekort',
  pl: 'wiadomość skrócona',
  tr: 'mesaj kısaltıldı',
  ru: 'сообщение сокращено',
  ja: 'メッセージ は しょうりゃく されました',
  zh: '消息已截断',
  ko: '메시지가 줄었습니다',
};

/** The message with the mark that it was cut, when it was. */
export const markedShortened = (message: string, truncated: boolean | number | undefined): string =>
  truncated ? `${message}${SHORTENED_MARK}` : message;
