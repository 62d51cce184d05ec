// What a call says of alerts held for quiet hours (#41): everything held in one call, newest first,
// each message once with how long ago it came ("3 hours ago: BTCUSDT above 64250"), in the
// account's language. Pure: the instant is passed in.
import type { Language, LanguageCode } from './language-types.js';
import { type Forms, formAfter, pick, wordsOf } from './speech-text/words.js';

/** "… ago" around an amount of time, per language. */
const AGO: Record<LanguageCode, (amount: string) => string> = {
  en: (a) => `${a} ago`,
  de: (a) => `Vor ${a}`,
  fr: (a) => `Il y a ${a}`,
  es: (a) => `Hace ${a}`,
  it: (a) => `${a} fa`,
  pt: (a) => `Há ${a}`,
  nl: (a) => `${a} geleden`,
  pl: (a) => `${a} temu`,
  tr: (a) => `${a} önce`,
  ja: (a) => `${a}前`,
  ko: (a) => `${a} 전`,
  zh: (a) => `${a}前`,
  ru: (a) => `${a} назад`,
};

/** English's units stay singular in a chart's "4 hour"; an age is counted: "three hours". */
const ENGLISH_AGE_UNITS: Record<'minute' | 'hour', Forms> = {
  minute: { one: 'minute', many: 'minutes' },
  hour: { one: 'hour', many: 'hours' },
};

/** Minutes under an hour, then whole hours: "three hours", in words and the noun's form after the count. */
function amount(lang: Language, ms: number): string {
  const words = wordsOf(lang);
  const minutes = Math.max(1, Math.round(ms / 60_000));
  const [count, unit] = minutes < 60 ? [minutes, 'minute' as const] : [Math.round(minutes / 60), 'hour' as const];
  const forms = lang.code === 'en' ? ENGLISH_AGE_UNITS[unit] : words.units[unit];
  const noun = pick(forms, formAfter(words, { whole: String(count) }));
  return `${lang.cardinal(count)} ${noun}`.trim();
}

/** How long ago an alert came, as the call says it before the message. */
export function agoText(lang: Language, ms: number): string {
  return AGO[lang.code](amount(lang, ms));
}

export interface HeldMessage {
  message: string;
  receivedAt: number;
  heldUntil: number | null;
}

/** Whether a call's alerts were held for quiet hours (any of them: a batch is released together). */
export function wereHeld(alerts: readonly HeldMessage[]): boolean {
  return alerts.some((a) => a.heldUntil !== null);
}

/** The messages a call says: as they came, or, held ones, newest first each with how long ago it came. */
export function messagesToSay(alerts: readonly HeldMessage[], now: number, lang: Language): string[] {
  if (!wereHeld(alerts)) return alerts.map((a) => a.message);
  return [...alerts]
    .sort((a, b) => b.receivedAt - a.receivedAt)
    .map((a) => `${agoText(lang, now - a.receivedAt)}: ${a.message}`);
}
