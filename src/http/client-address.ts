// The client's address: the socket's peer, or, when that peer is a trusted reverse proxy, the
// address it appended last to X-Forwarded-For. Throttling counts an IPv6 address as its /64
// (core/connections/address-key); the allowed sources match the exact address.
import { getRequestIP, type H3Event } from 'h3';
import { throttleKey } from '../core/connections/address-key.js';
import type { AddressMatcher } from '../core/connections/address-match.js';

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

/** The address as throttling counts it: the exact address, an IPv6 one as its /64; "unknown" without a peer. */
export function addressOf(
  peer: string | undefined,
  forwardedFor: string | null | undefined,
  trustProxy: AddressMatcher | undefined,
): string {
  return throttleKey(exactAddressOf(peer, forwardedFor, trustProxy) ?? 'unknown');
}

/** Both at once, the forwarded header read once: the exact address and the one throttling counts. */
export function clientAddresses(
  peer: string | undefined,
  forwardedFor: string | null | undefined,
  trustProxy: AddressMatcher | undefined,
): { exact: string | undefined; counted: string } {
  const exact = exactAddressOf(peer, forwardedFor, trustProxy);
  return { exact, counted: throttleKey(exact ?? 'unknown') };
}

export function clientAddress(event: H3Event, trustProxy: AddressMatcher | undefined): string {
  return addressOf(getRequestIP(event), event.req.headers.get('x-forwarded-for'), trustProxy);
}
