import { describe, expect, it } from 'vitest';
import { throttleKey } from '../../src/core/connections/address-key.js';
import { addressOf, clientAddresses } from '../../src/http/client-address.js';
import { parseAddressList } from '../../src/core/connections/address-match.js';

describe('throttleKey', () => {
  it('counts an IPv6 address as its /64, whatever its spelling; an IPv4 address (mapped or not) as itself', () => {
    const key = '2001:db8:1:2::/64';
    for (const a of [
      '2001:db8:1:2::1',
      '2001:0db8:0001:0002:ffff:ffff:ffff:fffe',
      '2001:DB8:1:2:0:0:0:9',
      '2001:db8:1:2::7%eth0',
    ])
      expect(throttleKey(a)).toBe(key);
    expect(throttleKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(throttleKey('::1')).toBe('0:0:0:0::/64');
    expect(throttleKey('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(throttleKey('64:ff9b::198.51.100.7')).toBe('64:ff9b:0:0::/64');
    expect(throttleKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(throttleKey('203.0.113.9')).toBe('203.0.113.9');
    expect(throttleKey('unknown')).toBe('unknown');
  });

  it('is what the throttles get, behind a trusted proxy too', () => {
    expect(addressOf('2001:db8:1:2::5', null, undefined)).toBe('2001:db8:1:2::/64');
    const proxy = parseAddressList('127.0.0.1');
    expect(addressOf('127.0.0.1', '198.51.100.1, 2001:db8:9:9::42', proxy)).toBe('2001:db8:9:9::/64');
  });

  it('gives the exact address beside the counted one, and "unknown" counted without a peer', () => {
    const proxy = parseAddressList('127.0.0.1');
    expect(clientAddresses('127.0.0.1', '2001:db8:9:9::42', proxy)).toEqual({
      exact: '2001:db8:9:9::42',
      counted: '2001:db8:9:9::/64',
    });
    expect(clientAddresses('203.0.113.9', '198.51.100.1', proxy)).toEqual({
      exact: '203.0.113.9',
      counted: '203.0.113.9',
    });
    expect(clientAddresses(undefined, '198.51.100.1', proxy)).toEqual({ exact: undefined, counted: 'unknown' });
  });
});
