// What a call says of the alerts it carries: the one message, or "You have three alerts. First:
// …. Second: …." in order of arrival, in the account's language. Pure; each message is made
// speakable first, and one the webhook cut (markedShortened) ends with a word that it was cut.
import { LANGUAGES } from './languages.js';
import type { Language } from './language-types.js';
import { type SpeechAids, type SpokenText, speakableNoted } from './speakable.js';
import { SAID_SHORTENED, SHORTENED_MARK } from './speech-text/shortened.js';

export { markedShortened } from './speech-text/shortened.js';

/**
 * The most a call says of its alerts, in characters (about four minutes of speech): numbers read
 * out in words make a 500-character alert of long figures ten times longer, and a call is hung up
 * after its longest talk (5 minutes) anyway. Each alert of a merged call gets its share.
 */
export const MAX_SPOKEN_CHARS = 3_600;

export function spokenAlerts(
  messages: readonly string[],
  lang: Language = LANGUAGES.en,
  aids: SpeechAids = {},
): string {
  return spokenAlertsNoted(messages, lang, aids).text;
}

/** What the call says, and what its history notes about how it was read (each note once). */
export function spokenAlertsNoted(messages: readonly string[], lang: Language, aids: SpeechAids = {}): SpokenText {
  const share = Math.floor(MAX_SPOKEN_CHARS / messages.length);
  const notes = new Set<string>();
  const said = (m: string) => {
    const spoken = saidWithin(m, share, lang, aids);
    for (const note of spoken.notes) notes.add(note);
    return spoken.text;
  };
  if (messages.length === 1) return { text: said(messages[0]!), notes: [...notes] };
  const parts = messages.map((m, i) => `${lang.prompts.ordinal(i)}: ${withStop(said(m))}`);
  return { text: `${lang.prompts.alertCount(messages.length)} ${parts.join(' ')}`, notes: [...notes] };
}

/**
 * One message made speakable and cut to `share` characters. A message the webhook cut at its limit
 * says so last, whatever is cut here, so the owner knows there was more.
 */
export function saidWithin(message: string, share: number, lang: Language, aids: SpeechAids = {}): SpokenText {
  const shortened = message.includes(SHORTENED_MARK);
  const spoken = speakableNoted(shortened ? message.replaceAll(SHORTENED_MARK, '') : message, lang, aids);
  if (!shortened) return { text: cutAtWord(spoken.text, share), notes: spoken.notes };
  const word = SAID_SHORTENED[lang.code];
  return { text: `${withStop(cutAtWord(spoken.text, share - word.length - 2))} ${word}`, notes: spoken.notes };
}

/** At most `max` characters, cut after a whole word where there is one. */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never half a surrogate pair: an engine would read it as garbage.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  const cut = text.slice(0, end);
  const space = cut.lastIndexOf(' ');
  return space > end / 2 ? cut.slice(0, space) : cut;
}

/** A sentence ends with a stop, so the engine pauses before the next ordinal. */
export function withStop(sentence: string): string {
  return /[.!?。]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** The alert the dashboard's "hear it" plays after the intro: a pair, a level and a timeframe. */
export const SAMPLE_ALERT = 'BTCUSDT > 64250.5, 4H';

/** What "hear it" says: the intro, then the sample alert as a call in that language would say it. */
export function sampleSpeech(speech: { intro: string; language: Language }): string {
  return `${speech.intro} ${spokenAlerts([SAMPLE_ALERT], speech.language)}.`;
}
