// Reads a request body into memory, refusing to read past a limit. Reads the Node request
// directly when there is one (much cheaper than a web ReadableStream), else the web Request.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { ApiError } from './errors.js';

function tooLarge(limit: number): ApiError {
  return new ApiError('body_too_large', `The request body is larger than ${Math.floor(limit / 1024)} KiB.`);
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** Requests whose body is over the limit (declared so, or read past it): their connection is closed after the answer. */
const overLimit = new WeakSet<object>();

function readNodeBody(req: Readable, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const done = (error?: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (error) {
        // The rest is left to Node, which discards it; the connection is never torn down here.
        req.resume();
        reject(error);
      } else resolve(concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        overLimit.add(req);
        done(tooLarge(limit));
      } else chunks.push(chunk);
    };
    const onEnd = () => done();
    const onError = (error: Error) =>
      done(new ApiError('bad_request', `The request body could not be read: ${error.message}.`));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

async function readWebBody(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.releaseLock();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return concat(chunks, size);
}

/** A declared Content-Length over the limit is refused before a byte is read. */
function refuseDeclared(contentLength: string | null | undefined, limit: number, nodeRequest?: object): void {
  const declared = Number(contentLength ?? NaN);
  if (!Number.isFinite(declared) || declared <= limit) return;
  if (nodeRequest) overLimit.add(nodeRequest);
  throw tooLarge(limit);
}

export async function readBodyLimited(request: Request, limit: number, nodeRequest?: Readable): Promise<Uint8Array> {
  refuseDeclared(request.headers.get('content-length'), limit, nodeRequest);
  return nodeRequest ? readNodeBody(nodeRequest, limit) : readWebBody(request, limit);
}

/**
 * The header that ends the connection after the answer when the request's body is over the limit
 * and has not all arrived: Node would otherwise read and drop whatever the sender goes on sending.
 * Only then: a body still arriving that is within it (a reverse proxy's, after a 401) is read to its
 * end as before, since closing on it resets the connection and the proxy answers 502 instead.
 */
export function closingUnread(
  req: (Pick<IncomingMessage, 'complete'> & object) | undefined,
): { connection: 'close' } | Record<string, never> {
  return req !== undefined && !req.complete && overLimit.has(req) ? { connection: 'close' } : {};
}

/** The body of a bare Node request (the webhook's fast path, before h3). */
export async function readNodeBodyLimited(request: IncomingMessage, limit: number): Promise<Uint8Array> {
  refuseDeclared(request.headers['content-length'], limit, request);
  return readNodeBody(request, limit);
}
