// What the webhook's steps hand each other: its dependencies, the store's verdict on an alert
// (either store's path), the reply a verdict becomes, and the outcome the log line and metrics read.
import type { ApiError } from './errors.js';
import type { Account } from '../core/account.js';
import type { AddressMatcher } from '../core/connections/address-match.js';
import type { Alert } from '../core/webhook/payload.js';
import type { LimitDecision } from '../core/webhook/limits.js';
import type { SourceRule } from '../core/webhook/webhook-sources.js';
import type { WebhookCredentials } from '../core/webhook/webhook-path.js';
import type { Logger } from '../lib/log.js';
import type { AccountRepo, CallRepo } from '../store/index.js';
import type { JsonAnswer } from './respond.js';
import type { SmsGatewaySetting } from '../core/delivery/sms-truth.js';
import type { IncomingAlert } from './webhook-request.js';

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
    /** Cut at the webhook's limit (its call says so). */
    messageTruncated: boolean;
    account: Account;
    /** The store's write already told the other nodes (PostgreSQL's webhook function). */
    announced?: boolean;
    /** Its call.queued status callback was written with it (the sender looks at once; nothing more to write). */
    outboxed?: boolean;
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

/**
 * What was decided for one alert. `rowId`: the refusal's own row in the history, when one was kept.
 * Each refusal carries the facts its answer needs (the payload's error, the rule that refused).
 */
export type Verdict =
  | { outcome: 'method_not_allowed'; method: string }
  | { outcome: 'unauthorized' }
  | { outcome: 'suspended'; account: Account; rowId: string }
  /** `says`: the 403's words, which rule refused the address and where it is set. */
  | { outcome: 'source_not_allowed'; account: Account; rowId: string; says: string }
  | { outcome: 'invalid'; account: Account; rowId: string; error: ApiError }
  | { outcome: 'duplicate'; account: Account; rowId: string; callId: string }
  | { outcome: 'refused'; account: Account; rowId?: string; decision: Exclude<LimitDecision, { allowed: true }> }
  | { outcome: 'accepted'; account: Account; callId: string; alert: Alert; announced: boolean; outboxed?: boolean };

/** The store's step: a POST with credentials decided, on the store's own path (one step or step by step). */
export type Receiver = (incoming: IncomingAlert, credentials: WebhookCredentials) => Promise<Verdict>;

/** A reply with its answer written: what the transports send, the log line and the metrics read. */
export interface Outcome extends Reply {
  answer: JsonAnswer;
}

/** An outcome before its answer is written: the status, body and headers the answer will carry. */
export interface Reply {
  result: WebhookResult;
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** The account the alert was for (authenticated), and its call when accepted: for the log line. */
  userId?: string;
  callId?: string;
  /** Why it was refused, in the answer's words (never the alert's text). */
  reason?: string;
}
