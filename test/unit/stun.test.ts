import { expect, it } from 'vitest';
import { stunBindingRequest, stunMappedAddress } from '../../src/core/connections/stun.js';

const id = Buffer.from('0123456789ab');

/** A Binding success response carrying the given attributes (type, value). */
function response(attributes: Array<[number, Buffer]>, transactionId = id, type = 0x0101): Buffer {
  const body = Buffer.concat(
    attributes.map(([t, v]) =>
      Buffer.concat([
        Buffer.from([t >> 8, t & 255, v.length >> 8, v.length & 255]),
        v,
        Buffer.alloc((4 - (v.length % 4)) % 4),
      ]),
    ),
  );
  const head = Buffer.alloc(20);
  head.writeUInt16BE(type, 0);
  head.writeUInt16BE(body.length, 2);
  head.writeUInt32BE(0x2112a442, 4);
  transactionId.copy(head, 8);
  return Buffer.concat([head, body]);
}
const xorMapped = (address: string) =>
  Buffer.from([
    0,
    1,
    0x21 ^ 0x13,
    0x12 ^ 0xc4,
    ...address.split('.').map((o, i) => Number(o) ^ [0x21, 0x12, 0xa4, 0x42][i]!),
  ]);

it('a Binding request: type, no attributes, the magic cookie and our transaction id', () => {
  expect(stunBindingRequest(id).toString('hex')).toBe(`000100002112a442${id.toString('hex')}`);
  expect(() => stunBindingRequest(Buffer.alloc(4))).toThrow(/12 bytes/);
});

it('reads the XOR-MAPPED-ADDRESS (RFC 5389), or the plain MAPPED-ADDRESS of an older server', () => {
  expect(stunMappedAddress(response([[0x0020, xorMapped('203.0.113.1')]]), id)).toBe('203.0.113.1');
  expect(stunMappedAddress(response([[0x0001, Buffer.from([0, 1, 0x13, 0xc4, 198, 51, 100, 7])]]), id)).toBe(
    '198.51.100.7',
  );
  // Both: the XOR one wins (a NAT that rewrites addresses in payloads cannot garble it).
  expect(
    stunMappedAddress(
      response([
        [0x0001, Buffer.from([0, 1, 0, 0, 10, 0, 0, 1])],
        [0x8022, Buffer.from('coturn')],
        [0x0020, xorMapped('203.0.113.9')],
      ]),
      id,
    ),
  ).toBe('203.0.113.9');
});

it.each([
  ['another transaction', response([[0x0020, xorMapped('203.0.113.1')]], Buffer.from('ba9876543210'))],
  ['an error response', response([[0x0020, xorMapped('203.0.113.1')]], id, 0x0111)],
  ['a truncated message', response([[0x0020, xorMapped('203.0.113.1')]]).subarray(0, 26)],
  ['an IPv6 mapped address only', response([[0x0020, Buffer.from([0, 2, 0, 0, ...new Array(16).fill(1)])]])],
  ['no address at all', response([])],
  ['a few random bytes', Buffer.from('not a stun message at all')],
])('refuses %s', (_name, message) => {
  expect(stunMappedAddress(message, id)).toBeUndefined();
});
