// Reads a request body into memory, refusing to read past a limit.
import { ApiError } from '../errors.js';

export async function readBodyLimited(request: Request, limit: number): Promise<Uint8Array> {
  const tooLarge = () => new ApiError('body_too_large', `The request body is larger than ${Math.floor(limit / 1024)} KiB.`);
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
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
      throw tooLarge();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
