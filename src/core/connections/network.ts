// IPv4 networks and addresses as NAT cares about them, and whether a set-up behind NAT is missing
// its public address. Pure.

/** a.b.c.d/n with the host bits cleared, or undefined when it is not an IPv4 network. */
export function parseCidr(text: string): string | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(text);
  if (!m) return undefined;
  const octets = m.slice(1, 5).map(Number);
  const bits = Number(m[5]);
  if (octets.some((o) => o > 255) || bits > 32) return undefined;
  const value = octets.reduce((v, o) => v * 256 + o, 0);
  const mask = bits === 0 ? 0 : 2 ** 32 - 2 ** (32 - bits);
  const network = Number(BigInt(value) & BigInt(mask));
  return `${[24, 16, 8, 0].map((s) => (network >>> s) & 255).join('.')}/${bits}`;
}

/** True for an IPv4 address in a private, carrier-grade NAT, link-local or loopback range. */
export function isPrivateIpv4(text: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(text);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return (
    a === 10 ||
    a === 127 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254)
  );
}

/**
 * The problem with calling `trunkAddress` from a machine whose own addresses are `localAddresses`,
 * or undefined when there is none: a machine with only private addresses calling a public trunk
 * is behind NAT, and without an external address its SDP names a private address the provider
 * cannot reach (the audio and the digits are lost).
 */
export function natProblem(input: {
  localAddresses: readonly string[];
  trunkAddress: string;
  externalAddress: string | undefined;
}): string | undefined {
  if (input.externalAddress !== undefined || isPrivateIpv4(input.trunkAddress)) return undefined;
  const own = input.localAddresses.filter((a) => !a.startsWith('127.'));
  if (own.length === 0 || own.some((a) => !isPrivateIpv4(a))) return undefined;
  return `this machine has only private addresses (${own.join(', ')}) and the trunk ${input.trunkAddress} is on the internet: behind NAT, with no RINGHOOK_SIP_EXTERNAL_ADDRESS, the provider is sent a private address for the audio and the digits`;
}
