// Matches client addresses against a list of addresses and CIDR blocks (trusted reverse proxies).
import { BlockList, isIP } from 'node:net';

export interface AddressMatcher {
  matches(address: string | undefined): boolean;
  readonly empty: boolean;
}

/** The address as it is matched: an IPv4-mapped IPv6 address as IPv4; null when it is no IP address. */
export function normalizeAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } | null {
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const version = isIP(plain);
  if (version === 4) return { address: plain, family: 'ipv4' };
  if (version === 6) return { address: plain, family: 'ipv6' };
  return null;
}

/** Parses "127.0.0.1, 10.0.0.0/8, ::1"; throws an Error naming the first bad entry. */
export function parseAddressList(text: string): AddressMatcher {
  const list = new BlockList();
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const parts = entry.split('/');
    if (parts.length > 2) throw new Error(`"${entry}" is not an IP address or CIDR block`);
    const [addr = '', prefixText] = parts;
    const parsed = normalizeAddress(addr);
    if (!parsed) throw new Error(`"${entry}" is not an IP address or CIDR block`);
    if (prefixText === undefined) {
      list.addAddress(parsed.address, parsed.family);
      continue;
    }
    const prefix = Number(prefixText);
    const maxPrefix = parsed.family === 'ipv4' ? 32 : 128;
    if (!/^\d+$/.test(prefixText) || prefix > maxPrefix)
      throw new Error(`"${entry}" has a bad prefix length (0 to ${maxPrefix})`);
    list.addSubnet(parsed.address, prefix, parsed.family);
  }
  return {
    empty: entries.length === 0,
    matches(address) {
      if (!address || entries.length === 0) return false;
      const parsed = normalizeAddress(address);
      return parsed !== null && list.check(parsed.address, parsed.family);
    },
  };
}
