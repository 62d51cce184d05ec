// Which voice a call speaks with when speech is in demand (a burst), and whether the call waits for
// its speech before it is placed. A call is placed at once when its message will be ready before
// anybody can answer; when its own voice would be late but the burst voice (much cheaper to make)
// would not, it speaks with the burst voice; when both would be late, the machine is past what it
// can voice in time and the call waits for its speech (in the cheaper voice) before it is placed,
// so that nobody answers to silence and no line is held by a call with nothing to say yet. Pure.
import type { Language, Synthesis } from './languages.js';

/** A phone rings at least this long before a person can answer it: the time speech has to be made. */
export const RING_ALLOWANCE_MS = 1_500;

export interface SpeechPlanInput {
  /** When the message would be ready in the call's own voice, ms from now. */
  ownReadyMs: number;
  /** The same in the burst voice; undefined when the call has none (another language, or turned off). */
  burstReadyMs: number | undefined;
}

export interface SpeechPlan {
  voice: 'own' | 'burst';
  /** The call is placed only once its message is made. */
  waitForSpeech: boolean;
}

export function planSpeech({ ownReadyMs, burstReadyMs }: SpeechPlanInput): SpeechPlan {
  if (ownReadyMs <= RING_ALLOWANCE_MS) return { voice: 'own', waitForSpeech: false };
  if (burstReadyMs === undefined) return { voice: 'own', waitForSpeech: true };
  if (burstReadyMs <= RING_ALLOWANCE_MS) return { voice: 'burst', waitForSpeech: false };
  return { voice: burstReadyMs < ownReadyMs ? 'burst' : 'own', waitForSpeech: true };
}

/**
 * The burst voice of a call in this language: flite's `voice` for English (the only language flite
 * speaks), none otherwise (espeak-ng, every other language's voice, is already cheap), and none
 * when the call's own voice is that one already.
 */
export function burstSynthesis(language: Language, own: Synthesis | undefined, voice: string | undefined): Synthesis | undefined {
  if (voice === undefined || language.code !== 'en') return undefined;
  if (own?.engine === 'flite' && own.voice === voice) return undefined;
  return { engine: 'flite', voice };
}
