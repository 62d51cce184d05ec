// The SSRF rule of status callbacks: which addresses a callback may connect to.
import { describe, expect, it } from 'vitest';
import { parseAddressList } from '../../src/core/connections/address-match.js';
import { callbackAddressRefusal, isLocalhostName, unmapAddress } from '../../src/core/callbacks/callback-address.js';
import { pickAddress } from '../../src/callbacks/https-post.js';

const none = parseAddressList('');

describe('callbackAddressRefusal', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'this network'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique local'],
    ['fc00::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'NAT64'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(callbackAddressRefusal(address, none)).toContain(kind);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'lets a public address through: %s',
    (address) => {
      expect(callbackAddressRefusal(address, none)).toBeNull();
    },
  );

  it('lets an allowed range through, and only that range', () => {
    const allow = parseAddressList('127.0.0.1/32, 10.1.2.0/24');
    expect(callbackAddressRefusal('127.0.0.1', allow)).toBeNull();
    expect(callbackAddressRefusal('::ffff:127.0.0.1', allow)).toBeNull();
    expect(callbackAddressRefusal('10.1.2.99', allow)).toBeNull();
    expect(callbackAddressRefusal('127.0.0.2', allow)).toContain('loopback');
    expect(callbackAddressRefusal('10.1.3.1', allow)).toContain('private');
    expect(callbackAddressRefusal('::1', allow)).toContain('loopback');
  });

  it('reads IPv4-mapped IPv6 in any spelling', () => {
    expect(unmapAddress('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(unmapAddress('::FFFF:169.254.169.254')).toBe('169.254.169.254');
    expect(unmapAddress('2001:db8::1')).toBe('2001:db8::1');
  });
});

describe('isLocalhostName', () => {
  it('takes localhost and the names under it as loopback (RFC 6761), and nothing else', () => {
    expect(['localhost', 'LOCALHOST.', 'db.localhost', 'a.b.localhost'].map(isLocalhostName)).toEqual(
      Array(4).fill(true),
    );
    expect(['localhost.example', 'notlocalhost', 'example.com', '127.0.0.1'].map(isLocalhostName)).toEqual(
      Array(4).fill(false),
    );
  });
});

describe('pickAddress (after DNS)', () => {
  const resolving =
    (...addresses: string[]) =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('refuses a name that resolves to loopback, and one address among public ones is enough to refuse', async () => {
    expect(await pickAddress('hook.example', { allow: none, resolve: resolving('127.0.0.1') })).toEqual({
      refused: expect.stringContaining('loopback'),
    });
    expect(
      await pickAddress('hook.example', { allow: none, resolve: resolving('93.184.215.14', '169.254.169.254') }),
    ).toEqual({ refused: expect.stringContaining('link-local') });
  });

  it('pins the checked address of a public name, and takes an IP literal as it is', async () => {
    expect(await pickAddress('hook.example', { allow: none, resolve: resolving('93.184.215.14') })).toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    expect(await pickAddress('[::1]', { allow: none })).toEqual({ refused: expect.stringContaining('loopback') });
    expect(await pickAddress('localhost', { allow: parseAddressList('127.0.0.1/32,::1/128') })).toHaveProperty(
      'address',
    );
  });
});

describe('RINGHOOK_CALLBACK_ALLOW', () => {
  it('is read as addresses and CIDRs; a bad entry is a one-line configuration error', async () => {
    const { loadConfig } = await import('../../src/config/index.js');
    const config = loadConfig({ RINGHOOK_DATA_DIR: '/tmp/ringhook-unused', RINGHOOK_CALLBACK_ALLOW: '10.1.2.0/24' });
    expect(config.callbackAllow.matches('10.1.2.3')).toBe(true);
    expect(loadConfig({ RINGHOOK_DATA_DIR: '/tmp/ringhook-unused' }).callbackAllow.empty).toBe(true);
    expect(() =>
      loadConfig({ RINGHOOK_DATA_DIR: '/tmp/ringhook-unused', RINGHOOK_CALLBACK_ALLOW: '10.1.2.0/99' }),
    ).toThrow(/RINGHOOK_CALLBACK_ALLOW: "10\.1\.2\.0\/99" has a bad prefix length/);
  });
});
