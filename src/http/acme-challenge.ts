// The plain-HTTP port when ringhook holds its own certificate (ACME): it answers the authority's
// HTTP-01 challenges, passes what a trusted proxy forwarded over HTTPS, and sends everyone else to
// the same path at the public HTTPS address (never at a Host header's say).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../lib/log.js';
import type { AddressMatcher } from '../core/connections/address-match.js';

const CHALLENGE_PATH = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]{1,200})$/;

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface AcmePlainHttpOptions {
  /** The key authorization for a token, or undefined when none is pending. */
  answer: (token: string) => Promise<string | undefined>;
  /** Where the rest goes: the public HTTPS origin, e.g. https://alerts.example.com. */
  publicOrigin: string;
  trustProxy: AddressMatcher;
  handler: NodeHandler;
  logger: Logger;
}

export function acmePlainHttp(options: AcmePlainHttpOptions): NodeHandler {
  return (req, res) => {
    const url = req.url ?? '/';
    const token = CHALLENGE_PATH.exec(url.split('?')[0]!)?.[1];
    if (token && (req.method === 'GET' || req.method === 'HEAD')) {
      options
        .answer(token)
        .then((keyAuthorization) => {
          if (keyAuthorization === undefined) {
            res
              .writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
              .end('no such challenge\n');
            return;
          }
          res
            .writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' })
            .end(keyAuthorization);
        })
        .catch((error: Error) => {
          options.logger.error('could not answer an ACME challenge', { error });
          res
            .writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
            .end('try again\n');
        });
      req.resume();
      return;
    }
    const proto = req.headers['x-forwarded-proto'];
    if (
      options.trustProxy.matches(req.socket.remoteAddress) &&
      typeof proto === 'string' &&
      proto.trim().toLowerCase() === 'https'
    ) {
      options.handler(req, res);
      return;
    }
    // 308 keeps a POST a POST; a browser's GET gets the classic 301.
    const status = req.method === 'GET' || req.method === 'HEAD' ? 301 : 308;
    res
      .writeHead(status, {
        location: `${options.publicOrigin}${url.startsWith('/') ? url : '/'}`,
        'cache-control': 'no-store',
        connection: 'close',
      })
      .end();
    req.resume();
  };
}
