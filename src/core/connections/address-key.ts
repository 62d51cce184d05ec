// What client throttling counts by. An IPv6 subscriber gets a whole /64 (2^64 addresses, free to
// change at every request), so an IPv6 address counts as its /64; an IPv4 address (also one mapped
// into IPv6) as itself. Pure.
import { isIPv4, isIPv6 } from 'node:net';

export function throttleKey(address: string): string {
  const bare = address.split('%')[0]!;
  if (!isIPv6(bare)) return address;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const part = (text: string) => (text === '' ? [] : text.split(':').flatMap(groupsOf));
  const front = part(head);
  const back = tail === undefined ? [] : part(tail);
  const zeros = Array<string>(8 - front.length - back.length).fill('0');
  return [...front, ...zeros, ...back];
}

/** One group, or the two groups of an IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4). */
function groupsOf(piece: string): string[] {
  if (!piece.includes('.')) return [Number.parseInt(piece, 16).toString(16)];
  const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}
