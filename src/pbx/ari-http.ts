// ARI's REST requests over node:http on kept-alive connections. The global fetch (undici) took
// ~0.5 ms of serve's CPU a request against ~0.07 ms here (bench/NOTES.md (8)), and a burst makes
// three a call (originate, play, hang up) on the same loop as the webhook.
import http from 'node:http';
import https from 'node:https';
import { errorCode } from '../lib/errors.js';

/** Asterisk closes a connection idle for 15 s (http.conf's session_keep_alive): ours are dropped before. */
const IDLE_CONNECTION_MS = 10_000;
const MAX_CONNECTIONS = 50;
/** No ARI reply comes near this (a list of a thousand channels is ~1 MB). */
const MAX_REPLY_BYTES = 32 * 1024 * 1024;

export interface HttpReply {
  status: number;
  text: string;
}

/** No reply within the request's deadline. */
export class RequestTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

export class KeptAliveHttp {
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;

  constructor(base: URL) {
    this.transport = base.protocol === 'https:' ? https : http;
    // At most as many connections as Asterisk's http.conf lets in by default (session_limit 100,
    // beyond which it closes new ones at once): more requests wait here for a free one.
    this.agent = new this.transport.Agent({
      keepAlive: true,
      timeout: IDLE_CONNECTION_MS,
      maxSockets: MAX_CONNECTIONS,
    });
  }

  /**
   * Rejects with the socket's own error (its `code`, e.g. ECONNREFUSED) or a RequestTimeoutError.
   * A kept-alive connection the server closed just as it was taken (ECONNRESET before any reply:
   * the request never reached it) is tried once more on a new one, within the same deadline.
   */
  request(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
  ): Promise<HttpReply> {
    const deadline = performance.now() + timeoutMs;
    const sent = { method, url, headers, body };
    return this.attempt(sent, timeoutMs).catch((error: Error & { reusedSocket?: boolean }) => {
      const left = deadline - performance.now();
      if (!error.reusedSocket || errorCode(error) !== 'ECONNRESET' || left <= 0) throw error;
      return this.attempt(sent, left);
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private attempt(
    {
      method,
      url,
      headers,
      body,
    }: { method: string; url: URL; headers: Record<string, string>; body: string | undefined },
    timeoutMs: number,
  ): Promise<HttpReply> {
    return new Promise((resolve, reject) => {
      let replied = false;
      const req = this.transport.request(
        url,
        {
          method,
          agent: this.agent,
          headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        },
        (res) => {
          replied = true;
          const chunks: Buffer[] = [];
          let bytes = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes > MAX_REPLY_BYTES) req.destroy(new Error(`the reply is larger than ${MAX_REPLY_BYTES} bytes`));
            else chunks.push(chunk);
          });
          res.on('end', () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
          });
          // The connection lost in the middle of the reply (or cut by the deadline or the size cap).
          res.on('error', fail);
          res.on(
            'close',
            () =>
              res.complete ||
              fail(Object.assign(new Error('the connection closed before the reply ended'), { code: 'ECONNRESET' })),
          );
        },
      );
      const timer = setTimeout(
        () => req.destroy(new RequestTimeoutError(`no reply within ${timeoutMs} ms`)),
        timeoutMs,
      );
      timer.unref();
      function fail(error: Error): void {
        clearTimeout(timer);
        reject(Object.assign(error, { reusedSocket: req.reusedSocket && !replied }));
      }
      req.on('error', fail);
      req.end(body);
    });
  }
}
