// POST /webhook/{user_id}/{api_key}: read the request, decide (the store), answer: each step its own file.
// Nothing slow happens before the answer: the call is placed after the 200 by the dialer.
// Transport-free: the Node fast path (webhook-node.ts) and the h3 route both call it.
import { getRequestIP, type H3Event } from 'h3';
import { ApiError } from './errors.js';
import { isStoreUnavailable } from '../store/index.js';
import type { Logger } from '../lib/log.js';
import { type RefusalTally, refusalTally } from '../lib/refusal-tally.js';
import { AuthFailureThrottle } from './auth-throttle.js';
import { closingUnread, readBodyLimited } from './body.js';
import { ANY_SOURCE } from '../core/webhook/webhook-sources.js';
import { errorAnswer, jsonAnswer, toResponse, type JsonAnswer } from './respond.js';
import { credentialsFromPath } from '../core/webhook/webhook-path.js';
import { receiveInOneStep } from './webhook-one-step.js';
import { receiveStepByStep } from './webhook-step-by-step.js';
import { type AlertRequest, readAlertRequest } from './webhook-request.js';
import { acceptedReply } from './webhook-accepted.js';
import type { Outcome, Receiver, Reply, Verdict, WebhookDeps } from './webhook-outcome.js';
import { refusalReply } from './webhook-refusal.js';

export type { WebhookDeps, WebhookResult } from './webhook-outcome.js';
export type { AlertRequest } from './webhook-request.js';

export type Webhook = (request: AlertRequest) => Promise<JsonAnswer>;

/**
 * One alert, step by step: the request read into one record; the verdict (the store's, for a POST
 * with credentials); the refused alert's history row told to the live history; the reply, written.
 */
async function handleAlert(
  request: AlertRequest,
  deps: WebhookDeps,
  receive: Receiver,
  throttle: AuthFailureThrottle,
): Promise<Outcome> {
  const incoming = readAlertRequest(request, deps.trustProxy);
  const { credentials } = incoming;
  const verdict: Verdict =
    incoming.method !== 'POST'
      ? { outcome: 'method_not_allowed', method: incoming.method }
      : credentials === null
        ? { outcome: 'unauthorized' }
        : await receive(incoming, credentials);
  if ('rowId' in verdict && verdict.rowId !== undefined)
    deps.onRejectionRecorded?.({ callId: verdict.rowId, userId: verdict.account.userId });
  const reply: Reply =
    verdict.outcome === 'accepted' || verdict.outcome === 'duplicate'
      ? acceptedReply(verdict, deps)
      : refusalReply(verdict, incoming.countedAddress, throttle);
  return Object.assign(reply, { answer: jsonAnswer(reply.status, reply.body, reply.headers) });
}

/**
 * The webhook, shared by both transports (one failure throttle). It never rejects: a database
 * busy past its timeout is a 503 (nothing was recorded), any other failure is logged and a 500,
 * as the h3 app's error boundary answers.
 */
export function createWebhook(deps: WebhookDeps): Webhook {
  const throttle = new AuthFailureThrottle(deps.now);
  // The store's step, by what the store can do: PostgreSQL decides in one round trip.
  const receive: Receiver = (incoming, credentials) => {
    const { calls } = deps.store;
    const server = deps.webhookSources ?? ANY_SOURCE;
    return calls.receiveAlert
      ? receiveInOneStep(incoming, credentials, calls.receiveAlert.bind(calls), server)
      : receiveStepByStep(incoming, credentials, deps, server);
  };
  // Wrong credentials come in floods from anyone: counted, one line a minute (the first at once).
  const credentialRefusals = refusalTally(deps.logger, 'alert refused: wrong webhook URL');
  return async (request) => {
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = await handleAlert(request, deps, receive, throttle);
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
 * One line per alert, at info: accepted (its call_id), a duplicate (the first alert's call_id), or
 * refused (the status and why). Never the api_key (the path is not logged) nor the alert's text
 * (only at debug, on a line of its own).
 */
function logOutcome(logger: Logger, credentialRefusals: RefusalTally, outcome: Outcome, request: AlertRequest): void {
  const status = outcome.answer.status;
  if (outcome.result === 'accepted') {
    logger.info('alert accepted', { call_id: outcome.callId, user_id: outcome.userId, status });
    return;
  }
  // Answered 200 `success: true`: the sender's alert is taken, as the first one's call.
  if (outcome.result === 'duplicate') {
    logger.info('alert accepted as a duplicate: no new call', {
      call_id: outcome.callId,
      user_id: outcome.userId,
      status,
    });
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
      expiresIn: event.req.headers.get('expires-in') ?? undefined,
      readBody: (limit) => readBodyLimited(event.req, limit, event.runtime?.node?.req),
    });
    const closing = closingUnread(event.runtime?.node?.req);
    return toResponse('connection' in closing ? { ...answer, headers: { ...answer.headers, ...closing } } : answer);
  };
}
