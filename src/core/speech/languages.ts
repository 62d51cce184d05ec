// The languages and voices a call can speak in: one table, with each language's fixed prompts and
// the normalizer's words, written by hand (nothing is translated at run time; the tables are in
// language-tables/). English says its numbers in words; most other languages leave digits to
// espeak-ng, which reads them in the language, with the language's decimal comma or word;
// Japanese, Chinese and Russian decimals are said in words where espeak-ng's reading is wrong. Pure.
import { z } from 'zod';
import { english } from './number-words.js';
import { ENGLISH_WORDS } from './speech-text/words.js';
import {
  LANGUAGE_CODES,
  type Language,
  type LanguageCode,
  VOICE_IDS,
  type Voice,
  type VoiceEngine,
  type VoiceId,
} from './language-types.js';

import { lang, ordinals } from './language-tables/helpers.js';
import { de, fr, nl } from './language-tables/europe-west.js';
import { es, it, pt } from './language-tables/europe-south.js';
import { pl, ru, tr } from './language-tables/europe-east.js';
import { ja, ko, zh } from './language-tables/asia.js';

export const VOICES: Readonly<Record<VoiceId, Voice>> = {
  slt: { id: 'slt', label: 'flite, slt (US English, female)', engine: 'flite', engineVoice: 'slt' },
  'slt-hts': {
    id: 'slt-hts',
    label: 'Festival, slt HTS (US English, female, smoother)',
    engine: 'festival',
    engineVoice: 'cmu_us_slt_arctic_hts',
  },
  'espeak-ng': { id: 'espeak-ng', label: 'espeak-ng (every language, robotic)', engine: 'espeak-ng' },
};

/** The account's own intro: at most this many characters. */
export const MAX_INTRO = 60;

const ORDINALS_EN = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth', 'Seventh', 'Eighth', 'Ninth', 'Tenth'];

export const LANGUAGES: Readonly<Record<LanguageCode, Language>> = {
  en: lang(
    'en',
    'English',
    'English',
    'en-us',
    english,
    {
      intro: 'Alert from ringhook.',
      prompt: 'Press 1 to confirm, press 2 to hear it again.',
      keys: 'Press 1 to confirm, 2 or star to hear the message again, 0 to hear these keys.',
      confirmed: 'Confirmed. Goodbye.',
      testCall: 'This is a test call from ringhook. Your alerts will sound like this.',
      alertCount: (n) => `You have ${english.cardinal(n)} alerts.`,
      ordinal: ordinals(ORDINALS_EN, (n) => `Alert ${english.cardinal(n)}`),
      olderHeld: (n) => `And ${english.cardinal(n)} older ${n === 1 ? 'alert' : 'alerts'}: see your history.`,
    },
    ENGLISH_WORDS,
  ),
  de,
  fr,
  es,
  it,
  pt,
  nl,
  pl,
  tr,
  ja,
  ko,
  zh,
  ru,
};

/**
 * What the Japanese voice speaks, said where the language is chosen: espeak-ng reads kana and
 * says "Chinese letter" for each kanji, so kanji never reach it.
 */
export const JAPANESE_NOTE =
  'Japanese calls speak kana, numbers and Latin letters (spelled one by one); kanji are said by their readings from a dictionary (kuromoji\'s IPADIC), and a kanji it does not know is said "かんじ" and noted in the call\'s history.';

export const DEFAULT_LANGUAGE: LanguageCode = 'en';

const list = (items: readonly string[]) => items.join(', ');

export const languageSchema = z.enum(LANGUAGE_CODES, { error: `the language must be one of ${list(LANGUAGE_CODES)}` });

export const voiceSchema = z.enum(VOICE_IDS, { error: `the voice must be one of ${list(VOICE_IDS)}` });

export function defaultVoice(language: LanguageCode): VoiceId {
  return LANGUAGES[language].voices[0]!;
}

/** Why the voice cannot speak the language, or undefined when it can. */
export function voiceProblem(language: LanguageCode, voice: VoiceId): string | undefined {
  const offered = LANGUAGES[language].voices;
  return offered.includes(voice)
    ? undefined
    : `the voice ${voice} does not speak ${LANGUAGES[language].name}: offered for ${language}: ${list(offered)}`;
}

/**
 * The language and voice after a change: a voice given must speak the language; without one, the
 * current voice is kept when it speaks the new language, else the language's default is taken.
 */
export function chooseVoice(
  current: { language: LanguageCode; voice: VoiceId },
  change: { language?: LanguageCode | undefined; voice?: VoiceId | undefined },
): { ok: true; language: LanguageCode; voice: VoiceId } | { ok: false; error: string } {
  const language = change.language ?? current.language;
  if (change.voice !== undefined) {
    const problem = voiceProblem(language, change.voice);
    return problem ? { ok: false, error: problem } : { ok: true, language, voice: change.voice };
  }
  const voice = voiceProblem(language, current.voice) === undefined ? current.voice : defaultVoice(language);
  return { ok: true, language, voice };
}

/** The account's spoken intro: a short line; empty (null) for the language's own. */
export const introSchema = z
  .string()
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .max(MAX_INTRO, { error: `the intro must be at most ${MAX_INTRO} characters` })
      .refine((s) => !/[\u0000-\u001F\u007F]/.test(s), { error: 'the intro must not contain control characters' }),
  )
  .transform((s) => (s === '' ? null : s));

/** What the call says before the message: the account's own intro, or its language's. */
export function introFor(account: { language: LanguageCode; intro: string | null }): string {
  return account.intro ?? LANGUAGES[account.language].prompts.intro;
}

/** The engine and its voice name for the account's voice; undefined: the server's own speech. */
export interface Synthesis {
  engine: VoiceEngine;
  voice: string;
}

/** How a call speaks: its language (prompts and words), the intro, and the engine. */
export interface CallSpeech {
  language: Language;
  intro: string;
  /** Absent for English with the default voice: the server's speech (RINGHOOK_TTS_COMMAND, RINGHOOK_TTS_ENGINE), flite slt unless the operator chose otherwise. */
  synthesis?: Synthesis;
}

export function callSpeech(account: { language: LanguageCode; voice: VoiceId; intro: string | null }): CallSpeech {
  const language = LANGUAGES[account.language];
  const intro = introFor(account);
  if (account.language === DEFAULT_LANGUAGE && account.voice === defaultVoice(DEFAULT_LANGUAGE))
    return { language, intro };
  const voice = VOICES[account.voice];
  return { language, intro, synthesis: { engine: voice.engine, voice: voice.engineVoice ?? language.espeak } };
}

/** An account that never chose: English, the default voice and intro. */
export const DEFAULT_SPEECH: CallSpeech = callSpeech({
  language: DEFAULT_LANGUAGE,
  voice: defaultVoice(DEFAULT_LANGUAGE),
  intro: null,
});
