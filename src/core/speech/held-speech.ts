// What a call says of alerts held for quiet hours (#41): everything held in one call, newest first,
// each message once with how long ago it came ("3 hours ago: BTCUSDT above 64250"), in the
// account's language, within the spoken-length cap: the newest that fit, then how many more were
// held ("And 37 older alerts: see your history."). Pure: the instant is passed in.
import { MAX_ALERTS_PER_CALL } from '../calls/line.js';
import type { Language, LanguageCode } from './language-types.js';
import { type SpeechAids, type SpokenText, speakableReadySteps } from './speakable.js';
import { MAX_SPOKEN_CHARS, saidWithin, spokenAlertsNoted, withStop } from './spoken-alerts.js';
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

/** A call's alerts, the time now, its language, and what helps make them speakable: what the call's speech is made from. */
export type HeldCall = [alerts: readonly HeldMessage[], now: number, lang: Language, aids?: SpeechAids];

/** Whether a call's alerts were held for quiet hours (any of them: a batch is released together). */
export function wereHeld(alerts: readonly HeldMessage[]): boolean {
  return alerts.some((a) => a.heldUntil !== null);
}

const newestFirst = (alerts: readonly HeldMessage[]) => [...alerts].sort((a, b) => b.receivedAt - a.receivedAt);
const aged = (alert: HeldMessage, now: number, lang: Language) =>
  `${agoText(lang, now - alert.receivedAt)}: ${alert.message}`;

/** The messages a call says: as they came, or, held ones, newest first each with how long ago it came. */
export function messagesToSay(alerts: readonly HeldMessage[], now: number, lang: Language): string[] {
  if (!wereHeld(alerts)) return alerts.map((a) => a.message);
  return newestFirst(alerts).map((a) => aged(a, now, lang));
}

/** What a call says of its alerts, and the notes on how it was read: held ones within the cap (heldSpokenNoted). */
export function callSpokenNoted(...call: HeldCall): SpokenText {
  return finish(callSpokenSteps(...call));
}

/**
 * callSpokenNoted in steps: the generator yields after each held alert it made speakable, so that
 * a caller in the event loop may let other work run between them (a few dozen for a night of
 * 10,000), and returns what the call says.
 */
export function* callSpokenSteps(...[alerts, now, lang, aids = {}]: HeldCall): Generator<void, SpokenText, void> {
  if (!wereHeld(alerts) || alerts.length === 1) return spokenAlertsNoted(messagesToSay(alerts, now, lang), lang, aids);
  return yield* heldSpokenSteps(alerts, now, lang, aids);
}

/**
 * A released batch of several: "You have 10000 alerts. First: 2 minutes ago: …. Second: …. And
 * 9988 older alerts: see your history." At most MAX_SPOKEN_CHARS in all; each alert gets the share
 * it would in a merged call of ten, and only those that fit are made speakable (a night of 10,000
 * held alerts reads a few dozen, not all).
 */
export function heldSpokenNoted(...call: HeldCall): SpokenText {
  return finish(heldSpokenSteps(...call));
}

function* heldSpokenSteps(...[alerts, now, lang, aids = {}]: HeldCall): Generator<void, SpokenText, void> {
  yield* speakableReadySteps(lang);
  const newest = newestFirst(alerts);
  const share = Math.floor(MAX_SPOKEN_CHARS / Math.min(newest.length, MAX_ALERTS_PER_CALL));
  const notes = new Set<string>();
  const parts = [lang.prompts.alertCount(newest.length)];
  let length = parts[0]!.length;
  for (let i = 0; i < newest.length; i++) {
    yield;
    const spoken = saidWithin(aged(newest[i]!, now, lang), share, lang, aids);
    const part = `${lang.prompts.ordinal(i)}: ${withStop(spoken.text)}`;
    const left = newest.length - i - 1;
    const tail = left > 0 ? 1 + lang.prompts.olderHeld(left).length : 0;
    if (length + 1 + part.length + tail > MAX_SPOKEN_CHARS) break;
    for (const note of spoken.notes) notes.add(note);
    parts.push(part);
    length += 1 + part.length;
  }
  const said = parts.length - 1;
  if (said < newest.length) parts.push(lang.prompts.olderHeld(newest.length - said));
  return { text: parts.join(' '), notes: [...notes] };
}

/** Runs steps to their end at once. */
function finish<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
