// The shapes of the offered languages and voices, apart from their tables (language-tables/) so that
// the tables and languages.ts can both be built on them.
import type { SpeechLanguage, SpeechWords } from './speech-text/words.js';

export const LANGUAGE_CODES = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'tr', 'ja', 'ko', 'zh', 'ru'] as const;
export type LanguageCode = (typeof LANGUAGE_CODES)[number];

/** What the call says around the alerts, besides the account's own intro. */
export interface Prompts {
  /** The words before the message when the account has no intro of its own. */
  intro: string;
  /** After the message: the digits a person may press. */
  prompt: string;
  /** The keys (1, 2 or *, 0), said once after the intro and again on a 0 (core/calls/keypad). */
  keys: string;
  /** After a 1. */
  confirmed: string;
  /** What a test call says in place of an alert. */
  testCall: string;
  /** Before the alerts of a merged call: "You have four alerts." */
  alertCount(count: number): string;
  /** Before each alert of a merged call, from 0: "First", "Second"… */
  ordinal(index: number): string;
  /** After the newest held alerts a call had room for: "And 37 older alerts: see your history." */
  olderHeld(count: number): string;
}

/** A speech engine as the speech module runs it. */
export type VoiceEngine = 'flite' | 'festival' | 'espeak-ng';

export interface Voice {
  /** What the account stores and the CLI and dashboard take. */
  id: VoiceId;
  label: string;
  engine: VoiceEngine;
  /** The engine's own voice name; espeak-ng's is the language's (`espeak` in the language table). */
  engineVoice?: string;
}

export const VOICE_IDS = ['slt', 'slt-hts', 'espeak-ng'] as const;
export type VoiceId = (typeof VOICE_IDS)[number];

export interface Language extends SpeechLanguage {
  code: LanguageCode;
  /** Its name in English, then in itself, for lists and the dashboard. */
  name: string;
  nativeName: string;
  /** espeak-ng's voice for the language. */
  espeak: string;
  /** The voices offered, the default first. */
  voices: readonly VoiceId[];
  prompts: Prompts;
  words: SpeechWords;
}
