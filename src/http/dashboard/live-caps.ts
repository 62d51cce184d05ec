// How many live-history streams may be open: each costs a connection and ~50 KB, so one session
// (a few tabs), one account (a few devices) and the whole service are each capped.

export interface LiveLimits {
  perSession: number;
  perAccount: number;
  total: number;
}

export const LIVE_LIMITS: LiveLimits = { perSession: 5, perAccount: 20, total: 500 };

export interface OpenStreams {
  session: number;
  account: number;
  total: number;
}

/** Which cap one more stream would exceed, or undefined when it may open. */
export function streamRefusal(open: OpenStreams, limits: LiveLimits): keyof LiveLimits | undefined {
  if (open.total >= limits.total) return 'total';
  if (open.account >= limits.perAccount) return 'perAccount';
  if (open.session >= limits.perSession) return 'perSession';
  return undefined;
}
