// The scripts each language's voice reads (Latin always: tickers, names), and what it says for a
// run of letters in any other (a Korean word in an English alert, Cyrillic in a German one), where
// flite drops it without a sound and espeak-ng says "letter" for each character. The call's
// history notes what was said so (speakable.ts).
import type { LanguageCode } from '../language-types.js';
import type { ScriptReading } from './words.js';

export type { ScriptReading } from './words.js';

export const SCRIPTS: Readonly<Record<LanguageCode, ScriptReading>> = {
  en: { reads: [], otherScript: 'text in another script' },
  de: { reads: [], otherScript: 'Text in fremder Schrift' },
  fr: { reads: [], otherScript: 'texte dans une autre écriture' },
  es: { reads: [], otherScript: 'texto en otra escritura' },
  it: { reads: [], otherScript: 'testo in un’altra scrittura' },
  pt: { reads: [], otherScript: 'texto em outra escrita' },
  nl: { reads: [], otherScript: 'tekst in een ander schrift' },
  pl: { reads: [], otherScript: 'tekst w innym piśmie' },
  tr: { reads: [], otherScript: 'başka alfabede metin' },
  ru: { reads: ['Cyrillic'], otherScript: 'текст на другом алфавите' },
  // Kanji are read before this applies (kanji.ts); what is left of them is handled there.
  ja: { reads: ['Hiragana', 'Katakana', 'Han'], otherScript: 'がいこく の もじ' },
  zh: { reads: ['Han'], otherScript: '外文' },
  ko: { reads: ['Hangul'], otherScript: '외국 문자' },
};

const RUNS = new WeakMap<ScriptReading, RegExp>();

/** Runs of letters (with their marks, across spaces) in scripts the voice does not read. Built once a language. */
export function otherScriptRuns(reading: ScriptReading): RegExp {
  const built = RUNS.get(reading);
  if (built) return built;
  const own = ['Latin', 'Common', 'Inherited', ...reading.reads].map((s) => `\\p{Script=${s}}`).join('');
  const run = `(?:[^\\P{L}${own}]\\p{M}*)+`;
  const runs = new RegExp(`${run}(?:\\s+${run})*`, 'gu');
  RUNS.set(reading, runs);
  return runs;
}
