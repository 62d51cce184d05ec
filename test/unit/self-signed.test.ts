// The self-signed certificate serve makes for a data dir without one (src/http/self-signed.ts): read
// back by Node's own X.509 parser, it is for the names asked, signed by its own key, valid from now
// for the days asked, with the fields listhen's generator gave it.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addressBytes, makeSelfSigned } from '../../src/http/self-signed.js';

describe('makeSelfSigned', () => {
  const now = new Date('2026-11-29T10:00:00Z');
  const made = makeSelfSigned(['localhost', '127.0.0.1', '::1', 'alerts.example.test', '203.0.113.7'], 825, now);
  const cert = new X509Certificate(made.cert);

  it('is for the names and addresses asked, and signed by its own key', () => {
    expect(cert.subjectAltName).toBe(
      'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:alerts.example.test, IP Address:203.0.113.7',
    );
    expect(cert.checkHost('alerts.example.test')).toBe('alerts.example.test');
    expect(cert.checkIP('203.0.113.7')).toBe('203.0.113.7');
    expect(cert.checkHost('other.example.test')).toBeUndefined();
    expect(cert.issuer).toBe(cert.subject);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(made.key))).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(made.key).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
  });

  it('is valid from now for the days asked, for a server, not as a CA', () => {
    expect(new Date(cert.validFrom).toISOString()).toBe('2026-11-29T10:00:00.000Z');
    expect(new Date(cert.validTo).toISOString()).toBe('2029-03-03T10:00:00.000Z');
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
    expect(cert.subject.split('\n')).toEqual([
      'CN=localhost',
      'C=US',
      'ST=Michigan',
      'L=Berkley',
      'O=Testing Corp',
      'OU=IT department',
    ]);
  });

  it.each([
    ['all zero', 0x00],
    ['all ones', 0xff],
    ['0x7f', 0x7f],
  ])('a serial number of 16 bytes, positive, whatever the random bytes (%s)', (_, byte) => {
    // A random first byte of 0 once made a serial with a leading zero byte: 1 start in 256 of serve
    // failed with "asn1 encoding routines::illegal padding".
    const made = makeSelfSigned(['localhost'], 1, now, (size) => Buffer.alloc(size, byte));
    const serial = new X509Certificate(made.cert).serialNumber;
    expect(serial).toMatch(/^[4-7][0-9A-F]{31}$/);
  });

  it('a new serial number and key each time', () => {
    const other = new X509Certificate(makeSelfSigned(['localhost'], 1, now).cert);
    expect(other.serialNumber).not.toBe(cert.serialNumber);
    expect(other.publicKey.export({ type: 'spki', format: 'pem' })).not.toBe(
      cert.publicKey.export({ type: 'spki', format: 'pem' }),
    );
  });
});

describe('addressBytes', () => {
  it.each([
    ['127.0.0.1', '7f000001'],
    ['::1', '00000000000000000000000000000001'],
    ['::', '00000000000000000000000000000000'],
    ['fe80::1:2', 'fe800000000000000000000000010002'],
    ['2001:db8::ff00:42:8329', '20010db8000000000000ff0000428329'],
    ['1:2:3:4:5:6:7:8', '00010002000300040005000600070008'],
    ['::ffff:192.0.2.1', '00000000000000000000ffffc0000201'],
  ])('%s', (address, hex) => {
    expect(addressBytes(address).toString('hex')).toBe(hex);
  });
});
