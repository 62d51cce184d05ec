import { describe, expect, it } from 'vitest';
import { isPrivateIpv4, natProblem, parseCidr } from '../../src/core/connections/network.js';

describe('parseCidr / isPrivateIpv4', () => {
  it('clears the host bits, refuses what is not a network', () => {
    expect(parseCidr('192.168.1.77/24')).toBe('192.168.1.0/24');
    expect(parseCidr('10.1.2.3/8')).toBe('10.0.0.0/8');
    expect(parseCidr('0.0.0.0/0')).toBe('0.0.0.0/0');
    expect(parseCidr('203.0.113.7/32')).toBe('203.0.113.7/32');
    for (const bad of ['192.168.1.0', '300.1.1.1/8', '10.0.0.0/33', 'a.b.c.d/8', ''])
      expect(parseCidr(bad), bad).toBeUndefined();
  });

  it('private, CGNAT, link-local and loopback ranges, not the public ones around them', () => {
    for (const a of [
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.1',
      '100.64.0.1',
      '127.0.0.1',
      '169.254.1.1',
    ])
      expect(isPrivateIpv4(a), a).toBe(true);
    for (const a of ['172.15.0.1', '172.32.0.1', '100.128.0.1', '203.0.113.7', '8.8.8.8', 'home.example.net'])
      expect(isPrivateIpv4(a), a).toBe(false);
  });
});

describe('natProblem', () => {
  it('only private addresses here, a public trunk, no external address: behind NAT, say so', () => {
    expect(
      natProblem({
        localAddresses: ['127.0.0.1', '192.168.1.20'],
        trunkAddress: '198.51.100.10',
        externalAddress: undefined,
      }),
    ).toMatch(/only private addresses \(192\.168\.1\.20\).*no RINGHOOK_SIP_EXTERNAL_ADDRESS/);
  });

  it('no problem with an external address, a public address here, or a trunk on the LAN', () => {
    expect(
      natProblem({ localAddresses: ['192.168.1.20'], trunkAddress: '198.51.100.10', externalAddress: '203.0.113.7' }),
    ).toBeUndefined();
    expect(
      natProblem({
        localAddresses: ['192.168.1.20', '203.0.113.7'],
        trunkAddress: '198.51.100.10',
        externalAddress: undefined,
      }),
    ).toBeUndefined();
    expect(
      natProblem({ localAddresses: ['192.168.1.20'], trunkAddress: '192.168.1.1', externalAddress: undefined }),
    ).toBeUndefined();
    expect(
      natProblem({ localAddresses: ['127.0.0.1'], trunkAddress: '198.51.100.10', externalAddress: undefined }),
    ).toBeUndefined();
  });
});
