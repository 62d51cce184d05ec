// The webhook's refusals: a verdict that refuses the alert → its 4xx reply, from the facts the
// verdict carries (the method, the words of the rule that refused, the payload's error, the limit reached).
// Wrong credentials are answered by the failure throttle, which counts them (auth-throttle.ts).
import type { AuthFailureThrottle } from './auth-throttle.js';
import { ApiError } from './errors.js';
import type { Reply, Verdict, WebhookResult } from './webhook-outcome.js';

type Refused = Exclude<Verdict, { outcome: 'accepted' | 'duplicate' }>;

/** The reply to a refused alert; `countedAddress`: the client as the failure throttle counts it. */
export function refusalReply(verdict: Refused, countedAddress: string, throttle: AuthFailureThrottle): Reply {
  const { result, error } = refusalOf(verdict, countedAddress, throttle);
  return {
    result,
    status: error.status,
    body: error.toBody(),
    headers: error.headers,
    reason: error.message,
    ...('account' in verdict && { userId: verdict.account.userId }),
  };
}

function refusalOf(
  verdict: Refused,
  countedAddress: string,
  throttle: AuthFailureThrottle,
): { result: WebhookResult; error: ApiError } {
  switch (verdict.outcome) {
    case 'method_not_allowed': {
      const message = `Method ${verdict.method} is not allowed: send the alert with POST.`;
      return { result: verdict.outcome, error: new ApiError(verdict.outcome, message, {}, { allow: 'POST' }) };
    }
    case 'unauthorized': {
      const error = throttle.refuse(countedAddress);
      return { result: error.code === 'too_many_failures' ? 'too_many_failures' : 'unauthorized', error };
    }
    case 'suspended': {
      const message = 'The account is suspended: no calls are placed. Ask the operator to resume it.';
      return { result: 'suspended', error: new ApiError('account_suspended', message) };
    }
    case 'source_not_allowed':
      return { result: verdict.outcome, error: new ApiError(verdict.outcome, verdict.says) };
    case 'invalid':
      return { result: 'invalid_payload', error: verdict.error };
    case 'refused': {
      const d = verdict.decision;
      if (d.limit === 'monthly') {
        const extra = { limit: d.allowance, used: d.used, resets_at: new Date(d.resetsAt).toISOString() };
        return {
          result: 'limit_exceeded',
          error: new ApiError('monthly_limit_exceeded', 'Monthly call limit exceeded.', extra),
        };
      }
      const perMinute = `${d.perMinute} call${d.perMinute === 1 ? '' : 's'} a minute`;
      const error = new ApiError(
        'rate_limited',
        `Too many alerts: the plan allows ${perMinute}. Retry after ${d.retryAfterSeconds} s.`,
        { limit: d.perMinute, retry_after: d.retryAfterSeconds },
        { 'retry-after': String(d.retryAfterSeconds) },
      );
      return { result: 'rate_limited', error };
    }
  }
}
