// The self-signed certificate serve makes on its first start without one: an RSA-2048 key and an
// X.509 v3 certificate for the host's names, with the fields listhen's generator gave it (subject,
// extensions, validity), made with Node's own crypto. listhen's generator made a throwaway CA and a
// second key to sign with, and signed in JavaScript (node-forge): ~0.6 s of CPU per new data dir,
// most of a fresh serve's start. This one has one key and signs itself (issuer = subject, as the
// throwaway CA's name already was): ~0.2 s, the key's generation.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';
import type { TlsMaterial } from './tls.js';

/** A DER element: its tag byte and contents. */
function der(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  const n = body.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let left = n; left > 0; left = Math.floor(left / 256)) bytes.unshift(left % 256);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

const sequence = (...items: Buffer[]) => der(0x30, ...items);
const set = (...items: Buffer[]) => der(0x31, ...items);
const explicit = (n: number, item: Buffer) => der(0xa0 + n, item);
const boolean = (value: boolean) => der(0x01, Buffer.from([value ? 0xff : 0]));
const octets = (contents: Buffer) => der(0x04, contents);
const bits = (contents: Buffer, unused = 0) => der(0x03, Buffer.from([unused]), contents);
const NULL = Buffer.from([0x05, 0x00]);

/** A non-negative integer from its big-endian bytes, in DER's one shortest form. */
function integer(bytes: Buffer): Buffer {
  let start = 0;
  // A leading zero byte is allowed only before a byte whose top bit is set (OpenSSL refuses any
  // other as "illegal padding", and so does every TLS server that loads the certificate).
  while (start < bytes.length - 1 && bytes[start] === 0 && !(bytes[start + 1]! & 0x80)) start += 1;
  const shortest = bytes.subarray(start);
  // Two's complement: a leading bit set would read as negative.
  return der(0x02, (shortest[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), shortest]) : shortest);
}

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const out = [first! * 40 + second!];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let left = Math.floor(arc / 128); left > 0; left = Math.floor(left / 128)) chunk.unshift((left & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return der(0x06, Buffer.from(out));
}

/** UTCTime up to 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5), to the second. */
function time(at: Date): Buffer {
  const iso = at.toISOString().replace(/[-:T]|\.\d+/g, '');
  return at.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(iso.slice(2), 'ascii')) : der(0x18, Buffer.from(iso));
}

/** An IPv4 or IPv6 address as the 4 or 16 bytes of a subjectAltName iPAddress. */
export function addressBytes(address: string): Buffer {
  if (isIP(address) === 4) return Buffer.from(address.split('.').map(Number));
  let text = address.replace(/%.*$/, '');
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const all =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  for (const [i, group] of all.entries()) out.writeUInt16BE(Number.parseInt(group, 16), i * 2);
  return out;
}

// listhen's generator's subject (its defaults), kept so that the certificate reads as it did.
const SUBJECT: Array<[string, number, string]> = [
  ['2.5.4.3', 0x0c, 'localhost'], // commonName
  ['2.5.4.6', 0x13, 'US'], // countryName (PrintableString)
  ['2.5.4.8', 0x0c, 'Michigan'], // stateOrProvinceName
  ['2.5.4.7', 0x0c, 'Berkley'], // localityName
  ['2.5.4.10', 0x0c, 'Testing Corp'], // organizationName
  ['2.5.4.11', 0x0c, 'IT department'], // organizationalUnitName
];

function name(): Buffer {
  return sequence(...SUBJECT.map(([type, tag, value]) => set(sequence(oid(type), der(tag, Buffer.from(value))))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octets(value));
}

function extensions(names: string[]): Buffer {
  const altNames = names.map((n) => (isIP(n) ? der(0x87, addressBytes(n)) : der(0x82, Buffer.from(n, 'ascii'))));
  return explicit(
    3,
    sequence(
      extension('2.5.29.19', true, sequence()), // basicConstraints: not a CA
      extension('2.5.29.15', true, bits(Buffer.from([0xa0]), 5)), // keyUsage: digitalSignature, keyEncipherment
      extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'), oid('1.3.6.1.5.5.7.3.2'))), // serverAuth, clientAuth
      extension('2.5.29.17', false, sequence(...altNames)), // subjectAltName
    ),
  );
}

const SHA256_WITH_RSA = sequence(oid('1.2.840.113549.1.1.11'), NULL);

function pem(label: string, body: Buffer): string {
  const lines = body.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\r\n${lines.join('\r\n')}\r\n-----END ${label}-----\r\n`;
}

/** A new key and a certificate for `names` (host names and IP addresses), valid from now for `validityDays`. */
export function makeSelfSigned(
  names: string[],
  validityDays: number,
  now = new Date(),
  random: (size: number) => Buffer = randomBytes,
): TlsMaterial {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  // 16 bytes, positive and never shorter (RFC 5280 4.1.2.2: a positive number of at most 20 bytes).
  const serial = Buffer.from(random(16));
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  const notAfter = new Date(now);
  notAfter.setUTCDate(notAfter.getUTCDate() + validityDays);
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    SHA256_WITH_RSA,
    name(),
    sequence(time(now), time(notAfter)),
    name(),
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions(names),
  );
  const certificate = sequence(tbs, SHA256_WITH_RSA, bits(sign('sha256', tbs, privateKey)));
  return {
    cert: pem('CERTIFICATE', certificate),
    key: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  };
}
