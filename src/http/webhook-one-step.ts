// The webhook on a store that decides everything in one step (PostgreSQL: one round trip, migration
// 014's function). The body is read and parsed first, and the store checks the credentials before
// anything else of it counts, then the suspension, the allowed sources, the payload, a duplicate
// and the limits, so the answers are those of the step-by-step path (webhook.ts): a wrong key is a
// 401 whatever the body, an address outside the sources a 403 whatever the body.
import { ApiError } from '../lib/errors.js';
import { type Alert, MAX_BODY_BYTES, parseAlertBody } from '../core/payload.js';
import type { AlertToReceive, ReceivedAlert } from '../core/records.js';
import { ANY_SOURCE, parseSourceRule } from '../core/webhook-sources.js';
import type { CallRepo } from '../store/contract.js';
import { exactAddressOf } from './client-address.js';
import { duplicateAnswer, sourceRefusalError, sourceRefusalReason } from './webhook-owner-controls.js';
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

/** The body as the store takes it, and the error to answer when it is refused. */
async function readPayload(request: AlertRequest): Promise<{ payload: AlertToReceive['payload']; error?: ApiError }> {
  try {
    const body = await request.readBody(MAX_BODY_BYTES);
    const parsed = parseAlertBody(body, request.contentType);
    if (parsed.ok) return { payload: { ok: true, alert: parsed.alert } };
    const error = new ApiError(parsed.code, parsed.error, parsed.field ? { field: parsed.field } : {});
    return { payload: { ok: false, error: error.message, excerpt: bodyExcerpt(body) }, error };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { payload: { ok: false, error: error.message, excerpt: '' }, error };
  }
}

/**
 * The request as the store receives it: the client's address and, when the server's own rule
 * refuses it, the reason the history keeps; whether the account's rule refuses it is the store's
 * to say (only the database knows the account's rule at that moment).
 */
function toReceive(
  request: AlertRequest,
  deps: WebhookDeps,
  credentials: { userId: string; apiKey: string },
  payload: AlertToReceive['payload'],
): AlertToReceive {
  const address = exactAddressOf(request.peer, request.forwardedFor, deps.trustProxy);
  const server = deps.webhookSources ?? ANY_SOURCE;
  return {
    ...credentials,
    payload,
    address,
    idempotencyKey: request.idempotencyKey,
    ...(!server.allows(address) && { serverRefusal: sourceRefusalReason(address, server) }),
  };
}

/** The history row a refusal or a duplicate left (the live history shows it), if any. */
function recordedRow(received: ReceivedAlert): { callId: string; userId: string } | null {
  switch (received.outcome) {
    case 'unauthorized':
    case 'accepted':
      return null;
    case 'duplicate':
      return { callId: received.rowId, userId: received.account.userId };
    default:
      return { callId: received.callId, userId: received.account.userId };
  }
}

export async function receiveInOneStep(
  request: AlertRequest,
  deps: WebhookDeps,
  refuseCredentials: () => Outcome,
  credentials: { userId: string; apiKey: string },
  receive: NonNullable<CallRepo['receiveAlert']>,
): Promise<Outcome> {
  const { payload, error: payloadError } = await readPayload(request);
  const received = await receive(toReceive(request, deps, credentials, payload));
  const row = recordedRow(received);
  if (row) deps.onRejectionRecorded?.(row);
  switch (received.outcome) {
    case 'unauthorized':
      return refuseCredentials();
    case 'suspended':
      return refuse('suspended', SUSPENDED(), received.account.userId);
    case 'source_not_allowed': {
      const rule =
        received.setBy === 'server'
          ? (deps.webhookSources ?? ANY_SOURCE)
          : parseSourceRule(received.account.webhookSources);
      return refuse('source_not_allowed', sourceRefusalError(rule, received.setBy), received.account.userId);
    }
    case 'invalid':
      return refuse('invalid_payload', payloadError!, received.account.userId);
    case 'duplicate':
      return {
        result: 'duplicate',
        userId: received.account.userId,
        callId: received.callId,
        answer: duplicateAnswer(deps.now(), received.callId),
      };
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
