// POST /webhook/{user_id}/{api_key}: authenticate, parse, check limits, record, answer.
// Nothing slow happens before the answer: the call is placed after the 200 by the dialer.
// Transport-free: the Node fast path (webhook-node.ts) and the h3 route both call it.
import { getRequestIP, type H3Event } from 'h3';
import { ApiError } from '../lib/errors.js';
import { receivesCalls, type Account } from '../core/account.js';
import { type Alert, MAX_BODY_BYTES, parseAlertBody } from '../core/payload.js';
import type { LimitDecision } from '../core/limits.js';
import type { AlertToReceive } from '../core/records.js';
import type { AccountRepo, CallRepo } from '../store/contract.js';
import { isStoreUnavailable } from '../store/unavailable.js';
import type { Logger } from '../lib/log.js';
import { type RefusalTally, refusalTally } from '../lib/refusal-tally.js';
import type { AddressMatcher } from '../core/address-match.js';
import { AuthFailureThrottle } from './auth-throttle.js';
import { closingUnread, readBodyLimited } from './body.js';
import { addressOf } from './client-address.js';
import { ANY_SOURCE, type SourceRule } from '../core/webhook-sources.js';
import { dedupeKey, dedupeSince } from '../core/dedupe.js';
import { duplicateAnswer, refuseSource } from './webhook-owner-controls.js';
import { errorAnswer, jsonAnswer, toResponse, type JsonAnswer } from './respond.js';
import { credentialsFromPath } from '../core/webhook-path.js';
import { newCallId } from '../core/ids.js';
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

export type Webhook = (request: AlertRequest) => Promise<JsonAnswer>;

interface Outcome {
  result: WebhookResult;
  answer: JsonAnswer;
  /** The account the alert was for (authenticated), and its call when accepted: for the log line. */
  userId?: string;
  callId?: string;
  /** Why it was refused, in the answer's words (never the alert's text). */
  reason?: string;
}

const refuse = (result: WebhookResult, error: ApiError, userId?: string): Outcome => ({
  result,
  answer: errorAnswer(error),
  reason: error.message,
  ...(userId !== undefined && { userId }),
});

function bodyExcerpt(body: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false })
    .decode(body.subarray(0, 800))
    .replace(/[\u0000-\u001F\u007F]/g, ' ');
}

async function refusePayload(
  deps: WebhookDeps,
  account: Account,
  error: ApiError,
  body?: Uint8Array,
): Promise<Outcome> {
  const callId = newCallId();
  await deps.store.calls.recordRejection({
    callId,
    userId: account.userId,
    status: 'invalid_payload',
    error: error.message,
    excerpt: body ? bodyExcerpt(body) : '',
  });
  deps.onRejectionRecorded?.({ callId, userId: account.userId });
  return refuse('invalid_payload', error, account.userId);
}

function refuseCredentials(request: AlertRequest, deps: WebhookDeps, throttle: AuthFailureThrottle): Outcome {
  const address = addressOf(request.peer, request.forwardedFor, deps.trustProxy);
  const wait = throttle.retryAfterSeconds(address);
  if (wait > 0) {
    return refuse(
      'too_many_failures',
      new ApiError(
        'too_many_failures',
        `Too many requests with invalid credentials from this address: retry after ${wait} s.`,
        { retry_after: wait },
        { 'retry-after': String(wait) },
      ),
    );
  }
  throttle.fail(address);
  return refuse('unauthorized', new ApiError('unauthorized'));
}

async function handleAlert(request: AlertRequest, deps: WebhookDeps, throttle: AuthFailureThrottle): Promise<Outcome> {
  if (request.method !== 'POST') {
    return refuse(
      'method_not_allowed',
      new ApiError(
        'method_not_allowed',
        `Method ${request.method} is not allowed: send the alert with POST.`,
        {},
        { allow: 'POST' },
      ),
    );
  }
  const credentials = credentialsFromPath(request.pathname);
  // The one-step path (PostgreSQL, #43) does not know the owner controls (#41) yet: a server with a
  // source rule takes the step-by-step path, whose accept checks duplicates under the account's lock.
  const serverSources = deps.webhookSources ?? ANY_SOURCE;
  if (credentials && deps.store.calls.receiveAlert && serverSources.any)
    return receiveInOneStep(request, deps, throttle, credentials, deps.store.calls.receiveAlert.bind(deps.store.calls));
  const account = credentials
    ? await deps.store.accounts.authenticate(credentials.userId, credentials.apiKey)
    : undefined;
  // Valid credentials are never throttled: only failures are counted and refused per address.
  if (!account) return refuseCredentials(request, deps, throttle);

  if (!receivesCalls(account)) {
    const callId = newCallId();
    await deps.store.calls.recordRejection({
      callId,
      userId: account.userId,
      status: 'suspended',
      error: 'account suspended',
      excerpt: '',
    });
    deps.onRejectionRecorded?.({ callId, userId: account.userId });
    return refuse('suspended', SUSPENDED(), account.userId);
  }

  const sourceError = await refuseSource(request, deps, account, serverSources);
  if (sourceError) return refuse('source_not_allowed', sourceError, account.userId);

  let body: Uint8Array;
  try {
    body = await request.readBody(MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof ApiError) return refusePayload(deps, account, error);
    throw error;
  }
  const parsed = parseAlertBody(body, request.contentType);
  if (!parsed.ok) {
    return refusePayload(
      deps,
      account,
      new ApiError(parsed.code, parsed.error, parsed.field ? { field: parsed.field } : {}),
      body,
    );
  }

  const key = dedupeKey(account.dedupeSeconds, { idempotencyKey: request.idempotencyKey, alert: parsed.alert });
  const dedupe = key === null ? undefined : { key, since: dedupeSince(deps.now(), account.dedupeSeconds) };
  const outcome = await deps.store.calls.accept(account.userId, account.plan, parsed.alert, dedupe);
  if (outcome.accepted && 'duplicate' in outcome) {
    deps.onRejectionRecorded?.({ callId: outcome.rowId, userId: account.userId });
    return {
      result: 'duplicate',
      userId: account.userId,
      callId: outcome.callId,
      answer: duplicateAnswer(deps.now(), outcome.callId),
    };
  }
  if (!outcome.accepted) {
    if (outcome.callId) deps.onRejectionRecorded?.({ callId: outcome.callId, userId: account.userId });
    return refuseOverLimit(outcome.decision, account.userId);
  }
  return acceptedAnswer(deps, account, outcome.callId, parsed.alert);
}

function refuseOverLimit(d: Exclude<LimitDecision, { allowed: true }>, userId: string): Outcome {
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

const SUSPENDED = () =>
  new ApiError('account_suspended', 'The account is suspended: no calls are placed. Ask the operator to resume it.');

function acceptedAnswer(deps: WebhookDeps, account: Account, callId: string, alert: Alert, announced = false): Outcome {
  deps.onCallQueued?.({ callId, kind: 'alert', message: alert.message, account, announced });
  deps.logger.debug('alert text', { call_id: callId, message: alert.message });
  return {
    result: 'accepted',
    userId: account.userId,
    callId,
    answer: jsonAnswer(200, acceptedBody(account, callId, alert, deps.now(), deps.smsGateway)),
  };
}

/**
 * A store that decides everything in one step (PostgreSQL: one round trip): the body is read and
 * parsed first, and the store checks the credentials before anything else of it counts, so the
 * answers are those of the step-by-step path (a wrong key is a 401 whatever the body).
 */
async function receiveInOneStep(
  request: AlertRequest,
  deps: WebhookDeps,
  throttle: AuthFailureThrottle,
  credentials: { userId: string; apiKey: string },
  receive: NonNullable<CallRepo['receiveAlert']>,
): Promise<Outcome> {
  let payload: AlertToReceive['payload'];
  let payloadError: ApiError | undefined;
  try {
    const body = await request.readBody(MAX_BODY_BYTES);
    const parsed = parseAlertBody(body, request.contentType);
    if (parsed.ok) payload = { ok: true, alert: parsed.alert };
    else {
      payloadError = new ApiError(parsed.code, parsed.error, parsed.field ? { field: parsed.field } : {});
      payload = { ok: false, error: payloadError.message, excerpt: bodyExcerpt(body) };
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    payloadError = error;
    payload = { ok: false, error: error.message, excerpt: '' };
  }
  const received = await receive({ ...credentials, payload });
  if (received.outcome !== 'unauthorized' && received.outcome !== 'accepted')
    deps.onRejectionRecorded?.({ callId: received.callId, userId: received.account.userId });
  switch (received.outcome) {
    case 'unauthorized':
      return refuseCredentials(request, deps, throttle);
    case 'suspended':
      return refuse('suspended', SUSPENDED(), received.account.userId);
    case 'invalid':
      return refuse('invalid_payload', payloadError!, received.account.userId);
    case 'refused':
      return refuseOverLimit(received.decision, received.account.userId);
    case 'accepted':
      return acceptedAnswer(
        deps,
        received.account,
        received.callId,
        (payload as { alert: Alert }).alert,
        received.announced,
      );
  }
}

/**
 * The webhook, shared by both transports (one failure throttle). It never rejects: a database
 * busy past its timeout is a 503 (nothing was recorded), any other failure is logged and a 500,
 * as the h3 app's error boundary answers.
 */
export function createWebhook(deps: WebhookDeps): Webhook {
  const throttle = new AuthFailureThrottle(deps.now);
  // Wrong credentials come in floods from anyone: counted, one line a minute (the first at once).
  const credentialRefusals = refusalTally(deps.logger, 'alert refused: wrong webhook URL');
  return async (request) => {
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = await handleAlert(request, deps, throttle);
    } catch (error) {
      if (!isStoreUnavailable(error)) {
        // The path is not logged: it holds the api_key.
        deps.logger.error('request failed', {
          path: 'webhook',
          method: request.method,
          status: 500,
          error,
        });
        return errorAnswer(new ApiError('internal'));
      }
      // The write lock was held past the webhook's busy timeout, or PostgreSQL is not answering:
      // the transaction was rolled back, nothing was recorded, and the sender may safely send the alert again.
      deps.logger.warn('alert refused: the database is busy or unreachable (503)', {
        path: 'webhook',
        status: 503,
        user_id: credentialsFromPath(request.pathname)?.userId,
        error,
      });
      deps.onResult?.('unavailable', performance.now() - started);
      return errorAnswer(
        new ApiError(
          'unavailable',
          'The database is busy: nothing was recorded; send the alert again.',
          { retry_after: 5 },
          { 'retry-after': '5' },
        ),
      );
    }
    logOutcome(deps.logger, credentialRefusals, outcome, request);
    deps.onResult?.(outcome.result, performance.now() - started);
    return outcome.answer;
  };
}

/**
 * One line per alert, at info: accepted (its call_id) or refused (the status and why). Never the
 * api_key (the path is not logged) nor the alert's text (only at debug, on a line of its own).
 */
function logOutcome(logger: Logger, credentialRefusals: RefusalTally, outcome: Outcome, request: AlertRequest): void {
  const status = outcome.answer.status;
  if (outcome.result === 'accepted') {
    logger.info('alert accepted', { call_id: outcome.callId, user_id: outcome.userId, status });
    return;
  }
  if (outcome.result === 'unauthorized' || outcome.result === 'too_many_failures') {
    credentialRefusals.note(outcome.result, {
      status,
      user_id: credentialsFromPath(request.pathname)?.userId,
      address: request.peer,
    });
    return;
  }
  logger.info('alert refused', { user_id: outcome.userId, status, result: outcome.result, reason: outcome.reason });
}

/** The h3 route: requests the Node fast path did not take (another method, an escaped path, a query). */
export function h3Webhook(webhook: Webhook) {
  return async (event: H3Event): Promise<Response> => {
    const answer = await webhook({
      method: event.req.method,
      pathname: event.url.pathname,
      contentType: event.req.headers.get('content-type') ?? undefined,
      peer: getRequestIP(event),
      forwardedFor: event.req.headers.get('x-forwarded-for') ?? undefined,
      idempotencyKey: event.req.headers.get('idempotency-key') ?? undefined,
      readBody: (limit) => readBodyLimited(event.req, limit, event.runtime?.node?.req),
    });
    const closing = closingUnread(event.runtime?.node?.req);
    return toResponse('connection' in closing ? { ...answer, headers: { ...answer.headers, ...closing } } : answer);
  };
}
