// The client's address, for throttling: the socket's peer, or, when that peer is a trusted reverse
// proxy, the address it appended last to X-Forwarded-For.
import { getRequestIP, type H3Event } from 'h3';
import type { AddressMatcher } from './address-match.js';

export function clientAddress(event: H3Event, trustProxy: AddressMatcher | undefined): string {
  const peer = getRequestIP(event) ?? 'unknown';
  if (!trustProxy?.matches(peer)) return peer;
  const forwarded = event.req.headers.get('x-forwarded-for');
  const last = forwarded
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .pop();
  return last ?? peer;
}
