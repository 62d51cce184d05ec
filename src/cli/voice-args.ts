// The CLI's language, voice and intro options of `account create|set`, checked together against the
// account's current ones before anything is written.
import type { Account } from '../core/account.js';
import {
  chooseVoice,
  defaultVoice,
  introSchema,
  LANGUAGES,
  languageSchema,
  voiceSchema,
} from '../core/speech/languages.js';
import { LANGUAGE_CODES, VOICE_IDS } from '../core/speech/language-types.js';
import { UserError } from '../lib/errors.js';
import { parseArg } from './context.js';

export const languageArgs = {
  language: {
    type: 'string',
    description: `What the call speaks: ${LANGUAGE_CODES.join(', ')} (English by default; Japanese: kana, no kanji)`,
  },
  voice: {
    type: 'string',
    description: `The voice: ${VOICE_IDS.join(', ')} (English: ${LANGUAGES.en.voices.join(', ')}, ${defaultVoice('en')} by default; other languages: espeak-ng)`,
  },
  intro: {
    type: 'string',
    description:
      'The words before the message, at most 60 characters ("" for the language\'s own, e.g. "Alert from ringhook.")',
  },
} as const;

/** The language, voice and intro options given, checked together against the account's current ones. */
export function voiceChanges(
  current: Pick<Account, 'language' | 'voice'>,
  args: { language?: string | undefined; voice?: string | undefined; intro?: string | undefined },
): Partial<Pick<Account, 'language' | 'voice' | 'intro'>> {
  const language = args.language === undefined ? undefined : parseArg(languageSchema, args.language, '--language');
  const voice = args.voice === undefined ? undefined : parseArg(voiceSchema, args.voice, '--voice');
  const chosen = chooseVoice(current, { language, voice });
  if (!chosen.ok) throw new UserError(`--voice: ${chosen.error}`);
  return {
    ...((language !== undefined || voice !== undefined) && { language: chosen.language, voice: chosen.voice }),
    ...(args.intro !== undefined && { intro: parseArg(introSchema, args.intro, '--intro') }),
  };
}
