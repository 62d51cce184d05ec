// The provider's pace kept over time. The provider counts INVITEs as they arrive, and Asterisk sends
// one some time after it is asked to call (more under load): so a call counts from the moment it is
// asked for until Asterisk reports it dialing (its first Dial event), and from then for the
// window. How many may start now, and when the next may, is core/calls/pace.
import { PACE_MEMORY_MS, paceNow } from '../core/calls/pace.js';

/** A call asked for whose dialing was never reported (events lost) counts as dialed after this. */
const PENDING_LIMIT_MS = 5_000;

export class Pacer {
  private recentStarts: number[] = [];
  /** Calls asked of Asterisk and not yet reported dialing, by key, with when they were asked. */
  private readonly pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  /** `perSecond` unset: no pacing. `wake` is called when a call may start again after none could. */
  constructor(
    private readonly perSecond: number | undefined,
    private readonly now: () => number,
    private readonly wake: () => void,
  ) {}

  /** How many calls may start now; when none and some wait, `wake` is called when one may. */
  allowed(waiting: boolean): number {
    if (this.perSecond === undefined) return Number.POSITIVE_INFINITY;
    const at = this.now();
    for (const [key, askedAt] of this.pending) if (askedAt < at - PENDING_LIMIT_MS) this.dialed(key, askedAt);
    this.recentStarts = this.recentStarts.filter((t) => t > at - PACE_MEMORY_MS);
    const pace = paceNow(this.recentStarts, at, this.perSecond - this.pending.size);
    // Blocked by calls not yet dialing: their Dial event wakes the dialer. Else when the window frees.
    if (pace.allowed === 0 && waiting && !this.timer && pace.nextAt !== undefined) {
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.wake();
        },
        Math.max(1, pace.nextAt - at),
      );
      this.timer.unref();
    }
    return pace.allowed;
  }

  /** A call was asked of Asterisk. */
  started(key: string): void {
    if (this.perSecond !== undefined) this.pending.set(key, this.now());
  }

  /** Asterisk reports the call dialing (or it ended before): it counts from now for the window. */
  dialed(key: string, at = this.now()): void {
    if (!this.pending.delete(key)) return;
    this.recentStarts.push(at);
    this.recentStarts.sort((a, b) => a - b);
    this.wake();
  }

  /** The call was not placed after all (another node took it, or it was not queued any more). */
  cancelled(key: string): void {
    if (this.pending.delete(key)) this.wake();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
