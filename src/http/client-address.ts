// The client's address as throttling counts it: the socket's peer, or, when that peer is a trusted
// reverse proxy, the address it appended last to X-Forwarded-For; an IPv6 address as its /64
// (core/address-key).
import { getRequestIP, type H3Event } from 'h3';
import { throttleKey } from '../core/address-key.js';
import type { AddressMatcher } from '../core/address-match.js';

export function addressOf(
  peer: string | undefined,
  forwardedFor: string | null | undefined,
  trustProxy: AddressMatcher | undefined,
): string {
  const address = peer ?? 'unknown';
  if (!trustProxy?.matches(address)) return throttleKey(address);
  const last = forwardedFor
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .pop();
  return throttleKey(last ?? address);
}

/** The client's own address (no /64): the peer, or what a trusted proxy appended last to X-Forwarded-For. */
export function exactAddressOf(
  peer: string | undefined,
  forwardedFor: string | null | undefined,
  trustProxy: AddressMatcher | undefined,
): string | undefined {
  if (!peer || !trustProxy?.matches(peer)) return peer;
  const last = forwardedFor
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .pop();
  return last ?? peer;
}

export function clientAddress(event: H3Event, trustProxy: AddressMatcher | undefined): string {
  return addressOf(getRequestIP(event), event.req.headers.get('x-forwarded-for'), trustProxy);
}
