// What a callback URL may be: https, a host, no user or password in it, not too long. Pure.
import { CALLBACK_URL_MAX } from './callback-events.js';

/** "off" (or empty) turns callbacks off: null. Otherwise the URL, or the one-line reason it is refused. */
export function parseCallbackUrl(text: string): { url: string | null } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.toLowerCase() === 'off') return { url: null };
  if (trimmed.length > CALLBACK_URL_MAX)
    return { error: `the callback URL is longer than ${CALLBACK_URL_MAX} characters` };
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return { error: 'the callback URL is not a URL: give one such as https://example.com/ringhook' };
  }
  if (url.protocol !== 'https:') return { error: 'the callback URL must start with https://' };
  if (url.username || url.password) return { error: 'the callback URL must not carry a user or password' };
  if (url.hash) return { error: 'the callback URL must not have a #fragment' };
  return { url: url.href };
}
