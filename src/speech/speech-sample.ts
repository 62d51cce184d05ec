// The dashboard's "hear it": a short WAV of the account's intro and a sample alert, made by the
// engine its calls use (and cached like any speech).
import { readFile } from 'node:fs/promises';
import type { Account } from '../core/account.js';
import { callSpeech } from '../core/languages.js';
import { sampleSpeech } from '../core/spoken-alerts.js';
import type { Tts } from './tts.js';

/** The sample is a few seconds: 8 kHz 16-bit mono is 16 kB a second; a larger file is not served. */
export const SAMPLE_MAX_BYTES = 1024 * 1024;

export function speechSampler(tts: Pick<Tts, 'synthesize'>): (account: Pick<Account, 'language' | 'voice' | 'intro'>) => Promise<Buffer> {
  return async (account) => {
    const speech = callSpeech(account);
    const made = await tts.synthesize(sampleSpeech(speech), speech.synthesis);
    const wav = await readFile(made.path);
    if (wav.length > SAMPLE_MAX_BYTES) throw new Error(`the speech sample is larger than ${SAMPLE_MAX_BYTES} bytes`);
    return wav;
  };
}
