// How much later than its plan speech was ready lately. A plan is a forecast of the machine (the
// speech queued, what a message takes now), and in a burst's surges the machine gets slower faster
// than the forecast learns: at 200 calls a second, runs had 8–27 calls planned on time in the same
// few hundred ms answered up to a second before their speech. Each plan adds the worst lateness of
// the last seconds, so that once speech runs late the calls after wait for it instead of ringing
// ahead of it; a few seconds of plans met, and the margin is gone. Pure: the times come from the caller.

/** A lateness counts this long after it was seen. */
export const LATENESS_WINDOW_MS = 5_000;

export class SpeechLateness {
  /** The latenesses seen in the window that no later one is as large as, oldest (and largest) first. */
  private readonly peaks: Array<{ at: number; lateMs: number }> = [];

  /** Speech planned ready at some time was ready `lateMs` after it (below 0: early) at `at`. */
  observe(at: number, lateMs: number): void {
    if (!Number.isFinite(lateMs) || !Number.isFinite(at)) return;
    const late = Math.max(0, lateMs);
    while (this.peaks.length > 0 && this.peaks.at(-1)!.lateMs <= late) this.peaks.pop();
    this.peaks.push({ at, lateMs: late });
  }

  /** What to add to a forecast made at `at`: the worst lateness seen in the window before it. */
  marginMs(at: number): number {
    while (this.peaks.length > 0 && this.peaks[0]!.at <= at - LATENESS_WINDOW_MS) this.peaks.shift();
    return this.peaks[0]?.lateMs ?? 0;
  }
}
