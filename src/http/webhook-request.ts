// The webhook's first step: the request read once into one record, whichever transport carried it
// (the Node fast path, webhook-node.ts, or the h3 route). Every later step reads the record, never
// the request: the credentials from the path, the client's address (exact, and as throttling counts
// it), the idempotency key, and the body, read and parsed when a step first asks for it (the
// step-by-step path asks only once the account may send; PostgreSQL's one step asks at once).
import { parseExpiresIn, soonerExpiry } from '../core/calls/alert-expiry.js';
import {
  type Alert,
  bodyExcerpt,
  IDEMPOTENCY_KEY_KEPT,
  MAX_BODY_BYTES,
  type ParseResult,
  parseAlertBody,
} from '../core/webhook/payload.js';
import type { AddressMatcher } from '../core/connections/address-match.js';
import { credentialsFromPath, type WebhookCredentials } from '../core/webhook/webhook-path.js';
import { clientAddresses } from './client-address.js';
import { ApiError } from './errors.js';

/** What the webhook needs of a request, whichever transport carried it. */
export interface AlertRequest {
  method: string;
  pathname: string;
  contentType: string | undefined;
  /** The socket's peer address. */
  peer: string | undefined;
  forwardedFor: string | undefined;
  /** The Idempotency-Key header, when sent (duplicate alerts, core/webhook/dedupe). */
  idempotencyKey?: string | undefined;
  /** The Expires-In header, when sent (the alert's own expiry, core/calls/alert-expiry). */
  expiresIn?: string | undefined;
  /** The body, refused past `limit` bytes (an ApiError). */
  readBody(limit: number): Promise<Uint8Array>;
}

/** The body as the decision steps take it: the alert, or the 4xx to answer with an excerpt for the history. */
export type Payload = { ok: true; alert: Alert } | { ok: false; error: ApiError; excerpt: string };

/** The request as every step after the first reads it. */
export interface IncomingAlert {
  method: string;
  /** Null when the path holds no credentials an account can have. */
  credentials: WebhookCredentials | null;
  /** The client's own address (the allowed sources match it). */
  address: string | undefined;
  /** The address the failure throttle counts (an IPv6 address as its /64). */
  countedAddress: string;
  idempotencyKey: string | undefined;
  /** The body, read and parsed once, at the first call. */
  payload(): Promise<Payload>;
}

export function readAlertRequest(request: AlertRequest, trustProxy: AddressMatcher | undefined): IncomingAlert {
  let payload: Promise<Payload> | undefined;
  const readOnce = () => {
    payload ??= readPayload(request);
    return payload;
  };
  const { exact, counted } = clientAddresses(request.peer, request.forwardedFor, trustProxy);
  return {
    method: request.method,
    credentials: credentialsFromPath(request.pathname),
    address: exact,
    countedAddress: counted,
    idempotencyKey: request.idempotencyKey,
    payload: readOnce,
  };
}

async function readPayload(request: AlertRequest): Promise<Payload> {
  let body: Uint8Array;
  try {
    body = await request.readBody(MAX_BODY_BYTES);
  } catch (error) {
    // Too large, or a transfer the transport refused: answered as a bad payload, nothing to excerpt.
    if (!(error instanceof ApiError)) throw error;
    return { ok: false, error, excerpt: '' };
  }
  const parsed = withHeaderExpiry(parseAlertBody(body, request.contentType), request.expiresIn);
  if (parsed.ok) return withIdempotencyKey(parsed, request.idempotencyKey);
  const error = new ApiError(parsed.code, parsed.error, parsed.field ? { field: parsed.field } : {});
  return { ok: false, error, excerpt: bodyExcerpt(body) };
}

/** The Idempotency-Key kept with the alert as sent, when it is short enough (a decision's callback names it, #56). */
function withIdempotencyKey(
  parsed: { ok: true; alert: Alert },
  header: string | undefined,
): { ok: true; alert: Alert } {
  if (header === undefined || header === '' || header.length > IDEMPOTENCY_KEY_KEPT) return parsed;
  return { ok: true, alert: { ...parsed.alert, idempotencyKey: header } };
}

/** The Expires-In header beside the body's own `expires_in`: a bad one refuses the alert; both given, the sooner counts. */
function withHeaderExpiry(parsed: ParseResult, header: string | undefined): ParseResult {
  if (header === undefined || !parsed.ok) return parsed;
  const expiry = parseExpiresIn(header, 'Expires-In');
  if (!expiry.ok) return { ok: false, code: 'invalid_field', error: expiry.error, field: 'Expires-In' };
  const expiresIn = soonerExpiry(parsed.alert.expiresIn, expiry.value);
  return expiresIn === undefined ? parsed : { ok: true, alert: { ...parsed.alert, expiresIn } };
}
