// Parses an alert body into the message to speak and the fields to keep. Pure: bytes in, result out.
// Where the webhook contract is silent (an empty body, a JSON body without a message, a message too
// long), the decisions are the ones the README states.
import { z } from 'zod';
import { parseExpiresIn } from '../calls/alert-expiry.js';
import { type DecisionKey, decisionKeysFromJson } from '../calls/decision-keys.js';
import { capExtraFields } from './extra-fields.js';

export const MAX_MESSAGE_CODE_POINTS = 500;
export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_JSON_DEPTH = 32;

export interface AlertFields {
  ticker?: string;
  price?: number;
  action?: string;
  strategy?: string;
  timestamp?: string;
}

export interface Alert {
  form: 'text' | 'json';
  message: string;
  truncated: boolean;
  /** Code points of the message as received, before truncation. */
  originalLength: number;
  fields: AlertFields;
  /** Fields the sender added beyond the known ones, kept as sent up to 4 KiB in all (core/webhook/extra-fields.ts). */
  extra: Record<string, unknown>;
  /** Seconds after its receipt it may still be called (`expires_in` or `Expires-In`, core/calls/alert-expiry); absent: no expiry of its own. */
  expiresIn?: number;
  /** Its own decision keys (#56, JSON `keys`), overriding the account's for its call; [] none for it; absent: the account's. */
  keys?: DecisionKey[];
  /** The Idempotency-Key header as sent (at most IDEMPOTENCY_KEY_KEPT characters): a decision's callback names it. */
  idempotencyKey?: string;
}

/** The longest Idempotency-Key kept with an alert (a longer one still counts for duplicates, core/webhook/dedupe). */
export const IDEMPOTENCY_KEY_KEPT = 255;

export type PayloadErrorCode =
  | 'empty_body'
  | 'invalid_encoding'
  | 'invalid_json'
  | 'not_an_object'
  | 'invalid_field'
  | 'body_too_large';

export type ParseResult =
  | { ok: true; alert: Alert }
  | { ok: false; code: PayloadErrorCode; error: string; field?: string };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

// C0 controls other than tab, line feed and carriage return, and DEL: never meant to be spoken.
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

// With the u flag a well-formed pair is one code point: only half of a pair is a surrogate.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why a text cannot be kept as sent: a control character, or half of a UTF-16 pair (JSON's "\ud800"), which no store can hold. */
function unkeepable(name: string, text: string): string | undefined {
  if (FORBIDDEN_CONTROL.test(text)) return `"${name}" contains control characters (such as NUL) that cannot be spoken`;
  if (LONE_SURROGATE.test(text))
    return `"${name}" contains half of a UTF-16 surrogate pair (such as \\ud800 alone), which is not text`;
  return undefined;
}

const optionalText = (name: string) =>
  z
    .string({ error: `"${name}" must be a string` })
    .max(200, { error: `"${name}" must be at most 200 characters` })
    .nullish()
    .superRefine((v, ctx) => {
      const problem = v ? unkeepable(name, v) : undefined;
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .transform((v) => v ?? undefined);

/** Longer than any price (digits, a sign, a point, an exponent): refused before any pattern reads it. */
const MAX_PRICE_CHARS = 40;

const priceSchema = z
  .union([z.number(), z.string()], { error: '"price" must be a number or a numeric string' })
  .nullish()
  .transform((value, ctx) => {
    if (value === null || value === undefined) return undefined;
    const n = typeof value === 'number' ? value : parseNumericString(value);
    if (n === undefined || !Number.isFinite(n)) {
      ctx.addIssue({
        code: 'custom',
        message: `"price" must be a finite number (got ${JSON.stringify(value).slice(0, 40)})`,
      });
      return z.NEVER;
    }
    return n;
  });

const timestampSchema = z.iso
  .datetime({ offset: true, error: '"timestamp" must be an ISO 8601 UTC date-time such as 2026-11-22T14:00:00Z' })
  .nullish()
  .transform((v) => v ?? undefined);

const jsonAlertSchema = z.object({
  message: z
    .string({ error: '"message" is required and must be a string' })
    .refine((m) => m.trim().length > 0, { error: '"message" must not be empty' }),
  ticker: optionalText('ticker'),
  price: priceSchema,
  action: optionalText('action'),
  strategy: optionalText('strategy'),
  timestamp: timestampSchema,
});

const KNOWN_KEYS = new Set(['message', 'ticker', 'price', 'action', 'strategy', 'timestamp', 'expires_in', 'keys']);

function parseNumericString(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed.length > MAX_PRICE_CHARS) return undefined;
  // Commas only as thousands separators ("1,234.5"); "1,5" is ambiguous and refused.
  const plain = /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/.test(trimmed) ? trimmed.replace(/,/g, '') : trimmed;
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(plain)) return undefined;
  return Number(plain);
}

function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** Depth of nested arrays/objects, computed without recursion so hostile input cannot overflow the stack. */
export function jsonDepth(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    const d = depth + 1;
    if (d > max) max = d;
    if (max > MAX_JSON_DEPTH) return max;
    for (const child of Object.values(node)) stack.push([child, d]);
  }
  return max;
}

/**
 * Cuts text to at most `max` code points without splitting a user-perceived character
 * (an emoji with its modifiers, a letter with its combining marks).
 */
export function truncateText(
  text: string,
  max = MAX_MESSAGE_CODE_POINTS,
): { text: string; truncated: boolean; length: number } {
  const length = codePointLength(text);
  if (length <= max) return { text, truncated: false, length };
  let out = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(text)) {
    const size = codePointLength(segment);
    if (used + size > max) break;
    out += segment;
    used += size;
  }
  // A single "character" longer than the limit (a letter with hundreds of combining marks) is cut.
  if (out === '') out = Array.from(text).slice(0, max).join('');
  return { text: out, truncated: true, length };
}

/** How a message the webhook cut is shown where the cut must be seen (its SMS): ending with "...". */
export const CUT_MARK = '...';
export const withCutMark = (message: string, truncated: boolean | number | undefined): string =>
  truncated ? `${message.trimEnd()}${CUT_MARK}` : message;

function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function fail(code: PayloadErrorCode, error: string, field?: string): ParseResult {
  return field === undefined ? { ok: false, code, error } : { ok: false, code, error, field };
}

function buildAlert(
  form: Alert['form'],
  rawMessage: string,
  fields: AlertFields,
  extra: Record<string, unknown>,
): ParseResult {
  const problem = unkeepable('message', rawMessage);
  if (problem) return fail('invalid_field', problem, 'message');
  const { text, truncated, length } = truncateText(rawMessage.trim());
  return { ok: true, alert: { form, message: text, truncated, originalLength: length, fields, extra } };
}

function parseJsonObject(object: Record<string, unknown>): ParseResult {
  if (jsonDepth(object) > MAX_JSON_DEPTH) {
    return fail('invalid_field', `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  const result = jsonAlertSchema.safeParse(object);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = typeof issue.path[0] === 'string' ? issue.path[0] : undefined;
    const message =
      field && issue.code === 'invalid_type' && object[field] === undefined && field === 'message'
        ? 'The JSON body has no "message" field: it is the text spoken in the call.'
        : issue.message;
    return fail('invalid_field', message, field);
  }
  const expiry = parseExpiresIn(object.expires_in, 'expires_in');
  if (!expiry.ok) return fail('invalid_field', expiry.error, 'expires_in');
  const keys = object.keys === undefined || object.keys === null ? undefined : decisionKeysFromJson(object.keys);
  if (keys && !keys.ok) return fail('invalid_field', `"keys": ${keys.error}`, 'keys');
  const { message, ...known } = result.data;
  const fields: AlertFields = Object.fromEntries(Object.entries(known).filter(([, v]) => v !== undefined));
  const { extra } = capExtraFields(Object.fromEntries(Object.entries(object).filter(([key]) => !KNOWN_KEYS.has(key))));
  const built = buildAlert('json', message, fields, extra);
  if (built.ok && expiry.value !== undefined) built.alert.expiresIn = expiry.value;
  if (built.ok && keys?.ok) built.alert.keys = keys.keys;
  return built;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Parses an alert body as the charting platform sent it. */
export function parseAlertBody(body: Uint8Array, contentType: string | undefined): ParseResult {
  if (body.byteLength > MAX_BODY_BYTES)
    return fail('body_too_large', `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`);
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return fail('invalid_encoding', 'The request body is not valid UTF-8 text.');
  }
  if (text.trim().length === 0) {
    return fail(
      'empty_body',
      'The request body is empty: send the alert message as plain text or as JSON with a "message" field.',
    );
  }

  const declaredJson = isJsonContentType(contentType);
  let parsed: unknown;
  let parsedOk = false;
  if (declaredJson || text.trimStart().startsWith('{')) {
    try {
      parsed = JSON.parse(text);
      parsedOk = true;
    } catch (error) {
      if (declaredJson) {
        // V8 quotes the text near the error, raw: its control characters are written as escapes.
        const detail = (error instanceof Error ? error.message : String(error)).replace(
          new RegExp(FORBIDDEN_CONTROL.source, 'g'),
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
        );
        return fail(
          'invalid_json',
          `The body is declared application/json but is not valid JSON (${detail}). Were the {{placeholders}} of the alert template left unquoted or unsubstituted?`,
        );
      }
    }
  }
  if (parsedOk && isPlainObject(parsed)) return parseJsonObject(parsed);
  if (declaredJson)
    return fail(
      'not_an_object',
      'The JSON body must be an object with a "message" field, not an array, string, number or null.',
    );
  return buildAlert('text', text, {}, {});
}

/** The start of a refused body as the history keeps it (800 bytes at most): control characters as spaces. */
export function bodyExcerpt(body: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false })
    .decode(body.subarray(0, 800))
    .replace(/[\u0000-\u001F\u007F]/g, ' ');
}
