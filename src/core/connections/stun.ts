// STUN Binding (RFC 5389), as much as learning this network's public address needs: the request,
// and the mapped address in a success response. Pure; a response is external input and anything
// that is not a well-formed answer to our own transaction is refused (undefined).

const MAGIC_COOKIE = 0x2112a442;
const BINDING_REQUEST = 0x0001;
const BINDING_SUCCESS = 0x0101;
const MAPPED_ADDRESS = 0x0001;
const XOR_MAPPED_ADDRESS = 0x0020;

/** A Binding request with the given 12-byte transaction id. */
export function stunBindingRequest(transactionId: Buffer): Buffer {
  if (transactionId.length !== 12) throw new Error('a STUN transaction id is 12 bytes');
  const message = Buffer.alloc(20);
  message.writeUInt16BE(BINDING_REQUEST, 0);
  message.writeUInt16BE(0, 2);
  message.writeUInt32BE(MAGIC_COOKIE, 4);
  transactionId.copy(message, 8);
  return message;
}

/** The IPv4 address a Binding success response for `transactionId` reports, or undefined. */
export function stunMappedAddress(response: Buffer, transactionId: Buffer): string | undefined {
  if (response.length < 20 || response.readUInt16BE(0) !== BINDING_SUCCESS || response.readUInt32BE(4) !== MAGIC_COOKIE)
    return undefined;
  if (!response.subarray(8, 20).equals(transactionId)) return undefined;
  const end = 20 + response.readUInt16BE(2);
  if (end > response.length) return undefined;
  let plain: string | undefined;
  for (let at = 20; at + 4 <= end; ) {
    const type = response.readUInt16BE(at);
    const length = response.readUInt16BE(at + 2);
    const value = response.subarray(at + 4, at + 4 + length);
    at += 4 + Math.ceil(length / 4) * 4;
    // Family 0x01 is IPv4: 1 reserved byte, family, port, 4 address bytes.
    if (value.length < 8 || value[1] !== 0x01) continue;
    const octets = [...value.subarray(4, 8)];
    if (type === XOR_MAPPED_ADDRESS)
      return octets.map((o, i) => o ^ ((MAGIC_COOKIE >>> (24 - 8 * i)) & 0xff)).join('.');
    if (type === MAPPED_ADDRESS) plain ??= octets.join('.');
  }
  return plain;
}
