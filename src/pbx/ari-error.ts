// How an ARI REST call fails, and what Asterisk said about it.
import { z } from 'zod';

export type AriErrorKind = 'http' | 'network' | 'timeout' | 'invalid_reply';

/**
 * The words of an error body that is not ARI's JSON: Asterisk's HTTP server answers some refusals
 * (503 "Shutdown in progress") with an HTML page, whose markup would fill a call's history.
 */
export function plainText(body: string): string {
  const inBody = /<body[^>]*>([\s\S]*?)(?:<address|<\/body)/i.exec(body)?.[1] ?? body;
  return inBody
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A failed ARI REST call: `status` is the HTTP status (undefined when no reply came). */
export class AriError extends Error {
  override readonly name = 'AriError';
  constructor(
    readonly kind: AriErrorKind,
    readonly method: string,
    readonly path: string,
    readonly status: number | undefined,
    /** Asterisk's own explanation (the `message` of its JSON error body), if it gave one. */
    readonly ariMessage: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      `ARI ${method} ${path} failed: ${status !== undefined ? `HTTP ${status}` : kind}${ariMessage ? ` (${ariMessage})` : ''}`,
      options,
    );
  }
}

// Asterisk explains errors as {"message": …} (most routes) or {"error": …} (originate failures).
export const ErrorBody = z
  .object({ message: z.string().optional(), error: z.string().optional() })
  .loose()
  .transform((b) => b.message ?? b.error);
