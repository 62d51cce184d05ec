// Pacing new calls to the provider's rate: at most `perSecond` calls start in any one-second
// window. Pure: from the start times of recent calls, how many may start now, and when the next may.

export const PACE_WINDOW_MS = 1_000;
/**
 * A start is when Asterisk reported the call dialing, just after its INVITE left; the provider counts
 * INVITEs as they arrive, after a path whose delay varies a little: a start holds its place in the
 * window this much longer.
 */
export const PACE_GUARD_MS = 50;
const HELD_MS = PACE_WINDOW_MS + PACE_GUARD_MS;

/** How long a start counts against the pace: older ones can be forgotten. */
export const PACE_MEMORY_MS = HELD_MS;

export interface PaceDecision {
  /** Calls that may start now. */
  allowed: number;
  /** When none may start now: the moment the next one may. */
  nextAt?: number;
}

/**
 * `starts`: the start times of recent calls, oldest first (older ones may be included);
 * `perSecond`: the rate, less the calls asked for and not started yet. When those alone use it up,
 * no `nextAt`: the next start frees a place.
 */
export function paceNow(starts: readonly number[], now: number, perSecond: number): PaceDecision {
  if (perSecond <= 0) return { allowed: 0 };
  const inWindow = starts.filter((at) => at > now - HELD_MS);
  const allowed = Math.max(0, perSecond - inWindow.length);
  if (allowed > 0) return { allowed };
  // The window frees a place when its oldest start leaves it.
  return { allowed: 0, nextAt: inWindow[inWindow.length - perSecond]! + HELD_MS };
}

/** Simultaneous calls when not set: two RTP ports (RTP and RTCP) per call, within the allowed most. */
export function defaultMaxCalls(rtp: { start: number; end: number }, most: number): number {
  return Math.max(1, Math.min(most, Math.floor((rtp.end - rtp.start + 1) / 2)));
}
