// The client's address, for throttling: the socket's peer, or, when that peer is a trusted reverse
// proxy, the address it appended last to X-Forwarded-For.
import { getRequestIP, type H3Event } from 'h3';
import type { AddressMatcher } from './address-match.js';

export function addressOf(peer: string | undefined, forwardedFor: string | null | undefined, trustProxy: AddressMatcher | undefined): string {
  const address = peer ?? 'unknown';
  if (!trustProxy?.matches(address)) return address;
  const last = forwardedFor
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .pop();
  return last ?? address;
}

export function clientAddress(event: H3Event, trustProxy: AddressMatcher | undefined): string {
  return addressOf(getRequestIP(event), event.req.headers.get('x-forwarded-for'), trustProxy);
}
