// Which addresses a status callback may never reach (server-side request forgery: the service's
// own machine, its private network, a cloud's metadata service), unless the admin allows a range
// (RINGHOOK_CALLBACK_ALLOW). Checked on the address actually connected to. Pure.
import { BlockList, isIP } from 'node:net';
import type { AddressMatcher } from '../connections/address-match.js';

/** The ranges never reached, by CIDR, each with the kind of range a refusal names. */
const BLOCKED_RANGES: ReadonlyArray<[cidr: string, label: string]> = [
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata)'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/96', 'unspecified, loopback or IPv4-compatible'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'NAT64'],
  ['100::/64', 'discard'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2002::/16', '6to4'],
  ['fc00::/7', 'unique local (private)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

function rangesList(): Map<string, BlockList> {
  const byLabel = new Map<string, BlockList>();
  for (const [cidr, label] of BLOCKED_RANGES) {
    const [address = '', prefix] = cidr.split('/');
    const list = byLabel.get(label) ?? new BlockList();
    list.addSubnet(address, Number(prefix), isIP(address) === 4 ? 'ipv4' : 'ipv6');
    byLabel.set(label, list);
  }
  return byLabel;
}

const BLOCKED = rangesList();

/** The eight 16-bit groups of an IPv6 address (no zone), or null. */
function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const octets = v4[1]!.split('.').map(Number);
    text = `${text.slice(0, v4.index)}${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const zeros = tail === undefined ? 0 : 8 - front.length - back.length;
  const groups = [...front, ...new Array<number>(zeros).fill(0), ...back];
  return groups.length === 8 ? groups : null;
}

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d, in any spelling) as the IPv4 address it stands for; others unchanged. */
export function unmapAddress(address: string): string {
  const groups = ipv6Groups(address);
  if (!groups || groups.slice(0, 5).some((g) => g !== 0) || groups[5] !== 0xffff) return address;
  return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.');
}

/**
 * Why a callback must not connect to `address` (a sentence naming the kind of range), or null
 * when it may: a public address, or one the admin's `allow` list holds.
 */
export function callbackAddressRefusal(address: string, allow: AddressMatcher): string | null {
  const plain = unmapAddress(address);
  const version = isIP(plain);
  if (version === 0) return `${address} is not an IP address`;
  if (allow.matches(plain)) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  for (const [label, list] of BLOCKED) {
    if (list.check(plain, family))
      return `${address} is a ${label} address: callbacks go only to public addresses (RINGHOOK_CALLBACK_ALLOW allows a range)`;
  }
  return null;
}

/**
 * `localhost` and names under it are loopback without asking DNS (RFC 6761): a callback's name is
 * looked up in DNS only (not /etc/hosts), where they would not be found and so never refused as loopback.
 */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

export const LOCALHOST_ADDRESSES: ReadonlyArray<{ address: string; family: number }> = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];
