// The webhook's dependencies, what it needs of a request, and its answers: shared by the
// step-by-step path (webhook.ts) and the one-step path (webhook-one-step.ts).
import { ApiError } from './errors.js';
import type { Account } from '../core/account.js';
import type { AddressMatcher } from '../core/address-match.js';
import type { Alert } from '../core/payload.js';
import type { LimitDecision } from '../core/limits.js';
import type { SourceRule } from '../core/webhook-sources.js';
import type { Logger } from '../lib/log.js';
import type { AccountRepo, CallRepo } from '../store/contract/index.js';
import { errorAnswer, jsonAnswer, type JsonAnswer } from './respond.js';
import type { SmsGatewaySetting } from '../core/sms-truth.js';
import { acceptedBody } from './webhook-quiet-hours.js';

export type WebhookResult =
  | 'accepted'
  | 'invalid_payload'
  | 'unauthorized'
  | 'suspended'
  | 'limit_exceeded'
  | 'rate_limited'
  | 'too_many_failures'
  | 'unavailable'
  | 'duplicate'
  | 'source_not_allowed'
  | 'method_not_allowed';

export interface WebhookDeps {
  readonly store: { readonly accounts: AccountRepo; readonly calls: CallRepo };
  logger: Logger;
  now: () => number;
  /** Told of every accepted call after its transaction committed (the dialer listens here). */
  onCallQueued?: (queued: {
    callId: string;
    kind: 'alert';
    message: string;
    account: Account;
    /** The store's write already told the other nodes (PostgreSQL's webhook function). */
    announced?: boolean;
  }) => void;
  /** Told of every refused alert kept in its account's history (the live history shows it). */
  onRejectionRecorded?: (rejection: { callId: string; userId: string }) => void;
  /** Told of every answer, for metrics. */
  onResult?: (result: WebhookResult, durationMs: number) => void;
  /** Reverse proxies whose X-Forwarded-For names the client (for the failure throttle). */
  trustProxy?: AddressMatcher;
  /** The server's allowed sources (RINGHOOK_WEBHOOK_SOURCES); each account may narrow them further. */
  webhookSources?: SourceRule;
  /** The SMS gateway this server has (quiet hours' `sms` mode holds when none can send). */
  smsGateway?: SmsGatewaySetting;
}

/** What the webhook needs of a request, whichever transport carried it. */
export interface AlertRequest {
  method: string;
  pathname: string;
  contentType: string | undefined;
  /** The socket's peer address. */
  peer: string | undefined;
  forwardedFor: string | undefined;
  /** The Idempotency-Key header, when sent (duplicate alerts, core/dedupe). */
  idempotencyKey?: string | undefined;
  /** The body, refused past `limit` bytes (an ApiError). */
  readBody(limit: number): Promise<Uint8Array>;
}

export interface Outcome {
  result: WebhookResult;
  answer: JsonAnswer;
  /** The account the alert was for (authenticated), and its call when accepted: for the log line. */
  userId?: string;
  callId?: string;
  /** Why it was refused, in the answer's words (never the alert's text). */
  reason?: string;
}

export const refuse = (result: WebhookResult, error: ApiError, userId?: string): Outcome => ({
  result,
  answer: errorAnswer(error),
  reason: error.message,
  ...(userId !== undefined && { userId }),
});

export function bodyExcerpt(body: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false })
    .decode(body.subarray(0, 800))
    .replace(/[\u0000-\u001F\u007F]/g, ' ');
}

export function refuseOverLimit(d: Exclude<LimitDecision, { allowed: true }>, userId: string): Outcome {
  if (d.limit === 'monthly') {
    return refuse(
      'limit_exceeded',
      new ApiError('monthly_limit_exceeded', 'Monthly call limit exceeded.', {
        limit: d.allowance,
        used: d.used,
        resets_at: new Date(d.resetsAt).toISOString(),
      }),
      userId,
    );
  }
  const perMinute = `${d.perMinute} call${d.perMinute === 1 ? '' : 's'} a minute`;
  return refuse(
    'rate_limited',
    new ApiError(
      'rate_limited',
      `Too many alerts: the plan allows ${perMinute}. Retry after ${d.retryAfterSeconds} s.`,
      { limit: d.perMinute, retry_after: d.retryAfterSeconds },
      { 'retry-after': String(d.retryAfterSeconds) },
    ),
    userId,
  );
}

export const SUSPENDED = () =>
  new ApiError('account_suspended', 'The account is suspended: no calls are placed. Ask the operator to resume it.');

export function acceptedAnswer(
  deps: WebhookDeps,
  account: Account,
  callId: string,
  alert: Alert,
  announced = false,
): Outcome {
  deps.onCallQueued?.({ callId, kind: 'alert', message: alert.message, account, announced });
  deps.logger.debug('alert text', { call_id: callId, message: alert.message });
  return {
    result: 'accepted',
    userId: account.userId,
    callId,
    // The delivery field only for an account with quiet hours (webhook-quiet-hours.ts).
    answer: jsonAnswer(200, acceptedBody(account, callId, alert, deps.now(), deps.smsGateway)),
  };
}
