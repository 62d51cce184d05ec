// How a call about to be placed speaks, and how long it is held for its speech: by when its message
// would be ready in the owner's voice and in the burst voice (made ahead already, being made, or
// forecast from the speech queued), with the lateness of the plans lately added to the forecasts
// (core/speech/speech-lateness); the decision itself is core/speech/speech-plan's.
import type { CallSpeech, Synthesis } from '../core/speech/languages.js';
import { SpeechLateness } from '../core/speech/speech-lateness.js';
import { backlogged, burstVoiceOf, planSpeech, type SpeechPlan } from '../core/speech/speech-plan.js';
import type { SpeechProgress } from './speech-cache.js';
import type { Tts } from './tts-api.js';

export interface PlannedSpeech {
  speech: CallSpeech;
  plan: SpeechPlan;
  /** In the voice chosen, the message is neither made nor being made: counted as queued until asked for. */
  toMake: boolean;
  /** Its forecast in ms once asked for, without the margin; undefined: made already, or no forecast. */
  forecastMs: number | undefined;
}

export interface SpeechPlannerDeps {
  tts: Partial<Pick<Tts, 'expectedReadyMs' | 'expectedMakingMs' | 'fastestMakingMs' | 'progressOf'>>;
  /** RINGHOOK_BURST_VOICE. */
  burstVoice: string | undefined;
  /** RINGHOOK_TRUNK_CPS. */
  callsPerSecond: number | undefined;
  /** How many alerts wait to be placed now. */
  waiting: () => number;
}

export class SpeechPlanner {
  private readonly lateness = new SpeechLateness();

  constructor(private readonly deps: SpeechPlannerDeps) {}

  /** The plan of a call saying `text`, its own speech being `own`. */
  plan(own: CallSpeech, text: string): PlannedSpeech {
    const { expectedReadyMs, expectedMakingMs, fastestMakingMs, progressOf } = this.deps.tts;
    if (!expectedReadyMs)
      return { speech: own, plan: { voice: 'own', holdMs: 0 }, toMake: true, forecastMs: undefined };
    const ownProgress = progressOf?.(text, own.synthesis) ?? 'none';
    // Made in the owner's voice already: nothing to make, so no reason to speak in another.
    if (ownProgress === 'made')
      return { speech: own, plan: { voice: 'own', holdMs: 0 }, toMake: false, forecastMs: undefined };
    const { burst, cheaper } = burstVoiceOf(own.language, own.synthesis, this.deps.burstVoice, fastestMakingMs);
    const burstProgress = (burst && progressOf?.(text, burst)) ?? 'none';
    const forecast = (synthesis: Synthesis | undefined, progress: SpeechProgress) =>
      progress === 'made'
        ? 0
        : progress === 'making'
          ? (expectedMakingMs?.(synthesis) ?? 0)
          : expectedReadyMs(synthesis);
    const late = this.lateness.marginMs(performance.now());
    const withMargin = (ms: number, progress: SpeechProgress) => (progress === 'made' ? ms : ms + late);
    const ownMs = forecast(own.synthesis, ownProgress);
    const burstMs = burst && forecast(burst, burstProgress);
    const plan = planSpeech({
      ownReadyMs: withMargin(ownMs, ownProgress),
      ownMakingMs: expectedMakingMs?.(own.synthesis) ?? 0,
      burstReadyMs: burstMs === undefined ? undefined : withMargin(burstMs, burstProgress),
      burstCheaper: cheaper,
      backlog: backlogged(this.deps.waiting(), this.deps.callsPerSecond),
    });
    const inBurst = plan.voice === 'burst';
    const progress = inBurst ? burstProgress : ownProgress;
    return {
      speech: inBurst ? { ...own, synthesis: burst } : own,
      plan,
      toMake: progress === 'none',
      forecastMs: progress === 'made' ? undefined : inBurst ? burstMs : ownMs,
    };
  }

  /** The call's message was just asked for, forecast ready in `forecastMs`: how late it is counts in the next plans. */
  follow(message: Promise<unknown>, forecastMs: number | undefined): void {
    if (forecastMs === undefined) return;
    const askedAt = performance.now();
    message.then(
      () => this.lateness.observe(performance.now(), performance.now() - askedAt - forecastMs),
      () => {},
    );
  }
}
