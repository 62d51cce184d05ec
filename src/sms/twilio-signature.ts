// Twilio's request signature (X-Twilio-Signature), as its "Webhooks security" page describes it:
// HMAC-SHA1 keyed with the account's auth token over the full URL Twilio requested followed by
// every POST parameter, sorted by name, as name+value; base64. Pure.
import { createHmac } from 'node:crypto';

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The parameters as Twilio signs them; a repeated name counts each distinct value once, sorted (as Twilio's own library does). */
function signedParams(params: URLSearchParams): string {
  const byName = new Map<string, Set<string>>();
  for (const [name, value] of params) byName.set(name, (byName.get(name) ?? new Set()).add(value));
  return [...byName.keys()]
    .sort(byCodeUnit)
    .map((name) =>
      [...byName.get(name)!]
        .sort(byCodeUnit)
        .map((value) => name + value)
        .join(''),
    )
    .join('');
}

export function twilioSignature(authToken: string, url: string, params: URLSearchParams): string {
  return createHmac('sha1', authToken)
    .update(url + signedParams(params), 'utf8')
    .digest('base64');
}

/**
 * The URL as Twilio may have signed it: Twilio is inconsistent about a default port (:443), so
 * its libraries accept the URL with and without it; so does ringhook.
 */
export function twilioSignedUrls(url: string): string[] {
  const u = new URL(url);
  const withoutPort = new URL(u);
  withoutPort.port = '';
  const defaultPort = u.protocol === 'https:' ? '443' : '80';
  // WHATWG URL drops a default port from `port`, so the explicit form is written out by hand.
  const withPort = `${u.protocol}//${u.hostname}:${u.port || defaultPort}${u.pathname}${u.search}`;
  return [...new Set([url, withoutPort.toString(), withPort])];
}
