// How long speech takes to make, as the dialer plans with it: what each engine step and voice took
// lately (a moving average, so one slow message does not swing it), a first guess before any was
// timed, and the making asked for and not done yet. A voice timed on a quiet machine and not since
// (the owner's slt, before a burst spoken in the burst voice) is scaled by how much slower the
// engines have become meanwhile: planned with its quiet time, four calls in slt at a burst's end
// queued a second more than planned and were answered before their speech. Pure: the times come
// in from the caller.

/** Before any synthesis was timed: a message's making on one core (measured on a 2-core EPYC). */
const FIRST_GUESS_MS: Record<string, number> = { 'flite\0slt': 150, 'festival\0cmu_us_slt_arctic_hts': 1500 };
const DEFAULT_GUESS_MS = 60;
/** The weight of the newest time in the averages. */
const NEWEST_WEIGHT = 0.2;

const keyOf = (step: string, voice: string) => `${step}\0${voice}`;
const averaged = (before: number, newest: number) => before * (1 - NEWEST_WEIGHT) + newest * NEWEST_WEIGHT;

export class SpeechCosts {
  /** Each step and voice: its recent time, and the engines' slowdown when it was last timed. */
  private readonly recent = new Map<string, { ms: number; slowdown: number }>();
  private readonly fastest = new Map<string, number>();
  /** How many times slower than their fastest the engines' recent jobs were (the machine's load, as speech sees it). */
  private slowdown = 1;
  /** The speech asked for and not done yet: how many of each step and voice. */
  private readonly waiting = new Map<string, number>();

  /**
   * The making of the speech asked for and not done yet, ms in all, at what each takes now (not
   * when it was asked for: as a burst slows the machine, the jobs already queued take longer too).
   */
  get queuedMs(): number {
    let ms = 0;
    for (const [key, count] of this.waiting) ms += count * this.expectedOf(key);
    return ms;
  }

  /** Counts one job of this step and voice as queued until the returned function is called (once). */
  queue(step: string, voice: string): () => void {
    const key = keyOf(step, voice);
    this.waiting.set(key, (this.waiting.get(key) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.waiting.get(key) ?? 1) - 1;
      if (left > 0) this.waiting.set(key, left);
      else this.waiting.delete(key);
    };
  }

  expectedMs(step: string, voice: string): number {
    return this.expectedOf(keyOf(step, voice));
  }

  /**
   * The quickest this step and voice was ever made (the first guess before it was timed): what it
   * costs in itself, whatever the machine's load when it was timed. A voice first timed while the
   * machine was busy (its first messages while the resident flite was being compiled) looks dearer
   * than it is until it is timed again, and a plan choosing by the moving averages never did.
   */
  fastestMs(step: string, voice: string): number {
    const key = keyOf(step, voice);
    return this.fastest.get(key) ?? FIRST_GUESS_MS[key] ?? DEFAULT_GUESS_MS;
  }

  private expectedOf(key: string): number {
    const timed = this.recent.get(key);
    if (!timed) return FIRST_GUESS_MS[key] ?? DEFAULT_GUESS_MS;
    return timed.ms * Math.max(1, this.slowdown / timed.slowdown);
  }

  took(step: string, voice: string, ms: number): void {
    const key = keyOf(step, voice);
    const fastest = Math.min(this.fastest.get(key) ?? ms, ms);
    this.fastest.set(key, fastest);
    this.slowdown = averaged(this.slowdown, fastest > 0 ? ms / fastest : 1);
    const before = this.recent.get(key);
    this.recent.set(key, { ms: before === undefined ? ms : averaged(before.ms, ms), slowdown: this.slowdown });
  }
}
