// The dashboard's cookies. The __Host- prefix makes the browser insist on Secure, Path=/ and no Domain.
import { z } from 'zod';
import { TOKEN_PATTERN } from '../../store/index.js';

export const SESSION_COOKIE = '__Host-ringhook_session';
/** Before sign-in: a server-issued token (presession.ts) that the sign-in form must echo. */
export const PRESESSION_COOKIE = '__Host-ringhook_presession';

const tokenSchema = z.string().regex(TOKEN_PATTERN);

export function readCookies(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!(name in out)) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}

/** The named cookie's value as sent, or undefined. */
export function readCookie(request: Request, name: string): string | undefined {
  return readCookies(request.headers.get('cookie'))[name];
}

/** A well-formed token from the named cookie, or undefined. */
export function readTokenCookie(request: Request, name: string): string | undefined {
  const parsed = tokenSchema.safeParse(readCookie(request, name));
  return parsed.success ? parsed.data : undefined;
}

export function setCookie(
  name: string,
  value: string,
  maxAgeSeconds: number,
  sameSite: 'Lax' | 'Strict' = 'Lax',
): string {
  return `${name}=${value}; Path=/; Secure; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAgeSeconds}`;
}

export function clearCookie(name: string): string {
  return `${name}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`;
}
