// Which voice a call speaks with when speech is in demand (a burst), and how long the call is held
// before it is placed. A call is placed at once when its message will be ready before anybody can
// answer. While more calls wait to be placed than the trunk takes in a ring (a backlog), the burst
// voice speaks whenever it is cheaper to make than the owner's: every millisecond of speech made then
// is taken from the calls waiting behind (on 2 cores, 130 calls of a burst in flite's slt instead of
// kal cost 8 CPU-seconds). A voice that is slow by itself (Festival on a slow machine, a long message) keeps the
// owner's choice while little is queued: the call is held just long enough that its speech is
// ready when the phone can first be answered. When queued work makes the own voice late, the
// burst voice (much cheaper to make) speaks if it is on time; when both would be late, the machine
// is past what it can voice in time and the call waits for its speech (in the sooner voice) before
// it is placed, so that nobody answers to silence and no line is held by a call with nothing to
// say yet. Pure.
import type { Language } from './language-types.js';
import type { Synthesis } from './languages.js';

/** A phone rings at least this long before a person can answer it: the time speech has to be made. */
export const RING_ALLOWANCE_MS = 1_500;

export interface SpeechPlanInput {
  /** When the message would be ready in the call's own voice, ms from now. */
  ownReadyMs: number;
  /** Of which its own making (the rest is the speech queued before it). */
  ownMakingMs: number;
  /** The same in the burst voice; undefined when the call has none (another language, or turned off). */
  burstReadyMs: number | undefined;
  /** The burst voice costs less to make than the call's own (by their quickest times). */
  burstCheaper?: boolean;
  /** More calls wait to be placed than the trunk takes in a ring (`backlogged`). */
  backlog?: boolean;
}

export interface SpeechPlan {
  voice: 'own' | 'burst';
  /** Why the burst voice: the own voice would be late, or calls wait behind this one. */
  because?: 'late' | 'backlog';
  /**
   * How long the call is held before it is placed, at most: it is placed as soon as its message is
   * made. 0: at once; Infinity: only once its message is made.
   */
  holdMs: number;
}

export function planSpeech({
  ownReadyMs,
  ownMakingMs,
  burstReadyMs,
  burstCheaper,
  backlog,
}: SpeechPlanInput): SpeechPlan {
  if (backlog && burstCheaper && burstReadyMs !== undefined && burstReadyMs <= RING_ALLOWANCE_MS) {
    return { voice: 'burst', because: 'backlog', holdMs: 0 };
  }
  if (ownReadyMs <= RING_ALLOWANCE_MS) return { voice: 'own', holdMs: 0 };
  // A voice never on time by itself keeps the owner's choice while the speech queued before it is
  // made within a ring: the call is then held by at most its voice's own making. A voice on time
  // by itself but late behind a queue takes the burst voice below, as every voice did before it.
  // (Festival is first guessed at exactly the allowance: on time alone, the burst voice behind any
  // queue, until its own cost on this machine is measured.)
  if (ownMakingMs > RING_ALLOWANCE_MS && ownReadyMs - ownMakingMs <= RING_ALLOWANCE_MS) {
    return { voice: 'own', holdMs: ownReadyMs - RING_ALLOWANCE_MS };
  }
  if (burstReadyMs === undefined) return { voice: 'own', holdMs: Number.POSITIVE_INFINITY };
  if (burstReadyMs <= RING_ALLOWANCE_MS) return { voice: 'burst', because: 'late', holdMs: 0 };
  if (burstReadyMs < ownReadyMs) return { voice: 'burst', because: 'late', holdMs: Number.POSITIVE_INFINITY };
  return { voice: 'own', holdMs: Number.POSITIVE_INFINITY };
}

/** More calls wait to be placed than a trunk paced at `callsPerSecond` takes in a ring; never without pacing (lines free one by one). */
export function backlogged(waiting: number, callsPerSecond: number | undefined): boolean {
  return callsPerSecond !== undefined && waiting > (callsPerSecond * RING_ALLOWANCE_MS) / 1000;
}

/**
 * The voice a queued alert's call will speak with when its turn comes, `behind` alerts still waiting
 * after it: what planSpeech then chooses with its message made (for speech made ahead).
 */
export function voiceWhenDue(
  behind: number,
  callsPerSecond: number | undefined,
  burstCheaper: boolean,
): 'own' | 'burst' {
  return burstCheaper && backlogged(behind, callsPerSecond) ? 'burst' : 'own';
}

/** What the call's timeline says of its plan when it is not the plain one; `voice`: the voice it speaks with. */
export function describeSpeechPlan(plan: SpeechPlan, voice: string | undefined): string | undefined {
  if (plan.voice === 'burst' && plan.because === 'backlog') {
    return `spoken with the burst voice (${voice}): more calls were waiting to be placed than the trunk takes in a ring`;
  }
  if (plan.voice === 'burst')
    return `spoken with the burst voice (${voice}): its own would not have been ready in time`;
  if (plan.holdMs > 0 && plan.holdMs < Number.POSITIVE_INFINITY) {
    return `placed up to ${(Math.ceil(plan.holdMs / 100) / 10).toFixed(1)} s later: its voice takes longer to make than a phone rings`;
  }
  return undefined;
}

/**
 * The call's burst voice (burstSynthesis) and whether it costs less to make than the call's own, by
 * their quickest times (`fastestMs`: tts.fastestMakingMs).
 */
export function burstVoiceOf(
  language: Language,
  own: Synthesis | undefined,
  voice: string | undefined,
  fastestMs: ((synthesis: Synthesis | undefined) => number) | undefined,
): { burst: Synthesis | undefined; cheaper: boolean } {
  const burst = burstSynthesis(language, own, voice);
  return { burst, cheaper: burst !== undefined && fastestMs !== undefined && fastestMs(burst) < fastestMs(own) };
}

/**
 * The burst voice of a call in this language: flite's `voice` for English (the only language flite
 * speaks), none otherwise (espeak-ng, every other language's voice, is already cheap), and none
 * when the call's own voice is that one already.
 */
export function burstSynthesis(
  language: Language,
  own: Synthesis | undefined,
  voice: string | undefined,
): Synthesis | undefined {
  if (voice === undefined || language.code !== 'en') return undefined;
  if (own?.engine === 'flite' && own.voice === voice) return undefined;
  return { engine: 'flite', voice };
}
