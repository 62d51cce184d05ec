// What a call says of the alerts it carries: the one message, or "You have three alerts. First:
// …. Second: …." in order of arrival. Pure; each message is made speakable first.
import { english, type NumberLanguage } from './number-words.js';
import { speakable } from './speakable.js';

const ORDINALS = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth', 'Seventh', 'Eighth', 'Ninth', 'Tenth'] as const;

function ordinal(index: number, lang: NumberLanguage): string {
  return ORDINALS[index] ?? `Alert ${lang.cardinal(index + 1)}`;
}

export function spokenAlerts(messages: readonly string[], lang: NumberLanguage = english): string {
  if (messages.length === 1) return speakable(messages[0]!, lang);
  const parts = messages.map((m, i) => `${ordinal(i, lang)}: ${withStop(speakable(m, lang))}`);
  return `You have ${lang.cardinal(messages.length)} alerts. ${parts.join(' ')}`;
}

/** A sentence ends with a stop, so the engine pauses before the next ordinal. */
function withStop(sentence: string): string {
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
