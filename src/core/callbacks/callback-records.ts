// Status callbacks as the store keeps them: an account's settings and its outbox of deliveries.
import type { CallbackEventType } from './callback-events.js';

export const DELIVERY_STATUSES = ['pending', 'sending', 'delivered', 'failed', 'gone'] as const;
/**
 * pending: waiting for its next try; sending: claimed by a node (until its lease ends); delivered: a
 * 2xx came back; failed: given up (a day of tries, or refused before sending); gone: the receiver
 * answered 410, or the callback was turned off before it was sent.
 */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface CallbackSettings {
  userId: string;
  /** null: callbacks off. */
  url: string | null;
  /** The secrets to sign with, the newest first: two while a rotation's overlap lasts. */
  secrets: string[];
  /** When the previous secret stops being used (null: no rotation under way). */
  previousUntil: number | null;
  /** Why callbacks were turned off by ringhook (a 410), shown on the dashboard until the URL is set again. */
  offNote: string | null;
}

export interface NewDelivery {
  messageId: string;
  /** Unique: an event made twice is kept once. */
  eventKey: string;
  userId: string;
  callId: string | null;
  type: CallbackEventType;
  body: string;
  createdAt: number;
}

export interface CallbackDelivery extends NewDelivery {
  id: number;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  lastAttemptAt: number | null;
  lastHttpStatus: number | null;
  lastError: string | null;
  deliveredAt: number | null;
  /** The claim that sends it now (a node and a random token): only its holder records the try. */
  claim: string | null;
}

export interface DeliveryAttempt {
  status: Exclude<DeliveryStatus, 'sending'>;
  at: number;
  nextAttemptAt: number;
  httpStatus: number | null;
  error: string | null;
}
