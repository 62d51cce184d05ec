// POST /webhook/{user_id}/{api_key}: authenticate, parse, check limits, record, answer.
// Nothing slow happens before the answer: the call is placed after the 200 by the dialer.
// Transport-free: the Node fast path (webhook-node.ts) and the h3 route both call it.
import { getRequestIP, type H3Event } from 'h3';
import { ApiError } from '../lib/errors.js';
import { receivesCalls, type Account } from '../core/account.js';
import { MAX_BODY_BYTES, parseAlertBody } from '../core/payload.js';
import { isStoreUnavailable } from '../store/unavailable.js';
import type { Logger } from '../lib/log.js';
import { type RefusalTally, refusalTally } from '../lib/refusal-tally.js';
import { AuthFailureThrottle } from './auth-throttle.js';
import { closingUnread, readBodyLimited } from './body.js';
import { addressOf } from './client-address.js';
import { ANY_SOURCE } from '../core/webhook-sources.js';
import { dedupeKey, dedupeSince } from '../core/dedupe.js';
import { duplicateAnswer, refuseSource } from './webhook-owner-controls.js';
import { errorAnswer, toResponse, type JsonAnswer } from './respond.js';
import { credentialsFromPath } from '../core/webhook-path.js';
import { newCallId } from '../core/ids.js';
import { receiveInOneStep } from './webhook-one-step.js';
import {
  type AlertRequest,
  acceptedAnswer,
  bodyExcerpt,
  type Outcome,
  refuse,
  refuseOverLimit,
  SUSPENDED,
  type WebhookDeps,
} from './webhook-outcome.js';

export type { AlertRequest, WebhookDeps, WebhookResult } from './webhook-outcome.js';

export type Webhook = (request: AlertRequest) => Promise<JsonAnswer>;

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
  if (credentials && deps.store.calls.receiveAlert)
    return receiveInOneStep(
      request,
      deps,
      () => refuseCredentials(request, deps, throttle),
      credentials,
      deps.store.calls.receiveAlert.bind(deps.store.calls),
    );
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

  const sourceError = await refuseSource(request, deps, account, deps.webhookSources ?? ANY_SOURCE);
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
