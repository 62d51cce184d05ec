// Reading the dashboard's form posts: size-limited url-encoded bodies, checked with zod, and the
// checks every post must pass (same origin, CSRF token).
import type { z } from 'zod';
import { readBodyLimited } from '../body.js';

const FORM_MAX_BYTES = 8 * 1024;

export type FormResult<T> = { ok: true; data: T } | { ok: false; reason: string };

/** The url-encoded body as an object of first values, or undefined when it is not a form. */
export async function readForm(request: Request): Promise<Record<string, string> | undefined> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  let body: Uint8Array;
  try {
    body = await readBodyLimited(request, FORM_MAX_BYTES);
  } catch {
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(new TextDecoder().decode(body))) if (!(key in out)) out[key] = value;
  return out;
}

export function parseForm<S extends z.ZodType>(schema: S, form: Record<string, string>): FormResult<z.output<S>> {
  const result = schema.safeParse(form);
  return result.success
    ? { ok: true, data: result.data }
    : { ok: false, reason: result.error.issues[0]?.message ?? 'invalid form' };
}

/**
 * A post must come from one of our own pages. A browser that names the page's origin (Origin) must
 * name ours; one that says the request is cross-site or same-site (Sec-Fetch-Site) is refused.
 * Under Referrer-Policy no-referrer, Chromium sends "Origin: null" with form posts: that value
 * proves nothing either way, and the CSRF token decides.
 */
export function fromOurOrigin(request: Request, ownOrigins: ReadonlySet<string>): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin') return false;
  const origin = request.headers.get('origin');
  if (origin === null || origin === 'null') return true;
  return ownOrigins.has(origin);
}
