// How long to wait before the next try after `attempt` failures in a row: doubling from the
// initial delay up to a cap. One formula for every retry loop (the dialer's requeue, ARI's and
// SMPP's reconnects, Asterisk's restarts, the gateways' retries). Pure.

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** attempt 1 → initialMs, 2 → twice that, … never above maxMs. */
export function backoffDelay(attempt: number, { initialMs, maxMs }: Backoff): number {
  const doublings = Math.max(0, Math.min(attempt - 1, 30));
  return Math.min(maxMs, initialMs * 2 ** doublings);
}
