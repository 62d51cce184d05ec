// SmsSender over an HTTP gateway (Kannel sendsms, Twilio-style Messages API, generic template).

import { errorCode } from '../lib/errors.js';
import { basicAuth } from '../lib/basic-auth.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../lib/log.js';
import type { HttpGatewayConfig } from '../config/index.js';
import { createReportHub, parseKannelDlr, parseTwilioStatus } from './delivery.js';
import { withoutPlaceholders } from '../config/index.js';
import { buildRequest, readVerdict, safeUrl, type HttpRequestSpec } from './http-presets.js';
import { sleep as realSleep, type Sleep } from '../lib/sleep.js';
import { type Attempt, withRetry } from './retry.js';
import { countSmsParts } from './segments.js';
import type { DeliveryReport, SmsCheck, SmsRequest, SmsResult, SmsSender } from './types.js';

export interface HttpSenderOptions {
  http: HttpGatewayConfig;
  from: string;
  dlrUrl: string | null;
  timeoutMs: number;
  retryAttempts: number;
  retryDelayMs: number;
}

export interface HttpSenderDeps {
  logger: Logger;
  fetch?: typeof fetch;
  sleep?: Sleep;
  newId?: () => string;
}

/** Network errors that happen before the request reached the gateway: nothing can have been accepted. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

function describeError(error: unknown): string {
  const code = errorCode(error);
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'timed out';
  const message =
    error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

export function createHttpSmsSender(options: HttpSenderOptions, deps: HttpSenderDeps): SmsSender {
  const log = deps.logger.child({ component: 'sms', gateway: options.http.preset });
  const gateway: Gateway = {
    options,
    fetch: deps.fetch ?? globalThis.fetch,
    sleep: deps.sleep ?? realSleep,
    newId: deps.newId ?? randomUUID,
    log,
    hub: createReportHub((error) => log.error('delivery report listener failed', { error })),
  };
  return {
    kind: options.http.preset,
    send: (req) => send(gateway, req),
    check: () => check(gateway),
    close: async () => {},
    onDeliveryReport: gateway.hub.on,
    handleDeliveryCallback: (params) => handleDeliveryCallback(gateway, params),
  };
}

/** One sender's settings and tools, shared by what it does. */
interface Gateway {
  options: HttpSenderOptions;
  fetch: typeof fetch;
  sleep: Sleep;
  newId: () => string;
  log: Logger;
  hub: ReturnType<typeof createReportHub>;
}

const target = (spec: HttpRequestSpec) => safeUrl(spec.url);

async function exchange(gateway: Gateway, spec: HttpRequestSpec): Promise<{ status: number; body: string }> {
  const res = await gateway.fetch(spec.url, {
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
    redirect: 'error',
    signal: AbortSignal.timeout(gateway.options.timeoutMs),
  });
  return { status: res.status, body: await boundedText(res) };
}

async function send(gateway: Gateway, req: SmsRequest): Promise<SmsResult> {
  const { options, log } = gateway;
  // Kannel gives no message id: ours goes into the dlr-url, and delivery reports carry it back.
  const localId = options.http.preset === 'kannel' && options.dlrUrl ? gateway.newId() : null;
  const spec = buildRequest(options.http, {
    to: req.to,
    from: options.from,
    text: req.text,
    reference: req.reference,
    localId,
    dlrUrl: options.dlrUrl,
  });
  const parts = countSmsParts(req.text);
  const started = Date.now();
  const result = await withRetry(options.retryAttempts, options.retryDelayMs, gateway.sleep, (attempt) =>
    sendAttempt(gateway, { req, spec, localId, parts, attempt }),
  );
  if (result.status === 'sent') {
    log.info('sms handed to gateway', {
      reference: req.reference,
      messageId: result.messageId,
      parts,
      ms: Date.now() - started,
    });
  }
  return result;
}

/** One request to the gateway and its verdict: retried only where the gateway cannot have taken the message. */
async function sendAttempt(
  gateway: Gateway,
  a: { req: SmsRequest; spec: HttpRequestSpec; localId: string | null; parts: number; attempt: number },
): Promise<Attempt> {
  const { req, spec, attempt } = a;
  let reply: { status: number; body: string };
  try {
    reply = await exchange(gateway, spec);
  } catch (error) {
    const code = errorCode(error);
    const notSent = code !== undefined && NOT_SENT_CODES.has(code);
    const error_ = `${target(spec)}: ${describeError(error)}${notSent ? '' : ' (the gateway may have taken the message)'}`;
    gateway.log.warn('sms gateway request failed', { reference: req.reference, attempt, error: error_ });
    return { done: false, retry: notSent, value: { status: 'failed', error: error_ } };
  }
  const verdict = readVerdict(gateway.options.http, reply.status, reply.body, a.localId);
  if (verdict.accepted) return { done: true, value: { status: 'sent', messageId: verdict.messageId, parts: a.parts } };
  gateway.log.warn('sms gateway refused the message', {
    reference: req.reference,
    attempt,
    status: reply.status,
    error: verdict.error,
  });
  return { done: false, retry: verdict.retryable, value: { status: 'failed', error: verdict.error } };
}

/** What `check` asks of each gateway: a request that proves the address and credentials and sends nothing. */
function checkRequest(http: HttpGatewayConfig): HttpRequestSpec {
  if (http.preset === 'twilio')
    return {
      url: `${http.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(http.accountSid)}.json`,
      method: 'GET',
      headers: { authorization: basicAuth(http.accountSid, http.authToken) },
      body: null,
    };
  // sendsms with credentials and no receiver: Kannel checks the credentials first, then
  // complains about the missing receiver, and sends nothing.
  if (http.preset === 'kannel') return { url: http.url, method: 'GET', headers: {}, body: null };
  return { url: `${new URL(withoutPlaceholders(http.url)).origin}/`, method: 'GET', headers: {}, body: null };
}

async function check(gateway: Gateway): Promise<SmsCheck> {
  const http = gateway.options.http;
  const spec = checkRequest(http);
  try {
    const reply = await exchange(gateway, spec);
    if (http.preset === 'kannel' && /authori[sz]ation failed/i.test(reply.body)) {
      return {
        ok: false,
        detail: `Kannel at ${target(spec)} rejects the username/password in RINGHOOK_SMS_HTTP_URL`,
      };
    }
    if (http.preset === 'twilio' && (reply.status === 401 || reply.status === 403)) {
      return { ok: false, detail: `Twilio rejects the account SID / auth token (${reply.status})` };
    }
    if (http.preset === 'twilio' && reply.status >= 400)
      return { ok: false, detail: `Twilio answered ${reply.status}` };
    return { ok: true, detail: `${http.preset} gateway at ${target(spec)} answers (${reply.status})` };
  } catch (error) {
    return { ok: false, detail: `${http.preset} gateway at ${target(spec)}: ${describeError(error)}` };
  }
}

function handleDeliveryCallback(gateway: Gateway, params: URLSearchParams): DeliveryReport | null {
  const preset = gateway.options.http.preset;
  const report = preset === 'twilio' ? parseTwilioStatus(params) : preset === 'kannel' ? parseKannelDlr(params) : null;
  if (report) {
    gateway.log.info('sms delivery report', { ...report });
    gateway.hub.emit(report);
  }
  return report;
}

/** A gateway's answer is a status line or a small JSON: what is past 8 KiB is not read (a broken or hostile gateway could send gigabytes). */
const MAX_REPLY_BYTES = 8 * 1024;

async function boundedText(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_REPLY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    // What was read is the answer; a body that cannot be cancelled is dropped with the response.
    await reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_REPLY_BYTES));
}
