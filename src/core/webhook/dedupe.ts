// Duplicate alerts: which alerts count as the same one, and for how long. Off unless the account
// sets a window (the seed's contract: every accepted alert rings). The key is what the store
// compares within the window: the sender's Idempotency-Key header, else the JSON body's `id`,
// else the message with its fields (ticker, price, action, strategy, timestamp and the extra fields).
import { hash } from 'node:crypto';
import type { Alert } from './payload.js';

/** The longest window an account may set: a day. */
export const MAX_DEDUPE_SECONDS = 86_400;

/** "0", "off" or a number of seconds (1 to a day); returns the seconds (0 = off) or an error line. */
export function parseDedupeSeconds(input: string): { ok: true; seconds: number } | { ok: false; error: string } {
  const text = input.trim().toLowerCase();
  if (text === 'off' || text === '0') return { ok: true, seconds: 0 };
  if (!/^\d+$/.test(text) || Number(text) > MAX_DEDUPE_SECONDS)
    return { ok: false, error: `--dedupe must be "off" or a number of seconds from 0 to ${MAX_DEDUPE_SECONDS}` };
  return { ok: true, seconds: Number(text) };
}

export interface DedupeSource {
  /** The Idempotency-Key header, when sent. */
  idempotencyKey?: string | undefined;
  alert: Pick<Alert, 'message' | 'fields' | 'extra'>;
}

/**
 * Stable JSON: keys sorted at every depth (UTF-16 order, as `sort()` and `<` compare), undefined
 * values left out, so {a,b} and {b,a} are the same fields. Built in one string, without an array
 * of entries per object: PostgreSQL's webhook computes it for every alert (its window is learnt
 * only in the database), and the stored keys must stay byte for byte what they were.
 */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) {
    let items = '';
    for (let i = 0; i < value.length; i++) items += `${i === 0 ? '' : ','}${canonical(value[i])}`;
    return `[${items}]`;
  }
  const object = value as Record<string, unknown>;
  let members = '';
  for (const key of Object.keys(object).sort()) {
    const member = object[key];
    if (member !== undefined) members += `${members === '' ? '' : ','}${JSON.stringify(key)}:${canonical(member)}`;
  }
  return `{${members}}`;
}

/**
 * The key two alerts share when they are the same alert, or null when the account does not
 * dedupe. A digest (the message never stored twice); the kind of key is its prefix, so a body can
 * never collide with a header's key.
 */
export function dedupeKey(windowSeconds: number, source: DedupeSource): string | null {
  return windowSeconds > 0 ? alertKey(source) : null;
}

/** The key whatever the account's window (PostgreSQL's one step learns the window only in the database). */
export function alertKey(source: DedupeSource): string {
  // The one-shot hash: a Hash object per alert cost ten times more (PostgreSQL's webhook computes a key for every alert).
  const digest = (text: string) => hash('sha256', text, 'base64url');
  const header = source.idempotencyKey?.trim();
  if (header) return `k:${digest(header)}`;
  const id = bodyId(source.alert.extra);
  if (id) return `i:${digest(id)}`;
  const { message, fields, extra } = source.alert;
  return `b:${digest(canonical({ message, fields, extra }))}`;
}

/** The JSON body's top-level `id` (kept among the extra fields), when a non-empty string or a number. */
function bodyId(extra: Record<string, unknown>): string | undefined {
  const id = extra.id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  if (typeof id === 'string' && id.trim() !== '') return id.trim();
  return undefined;
}

/** The earliest received_at an earlier alert may have to be this one's duplicate. */
export function dedupeSince(now: number, windowSeconds: number): number {
  return now - windowSeconds * 1000;
}

/** What the window does, in plain words for the owner's dashboard. */
export function describeDedupe(windowSeconds: number): string {
  if (windowSeconds <= 0) return 'Off: every alert rings, identical or not.';
  return `Two identical alerts within ${windowSeconds} s ring once: the second is answered with the first alert's call_id and "duplicate": true, places no call and counts nothing. An Idempotency-Key header or a JSON "id" field, when sent, decides instead of the body.`;
}
