// How long speech takes to make, as the dialer plans with it: what each engine step and voice took
// lately (a moving average, so one slow message does not swing it), a first guess before any was
// timed, and the making asked for and not done yet. Pure: the times come in from the caller.

/** Before any synthesis was timed: a message's making on one core (measured on a 2-core EPYC). */
const FIRST_GUESS_MS: Record<string, number> = { 'flite\0slt': 150, 'festival\0cmu_us_slt_arctic_hts': 1500 };
const DEFAULT_GUESS_MS = 60;
/** The weight of the newest time in the average. */
const NEWEST_WEIGHT = 0.2;

const keyOf = (step: string, voice: string) => `${step}\0${voice}`;

export class SpeechCosts {
  private readonly recent = new Map<string, number>();
  /** The making of the speech asked for and not done yet, ms in all. */
  queuedMs = 0;

  expectedMs(step: string, voice: string): number {
    const key = keyOf(step, voice);
    return this.recent.get(key) ?? FIRST_GUESS_MS[key] ?? DEFAULT_GUESS_MS;
  }

  took(step: string, voice: string, ms: number): void {
    const key = keyOf(step, voice);
    const before = this.recent.get(key);
    this.recent.set(key, before === undefined ? ms : before * (1 - NEWEST_WEIGHT) + ms * NEWEST_WEIGHT);
  }
}
