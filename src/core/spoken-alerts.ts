// What a call says of the alerts it carries: the one message, or "You have three alerts. First:
// …. Second: …." in order of arrival, in the account's language. Pure; each message is made
// speakable first.
import { LANGUAGES, type Language } from './languages.js';
import { speakable } from './speakable.js';

export function spokenAlerts(messages: readonly string[], lang: Language = LANGUAGES.en): string {
  if (messages.length === 1) return speakable(messages[0]!, lang);
  const parts = messages.map((m, i) => `${lang.prompts.ordinal(i)}: ${withStop(speakable(m, lang))}`);
  return `${lang.prompts.alertCount(messages.length)} ${parts.join(' ')}`;
}

/** A sentence ends with a stop, so the engine pauses before the next ordinal. */
function withStop(sentence: string): string {
  return /[.!?。]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** The alert the dashboard's "hear it" plays after the intro: a pair, a level and a timeframe. */
export const SAMPLE_ALERT = 'BTCUSDT > 64250.5, 4H';

/** What "hear it" says: the intro, then the sample alert as a call in that language would say it. */
export function sampleSpeech(speech: { intro: string; language: Language }): string {
  return `${speech.intro} ${spokenAlerts([SAMPLE_ALERT], speech.language)}.`;
}
