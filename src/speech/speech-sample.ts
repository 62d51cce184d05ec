// A call's speech as one WAV, made by the engine the call would use (and cached like any speech):
// the intro, the message and the prompt, one after the other. `ringhook say --wav` and the
// dashboard's "Hear it" play it.
import { readFile } from 'node:fs/promises';
import type { CallSpeech } from '../core/speech/languages.js';
import type { SpokenCall } from '../core/speech/spoken-call.js';
import { joinedTelephoneWav } from '../core/speech/wav.js';
import type { Tts } from './tts-api.js';

/**
 * The most a sample may weigh: 8 kHz 16-bit mono is 16 kB a second, and a call says at most about
 * four minutes of its message (MAX_SPOKEN_CHARS); a larger file is not served.
 */
export const SAMPLE_MAX_BYTES = 5 * 1024 * 1024;

export interface SpokenAudio {
  wav: Buffer;
  durationMs: number;
}

/** Makes each phrase and joins them as one telephone WAV; throws when the engine made something else. */
export async function spokenAudio(
  tts: Pick<Tts, 'synthesize'>,
  phrases: SpokenCall,
  speech: CallSpeech,
): Promise<SpokenAudio> {
  const made = [];
  for (const text of [phrases.intro, phrases.keys, phrases.message, phrases.prompt])
    made.push(await tts.synthesize(text, speech.synthesis));
  const wav = joinedTelephoneWav(await Promise.all(made.map((m) => readFile(m.path))));
  if (!wav) throw new Error('the speech engine did not make telephone audio (8 kHz mono 16-bit WAV)');
  return { wav, durationMs: made.reduce((ms, m) => ms + m.durationMs, 0) };
}

/** The dashboard's sampler: a call's speech, refused when larger than SAMPLE_MAX_BYTES. */
export function speechSampler(
  tts: Pick<Tts, 'synthesize'>,
): (phrases: SpokenCall, speech: CallSpeech) => Promise<SpokenAudio> {
  return async (phrases, speech) => {
    const audio = await spokenAudio(tts, phrases, speech);
    if (audio.wav.length > SAMPLE_MAX_BYTES)
      throw new Error(`the speech sample is larger than ${SAMPLE_MAX_BYTES} bytes`);
    return audio;
  };
}
