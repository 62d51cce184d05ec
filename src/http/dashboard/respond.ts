// Responses of the dashboard: every one carries the security headers; pages are never cached.

/** Scripts and styles only from our own routes; no framing; forms post only to us. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  // The overview's "hear it" sample.
  "media-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  // The overview shows the webhook URL, a secret: no URL of ours may leak through Referer.
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

function headersWith(extra: Record<string, string>, cookies: readonly string[]): Headers {
  const headers = new Headers({ 'cache-control': 'no-store', ...SECURITY_HEADERS, ...extra });
  for (const cookie of cookies) headers.append('set-cookie', cookie);
  return headers;
}

export function htmlResponse(
  status: number,
  body: string,
  options: { cookies?: readonly string[]; headers?: Record<string, string> } = {},
): Response {
  return new Response(body, {
    status,
    headers: headersWith({ 'content-type': 'text/html; charset=utf-8', ...options.headers }, options.cookies ?? []),
  });
}

/** 303 See Other: the browser follows with a GET (after every form post). */
export function redirectTo(location: string, cookies: readonly string[] = []): Response {
  return new Response(null, { status: 303, headers: headersWith({ location }, cookies) });
}

export function asset(body: string | Uint8Array, contentType: string): Response {
  // Assets change with the binary: a short cache keeps pages fast without serving stale code for long.
  return new Response(body as ConstructorParameters<typeof Response>[0], {
    status: 200,
    headers: { ...SECURITY_HEADERS, 'content-type': contentType, 'cache-control': 'private, max-age=300' },
  });
}

export function plain(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(text, {
    status,
    headers: headersWith({ 'content-type': 'text/plain; charset=utf-8', ...headers }, []),
  });
}
