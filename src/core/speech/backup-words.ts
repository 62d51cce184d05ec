// What the backup person (#54) hears, in the account's language like the rest of its calls: whose
// alert it is, and the verification call's request. Written by hand like the language tables. Pure.
import type { LanguageCode } from './language-types.js';

export interface BackupWords {
  /** Whose alert, when the account has no name: "the phone ending 0 1 2 3" (the digits spaced). */
  phoneEnding(digits: string): string;
  /** Before each message of an alert called at the backup number: "Alert for Alice:". */
  intro(who: string): string;
  /** The verification call: who asks, what it means, and the 1 that agrees. */
  verification(who: string): string;
}

export const BACKUP_WORDS: Readonly<Record<LanguageCode, BackupWords>> = {
  en: {
    phoneEnding: (d) => `the phone ending ${d}`,
    intro: (who) => `Alert for ${who}:`,
    verification: (who) =>
      `This is ringhook. ${who} asks you to be their backup person: when an alert of theirs is missed, it will call you. Press 1 to agree to receive alerts for ${who}.`,
  },
  de: {
    phoneEnding: (d) => `das Telefon mit der Endung ${d}`,
    intro: (who) => `Alarm für ${who}:`,
    verification: (who) =>
      `Hier ist ringhook. ${who} bittet Sie, als Vertretung einzuspringen: wird ein Alarm verpasst, ruft ringhook Sie an. Drücken Sie 1, um Alarme für ${who} zu erhalten.`,
  },
  fr: {
    phoneEnding: (d) => `le téléphone se terminant par ${d}`,
    intro: (who) => `Alerte pour ${who} :`,
    verification: (who) =>
      `Ici ringhook. ${who} vous demande d'être sa personne de secours : quand une de ses alertes reste sans réponse, ringhook vous appellera. Appuyez sur 1 pour accepter de recevoir les alertes de ${who}.`,
  },
  es: {
    phoneEnding: (d) => `el teléfono que termina en ${d}`,
    intro: (who) => `Alerta para ${who}:`,
    verification: (who) =>
      `Le llama ringhook. ${who} le pide ser su persona de respaldo: cuando no atienda una de sus alertas, ringhook le llamará a usted. Pulse 1 para aceptar recibir las alertas de ${who}.`,
  },
  it: {
    phoneEnding: (d) => `il telefono che termina con ${d}`,
    intro: (who) => `Avviso per ${who}:`,
    verification: (who) =>
      `Qui ringhook. ${who} ti chiede di essere la sua persona di riserva: quando un suo avviso resta senza risposta, ringhook chiamerà te. Premi 1 per accettare di ricevere gli avvisi di ${who}.`,
  },
  pt: {
    phoneEnding: (d) => `o telefone terminado em ${d}`,
    intro: (who) => `Alerta para ${who}:`,
    verification: (who) =>
      `Fala o ringhook. ${who} pede-lhe que seja a sua pessoa de reserva: quando um alerta seu não for atendido, o ringhook liga-lhe a si. Prima 1 para aceitar receber os alertas de ${who}.`,
  },
  nl: {
    phoneEnding: (d) => `de telefoon eindigend op ${d}`,
    intro: (who) => `Melding voor ${who}:`,
    verification: (who) =>
      `Dit is ringhook. ${who} vraagt u als reservepersoon: wordt een melding gemist, dan belt ringhook u. Druk op 1 om meldingen voor ${who} te ontvangen.`,
  },
  pl: {
    phoneEnding: (d) => `telefon o końcówce ${d}`,
    intro: (who) => `Alert dla: ${who}.`,
    verification: (who) =>
      `Tu ringhook. ${who} prosi, abyś był osobą zapasową: gdy alert zostanie nieodebrany, ringhook zadzwoni do ciebie. Naciśnij 1, aby zgodzić się na alerty dla: ${who}.`,
  },
  tr: {
    phoneEnding: (d) => `sonu ${d} olan telefon`,
    intro: (who) => `${who} için uyarı:`,
    verification: (who) =>
      `Burası ringhook. ${who} sizden yedek kişisi olmanızı istiyor: bir uyarısı cevapsız kalırsa ringhook sizi arayacak. ${who} için uyarı almayı kabul etmek için 1'e basın.`,
  },
  ja: {
    phoneEnding: (d) => `まつび ${d} の でんわ`,
    intro: (who) => `${who} あての アラート です。`,
    verification: (who) =>
      `こちらは リングフック です。 ${who} が あなたを バックアップ の れんらくさき に したいと して います。 アラートに おうとう が ない とき、 あなたに でんわ します。 どうい する には 1 を おして ください。`,
  },
  ko: {
    phoneEnding: (d) => `끝번호 ${d} 전화`,
    intro: (who) => `${who}에게 온 알림입니다.`,
    verification: (who) =>
      `링훅입니다. ${who}님이 당신을 예비 연락처로 지정하려고 합니다. 알림을 받지 못하면 당신에게 전화합니다. 동의하시면 1번을 누르세요.`,
  },
  zh: {
    phoneEnding: (d) => `尾号${d}的电话`,
    intro: (who) => `这是给${who}的提醒：`,
    verification: (who) =>
      `这里是提醒服务。${who}希望您作为备用联系人：当其提醒无人接听时，将会打电话给您。同意接收${who}的提醒请按1。`,
  },
  ru: {
    phoneEnding: (d) => `телефон с последними цифрами ${d}`,
    intro: (who) => `Оповещение для: ${who}.`,
    verification: (who) =>
      `Говорит ringhook. ${who} просит вас быть запасным контактом: если оповещение останется без ответа, ringhook позвонит вам. Нажмите 1, чтобы согласиться получать оповещения для: ${who}.`,
  },
};
