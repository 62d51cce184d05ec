// How long speech takes to make, as the dialer plans with it: what each engine step and voice took
// lately (a moving average, or the last time when that is longer: as a burst loads the machine in
// its first seconds, the average lagged behind and calls planned on time were answered before their
// speech), a first guess before any was timed, and the making asked for and not done yet. A voice timed on a quiet machine and not since
// (the owner's slt, before a burst spoken in the burst voice) is scaled by how much slower the
// engines have become meanwhile: planned with its quiet time, four calls in slt at a burst's end
// queued a second more than planned and were answered before their speech. Pure: the times come
// in from the caller.

/** Before any synthesis was timed: a message's making on one core (measured on a 2-core EPYC). */
const FIRST_GUESS_MS: Record<string, number> = { 'flite\0slt': 150, 'festival\0cmu_us_slt_arctic_hts': 1500 };
const DEFAULT_GUESS_MS = 60;
/**
 * A message's length in characters, as the first guesses are; shorter ones count as this long when
 * speeds are compared (an engine's start is most of a short phrase's time).
 */
const TYPICAL_CHARS = 40;
/** The weight of the newest time in the averages. */
const NEWEST_WEIGHT = 0.2;

const keyOf = (step: string, voice: string) => `${step}\0${voice}`;
const averaged = (before: number, newest: number) => before * (1 - NEWEST_WEIGHT) + newest * NEWEST_WEIGHT;
/** A time as the averages take it (a time that is no number or below 0 is not taken at all). */
const asMaking = (ms: number) => Math.max(1, ms);
const isTime = (ms: number) => Number.isFinite(ms) && ms >= 0;

export class SpeechCosts {
  /** Each step and voice: its moving average and last time, and the engines' slowdown when it was last timed. */
  private readonly recent = new Map<string, { ms: number; last: number; slowdown: number }>();
  /** Each step and voice: the least ms a character it ever took (over at least TYPICAL_CHARS). */
  private readonly quickest = new Map<string, number>();
  /** How many times slower a character than their quickest the engines' recent messages were (the machine's load, as speech sees it). */
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
   * A message of typical length at this step and voice's quickest (the first guess before it was
   * timed): what it costs in itself, to compare voices by, whatever the machine's load and the
   * texts when they were timed. By their moving averages, one burst's kal, first timed while the
   * machine was busy, looked dearer than slt: no call chose it, and it was never timed again.
   */
  fastestMs(step: string, voice: string): number {
    const key = keyOf(step, voice);
    const perChar = this.quickest.get(key);
    return perChar === undefined ? (FIRST_GUESS_MS[key] ?? DEFAULT_GUESS_MS) : perChar * TYPICAL_CHARS;
  }

  /** A message of `chars` characters made in `ms`. */
  took(step: string, voice: string, ms: number, chars: number): void {
    if (!isTime(ms) || !(chars >= 0)) return;
    const key = keyOf(step, voice);
    const perChar = asMaking(ms) / Math.max(TYPICAL_CHARS, chars);
    const quickest = Math.min(this.quickest.get(key) ?? perChar, perChar);
    this.quickest.set(key, quickest);
    this.slowdown = averaged(this.slowdown, perChar / quickest);
    this.remember(key, asMaking(ms));
  }

  /**
   * A voice that failed, timed with the fallback that spoke instead: its calls wait that long, so
   * it counts in its average, but it tells neither the voice's own speed nor the machine's.
   */
  tookFailing(step: string, voice: string, ms: number): void {
    if (isTime(ms)) this.remember(keyOf(step, voice), asMaking(ms));
  }

  private remember(key: string, ms: number): void {
    const before = this.recent.get(key);
    this.recent.set(key, {
      ms: before === undefined ? ms : averaged(before.ms, ms),
      last: ms,
      slowdown: this.slowdown,
    });
  }

  private expectedOf(key: string): number {
    const timed = this.recent.get(key);
    if (!timed) return FIRST_GUESS_MS[key] ?? DEFAULT_GUESS_MS;
    return Math.max(timed.ms, timed.last) * Math.max(1, this.slowdown / timed.slowdown);
  }
}
