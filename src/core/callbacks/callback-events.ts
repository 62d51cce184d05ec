// What a status callback says and how it is signed (Standard Webhooks: `webhook-id`,
// `webhook-timestamp`, `webhook-signature` = `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`
// keyed with the bytes of a `whsec_` secret). Pure apart from drawing random bytes for a secret.
import { createHmac, randomBytes } from 'node:crypto';
import { isFinal, type CallState } from '../calls/call-state.js';

export const CALLBACK_EVENT_TYPES = [
  'call.queued',
  'call.ringing',
  'call.answered',
  'call.final',
  /** A decision key pressed on the phone (#56, core/calls/decision-keys): once per call, before its call.final. */
  'call.decision',
  /** A missed call is rung again later (core/calls/ring-again): the attempt next and when. */
  'call.retry_scheduled',
  'sms.sent',
  'sms.failed',
  'callback.test',
] as const;
export type CallbackEventType = (typeof CALLBACK_EVENT_TYPES)[number];

export const CALLBACK_SECRET_PREFIX = 'whsec_';
/** Standard Webhooks asks for 24 to 64 random bytes; 32 is SHA-256's block-sized key. */
const SECRET_BYTES = 32;
export const CALLBACK_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/;

/** The longest callback URL kept. */
export const CALLBACK_URL_MAX = 2048;

export function newCallbackSecret(): string {
  return CALLBACK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** `msg_` and 128 random bits: the same id on every try of one delivery, so receivers can drop repeats. */
export function newCallbackMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/** One signature, `v1,<base64>`, for the secret `whsec_…`. */
export function callbackSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(CALLBACK_SECRET_PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header: one signature per secret in use (two while a rotation overlaps), space-separated. */
export function callbackSignatureHeader(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets.map((secret) => callbackSignature(secret, id, timestampSeconds, body)).join(' ');
}

/** What a callback tells of a call, as much as the dashboard's history shows but never the phone number nor the message. */
export interface CallbackCallFacts {
  callId: string;
  userId: string;
  kind: string;
  status: string;
  error: string | null;
  smsStatus: string | null;
  smsError: string | null;
  smsParts: number | null;
  receivedAt: number;
  answeredAt: number | null;
  endedAt: number | null;
  /** Ring again (#54): which attempt the call is at (1 when absent), when the next is due, and the attempts before. */
  attempt?: number | undefined;
  retryAt?: number | null | undefined;
  earlierAttempts?: ReadonlyArray<{ at: number; outcome: string }> | undefined;
  /** The decision (#56), when one was recorded, and what lets its receiver match it to its order. */
  decisionKey?: string | null | undefined;
  decisionLabel?: string | null | undefined;
  decidedAt?: number | null | undefined;
  ticker?: string | null | undefined;
  action?: string | null | undefined;
  extra?: Record<string, unknown> | undefined;
  idempotencyKey?: string | null | undefined;
}

/** The alert's own `id` (a JSON field kept with its extra fields), when it is a string or a number. */
function alertId(extra: Record<string, unknown> | undefined): string | number | undefined {
  const id = extra?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** `call.decision`'s data: the key and label, and the alert's fields a receiver matches its order by, when it had them. */
function decisionData(call: CallbackCallFacts): Record<string, unknown> {
  const id = alertId(call.extra);
  return {
    key: call.decisionKey,
    label: call.decisionLabel,
    decided_at: iso(call.decidedAt ?? null),
    ...(call.ticker && { ticker: call.ticker }),
    ...(call.action && { action: call.action }),
    ...(id !== undefined && { alert_id: id }),
    ...(call.idempotencyKey && { idempotency_key: call.idempotencyKey }),
  };
}

export interface CallbackEvent {
  type: CallbackEventType;
  /** Unique per call and type: a step announced twice (two nodes, a replay) is kept once. */
  key: string;
  callId: string | null;
  data: Record<string, unknown>;
}

/**
 * The events a change of a call makes (none for dialing or an alert refused): its own step, and the
 * SMS backup's outcome once the record has one (the SMS is announced with the call's end or after it).
 */
export function callbackEventsFor(change: CallState | 'sms' | 'refused', call: CallbackCallFacts): CallbackEvent[] {
  const attempt = call.attempt ?? 1;
  const base = { call_id: call.callId, user_id: call.userId, kind: call.kind };
  // Each attempt's ringing and answer is an event of its own; the first keeps the key it always had.
  const event = (type: CallbackEventType, data: Record<string, unknown>): CallbackEvent => ({
    type,
    key:
      attempt > 1 && type !== 'call.final' && type !== 'call.decision'
        ? `${call.callId}:${type}:${attempt}`
        : `${call.callId}:${type}`,
    callId: call.callId,
    data: { ...base, ...(type.startsWith('call.') && { attempt }), ...data },
  });
  const events: CallbackEvent[] = [];
  if (change === 'queued' && attempt > 1) {
    const missed = call.earlierAttempts?.at(-1);
    events.push(
      event('call.retry_scheduled', { retry_at: iso(call.retryAt ?? null), missed_outcome: missed?.outcome ?? null }),
    );
  } else if (change === 'queued') events.push(event('call.queued', { received_at: iso(call.receivedAt) }));
  if (change === 'ringing') events.push(event('call.ringing', {}));
  if (change === 'answered') events.push(event('call.answered', { answered_at: iso(call.answeredAt) }));
  const final = change !== 'sms' && change !== 'refused' && isFinal(change);
  if (final && call.decisionKey) events.push(event('call.decision', decisionData(call)));
  if (final)
    events.push(
      event('call.final', {
        outcome: change,
        reason: call.error,
        answered: call.answeredAt !== null,
        ended_at: iso(call.endedAt),
      }),
    );
  if (final || change === 'sms') {
    if (call.smsStatus === 'sent' || call.smsStatus === 'delivered')
      events.push(event('sms.sent', { parts: call.smsParts }));
    if (call.smsStatus === 'failed') events.push(event('sms.failed', { reason: call.smsError }));
  }
  return events;
}

/** The body sent: Standard Webhooks' `{type, timestamp, data}`. */
export function callbackBody(type: CallbackEventType, at: number, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: new Date(at).toISOString(), data });
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
