// The webhook's URL: /webhook/{user_id}/{api_key}, and which requests the Node fast path may take.

export interface WebhookCredentials {
  userId: string;
  apiKey: string;
}

/**
 * ['', 'webhook', user_id, api_key] with an optional trailing slash, percent-decoded; null for
 * anything else, and for credentials no account can have (control characters such as %00, which
 * PostgreSQL cannot even look up).
 */
export function credentialsFromPath(pathname: string): WebhookCredentials | null {
  const segments = pathname.split('/');
  if (segments.length === 5 && segments[4] === '') segments.pop();
  if (segments.length !== 4) return null;
  try {
    const credentials = { userId: decodeURIComponent(segments[2]!), apiKey: decodeURIComponent(segments[3]!) };
    return CONTROL.test(credentials.userId) || CONTROL.test(credentials.apiKey) ? null : credentials;
  } catch {
    return null;
  }
}

const CONTROL = /[\u0000-\u001F\u007F]/;

// Only URL-safe characters (every user_id and api_key is made of them), no escapes, dots or query:
// for such a target the raw request line is already the pathname h3 would see.
const FAST_TARGET = /^\/webhook\/[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+\/?$/;

/**
 * A request the Node listener answers itself, before h3: a POST to a plain webhook URL. Anything
 * else (another method, a percent-escape, a query) goes through h3, whose URL handling and error
 * answers stay the reference.
 */
export function takesFastPath(method: string | undefined, target: string | undefined): boolean {
  return method === 'POST' && target !== undefined && FAST_TARGET.test(target);
}
