// What each HTTP gateway preset sends and how its reply is read. Pure, no I/O: the sender in
// http-gateway.ts does the fetching.

import { z } from 'zod';
import { PLACEHOLDER } from '../config/index.js';
import { basicAuth } from '../lib/basic-auth.js';
import type { GenericHttpConfig, HttpGatewayConfig, KannelConfig, TwilioConfig } from '../config/index.js';
import { KANNEL_DLR_MASK, kannelDlrUrl } from './delivery.js';
import { isGsm7 } from './gsm7.js';

export interface OutgoingSms {
  to: string;
  from: string;
  text: string;
  reference: string;
  /** Our id for this message, put in the Kannel dlr-url; null when no delivery reports are asked. */
  localId: string | null;
  /** ringhook's delivery-report endpoint, or null. */
  dlrUrl: string | null;
}

export interface HttpRequestSpec {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string | null;
}

/** What a reply means. `retry`: the gateway certainly did not take it and says so (429, 503). */
export type ReplyVerdict =
  | { accepted: true; messageId: string | null }
  | { accepted: false; error: string; retryable: boolean };

// ---- Kannel sendsms ------------------------------------------------------------------------

export function kannelRequest(cfg: KannelConfig, sms: OutgoingSms): HttpRequestSpec {
  const url = new URL(cfg.url);
  const q = url.searchParams;
  q.set('from', sms.from);
  q.set('to', sms.to);
  q.set('text', sms.text);
  q.set('charset', 'UTF-8');
  // coding=2 is UCS-2; otherwise Kannel converts the UTF-8 text to GSM 7-bit (coding 0, its default).
  if (!isGsm7(sms.text)) q.set('coding', '2');
  if (sms.dlrUrl && sms.localId) {
    q.set('dlr-mask', String(KANNEL_DLR_MASK));
    q.set('dlr-url', kannelDlrUrl(sms.dlrUrl, sms.localId));
  }
  return { url: url.toString(), method: 'GET', headers: {}, body: null };
}

/** Kannel answers 202 "0: Accepted for delivery" or "3: Queued for later delivery"; errors are 4xx/5xx with a text. */
export function kannelVerdict(status: number, body: string, localId: string | null): ReplyVerdict {
  const text = body.trim().slice(0, 300);
  if (status >= 200 && status < 300 && /^[03]:/.test(text)) return { accepted: true, messageId: localId };
  const error = `Kannel answered ${status}: ${text || '(empty)'}`;
  // 503 is Kannel's "Sending failed" / queue full: nothing was queued.
  return { accepted: false, error, retryable: status === 503 };
}

// ---- Twilio Messages API -------------------------------------------------------------------

export function twilioRequest(cfg: TwilioConfig, sms: OutgoingSms): HttpRequestSpec {
  const form = new URLSearchParams({ To: sms.to, From: sms.from, Body: sms.text });
  if (sms.dlrUrl) form.set('StatusCallback', sms.dlrUrl);
  return {
    url: `${cfg.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(cfg.accountSid)}/Messages.json`,
    method: 'POST',
    headers: {
      authorization: basicAuth(cfg.accountSid, cfg.authToken),
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: form.toString(),
  };
}

const twilioCreated = z.object({
  sid: z.string().min(1),
  status: z.string().optional(),
  num_segments: z.union([z.string(), z.number()]).optional(),
});
const twilioError = z.object({ code: z.number().optional(), message: z.string(), status: z.number().optional() });

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

export function twilioVerdict(status: number, body: string): ReplyVerdict {
  const json = parseJson(body);
  if (status >= 200 && status < 300) {
    const ok = twilioCreated.safeParse(json);
    if (ok.success) return { accepted: true, messageId: ok.data.sid };
    // Accepted by status but the reply is not what the API documents: it did take the message.
    return { accepted: true, messageId: null };
  }
  const err = twilioError.safeParse(json);
  const detail = err.success
    ? `${err.data.message}${err.data.code ? ` (code ${err.data.code})` : ''}`
    : body.trim().slice(0, 300);
  return {
    accepted: false,
    error: `Twilio answered ${status}: ${detail}`,
    retryable: status === 429 || status === 503,
  };
}

// ---- generic template ----------------------------------------------------------------------

type Escape = (value: string) => string;
const jsonEscape: Escape = (v) => JSON.stringify(v).slice(1, -1);

/** Replaces the placeholders; every value goes through `escape`. */
export function fillTemplate(template: string, sms: OutgoingSms, escapeValue: Escape): string {
  const values: Record<string, string> = { to: sms.to, from: sms.from, text: sms.text, reference: sms.reference };
  return template.replace(PLACEHOLDER, (_, key: string) => escapeValue(values[key] ?? ''));
}

export function genericRequest(cfg: GenericHttpConfig, sms: OutgoingSms): HttpRequestSpec {
  const url = fillTemplate(cfg.url, sms, encodeURIComponent);
  const headers: Record<string, string> = { ...cfg.headers };
  let body: string | null = null;
  if (cfg.method === 'POST' && cfg.body !== null) {
    body = fillTemplate(cfg.body, sms, cfg.bodyFormat === 'json' ? jsonEscape : encodeURIComponent);
    const hasType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
    if (!hasType)
      headers['content-type'] = cfg.bodyFormat === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
  }
  return { url, method: cfg.method, headers, body };
}

/** Follows a dotted path ("data.id") into a JSON value; numbers become strings. */
export function pickField(json: unknown, path: string): string | null {
  let cur: unknown = json;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return null;
    cur = (cur as Record<string, unknown>)[key];
  }
  return typeof cur === 'string' || typeof cur === 'number' ? String(cur) : null;
}

export function genericVerdict(cfg: GenericHttpConfig, status: number, body: string): ReplyVerdict {
  const snippet = body.trim().slice(0, 300);
  if (!cfg.successStatus(status)) {
    return {
      accepted: false,
      error: `gateway answered ${status} (expected ${cfg.successStatusText}): ${snippet || '(empty)'}`,
      retryable: status === 429 || status === 503,
    };
  }
  if (cfg.successMatch && !cfg.successMatch.test(body)) {
    return {
      accepted: false,
      error: `gateway answered ${status} but the reply does not match ${cfg.successMatch}: ${snippet || '(empty)'}`,
      retryable: false,
    };
  }
  return { accepted: true, messageId: cfg.idField ? pickField(parseJson(body), cfg.idField) : null };
}

// ---- dispatch ------------------------------------------------------------------------------

export function buildRequest(cfg: HttpGatewayConfig, sms: OutgoingSms): HttpRequestSpec {
  switch (cfg.preset) {
    case 'kannel':
      return kannelRequest(cfg, sms);
    case 'twilio':
      return twilioRequest(cfg, sms);
    case 'generic':
      return genericRequest(cfg, sms);
  }
}

export function readVerdict(
  cfg: HttpGatewayConfig,
  status: number,
  body: string,
  localId: string | null,
): ReplyVerdict {
  switch (cfg.preset) {
    case 'kannel':
      return kannelVerdict(status, body, localId);
    case 'twilio':
      return twilioVerdict(status, body);
    case 'generic':
      return genericVerdict(cfg, status, body);
  }
}

/** Removes secrets from a URL before it is logged or put in an error. */
export function safeUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = '***';
    for (const key of ['password', 'pass', 'pwd', 'token', 'api_key', 'apikey', 'key', 'secret'])
      if (u.searchParams.has(key)) u.searchParams.set(key, '***');
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
