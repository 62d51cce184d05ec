// The webhook's fast path: a plain POST /webhook/{user_id}/{api_key} is answered straight from the
// Node request, before h3: the body read from the Node stream, the JSON written with its
// Content-Length (no web streams, no chunked encoding). The same webhook (validation, store,
// throttle) as the h3 route, so the answers are the same; every other request goes to `fallback`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { takesFastPath } from '../core/webhook/webhook-path.js';
import { closingUnread, readNodeBodyLimited } from './body.js';
import type { Webhook } from './webhook.js';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A header as web Headers.get gives it: repeated values joined with ", " (what h3 sees). Read from
 * the raw headers: headersDistinct would build arrays for every header of every request.
 */
function header(req: IncomingMessage, name: string): string | undefined {
  const raw = req.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name)
      value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}

export function withWebhookFastPath(webhook: Webhook, fallback: NodeHandler): NodeHandler {
  return (req, res) => {
    if (!takesFastPath(req.method, req.url)) {
      fallback(req, res);
      return;
    }
    void webhook({
      method: 'POST',
      pathname: req.url!,
      contentType: header(req, 'content-type'),
      peer: req.socket.remoteAddress,
      forwardedFor: header(req, 'x-forwarded-for'),
      idempotencyKey: header(req, 'idempotency-key'),
      expiresIn: header(req, 'expires-in'),
      readBody: (limit) => readNodeBodyLimited(req, limit),
    }).then((answer) => {
      res.writeHead(answer.status, {
        ...answer.headers,
        ...closingUnread(req),
        'content-length': Buffer.byteLength(answer.body),
      });
      res.end(answer.body);
    });
  };
}
