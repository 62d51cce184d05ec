// Plan limits and the decisions taken on them. Pure: times are numbers (ms since epoch) passed in.

export type Plan = 'free' | 'premium';

export interface PlanLimits {
  /** Calls a calendar month (UTC); null = unlimited. */
  monthly: number | null;
  /** Calls in any 60-second window. */
  perMinute: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { monthly: 3, perMinute: 1 },
  premium: { monthly: null, perMinute: 10 },
};

export const BURST_WINDOW_MS = 60_000;

/** Test calls from the dashboard or CLI skip the monthly allowance but have a small limit of their own. */
export const TEST_CALL_LIMITS = { perMinute: 2, perHour: 10 } as const;

/** The UTC calendar month that holds `now`: its key ("2026-11"), first instant and the first instant of the next. */
export function monthWindow(now: number): { key: string; start: number; resetsAt: number } {
  const d = new Date(now);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth();
  const start = Date.UTC(year, month, 1);
  const resetsAt = Date.UTC(year, month + 1, 1);
  return { key: `${year}-${String(month + 1).padStart(2, '0')}`, start, resetsAt };
}

/** A plan with a monthly allowance: its usage must be read before an alert is accepted. */
export function hasMonthlyAllowance(plan: Plan): boolean {
  return PLAN_LIMITS[plan].monthly !== null;
}

export type LimitDecision =
  | { allowed: true }
  | { allowed: false; limit: 'monthly'; allowance: number; used: number; resetsAt: number }
  | { allowed: false; limit: 'burst'; perMinute: number; retryAfterSeconds: number };

/**
 * Decides whether one more alert may be accepted.
 * @param usedThisMonth accepted alerts in the current UTC month
 * @param recentAcceptedAt times of accepted alerts within the last minute, any order
 */
export function decideLimits(
  plan: Plan,
  now: number,
  usedThisMonth: number,
  recentAcceptedAt: readonly number[],
): LimitDecision {
  const limits = PLAN_LIMITS[plan];
  if (limits.monthly !== null && usedThisMonth >= limits.monthly) {
    return {
      allowed: false,
      limit: 'monthly',
      allowance: limits.monthly,
      used: usedThisMonth,
      resetsAt: monthWindow(now).resetsAt,
    };
  }
  return decideBurst(limits.perMinute, now, recentAcceptedAt);
}

/** Sliding one-minute window: the n-th most recent acceptance must be older than a minute. */
export function decideBurst(
  perMinute: number,
  now: number,
  recentAcceptedAt: readonly number[],
  windowMs = BURST_WINDOW_MS,
): LimitDecision {
  const inWindow = recentAcceptedAt.filter((t) => t > now - windowMs).sort((a, b) => b - a);
  if (inWindow.length < perMinute) return { allowed: true };
  const oldestThatBlocks = inWindow[perMinute - 1]!;
  const retryAfterSeconds = Math.max(1, Math.ceil((oldestThatBlocks + windowMs - now) / 1000));
  return { allowed: false, limit: 'burst', perMinute, retryAfterSeconds };
}

export const HOUR_MS = 3_600_000;

/** Test-call pace (TEST_CALL_LIMITS) over times kept elsewhere than the store: the minute's limit, then the hour's. */
export function decideTestPace(now: number, recentAt: readonly number[]): LimitDecision {
  const minute = decideBurst(TEST_CALL_LIMITS.perMinute, now, recentAt);
  return minute.allowed ? decideBurst(TEST_CALL_LIMITS.perHour, now, recentAt, HOUR_MS) : minute;
}
