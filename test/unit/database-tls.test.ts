// Which ways to PostgreSQL may be used (core/server/database-tls.ts). Pure: no connection is made.
import { describe, expect, it } from 'vitest';
import { databaseHosts, databaseTls } from '../../src/core/server/database-tls.js';

const decide = (url: string, caFile = false, allowUnverified = false) => databaseTls(url, { caFile, allowUnverified });

describe('the hosts of a URL', () => {
  it.each([
    ['postgres://u:p@db.example:5432/r', ['db.example']],
    ['postgres://u:p@[::1]:5432/r', ['::1']],
    ['postgres://u@127.0.0.1/r?sslmode=require', ['127.0.0.1']],
    ['postgresql://u:p@a.example:5432,b.example:5433/r', ['a.example', 'b.example']],
    ['postgres://u:p%40x@%2Fvar%2Frun%2Fpostgresql/r', ['/var/run/postgresql']],
    ['postgres:///r', ['127.0.0.1']],
    ['postgres://u:p@/r?host=/var/run/postgresql', ['/var/run/postgresql']],
  ])('%s', (url, hosts) => {
    expect(databaseHosts(url)).toEqual(hosts);
  });
});

describe('this machine', () => {
  it.each([
    'postgres://u:p@127.0.0.1/r',
    'postgres://u@127.0.0.2:5432/r',
    'postgres://u@127.255.0.1:5432/r',
    'postgres://u@[::1]/r',
    'postgres://u@[0:0:0:0:0:0:0:1]/r',
    'postgres://u@[::ffff:127.0.0.1]/r',
    'postgres://u@%2Frun%2Fpg/r',
    'postgres:///r',
  ])('needs nothing: %s', (url) => {
    expect(decide(url)).toMatchObject({ local: true, tls: 'none', refusal: undefined });
  });
});

describe('another host', () => {
  it.each([
    ['postgres://u:p@db.example/r', 'is reached without TLS'],
    ['postgres://u:p@db.example/r?sslmode=disable', 'is reached without TLS'],
    ['postgres://u:p@10.0.0.5/r?sslmode=require', 'sslmode=require, which checks no certificate'],
    ['postgres://u:p@db.example/r?sslmode=prefer', 'sslmode=prefer, which checks no certificate'],
    ['postgres://u:p@127.0.0.1:5432,db.example:5432/r?sslmode=require', 'db.example is not on this machine'],
    // Names, however local they look, are looked up by the driver (DNS, /etc/hosts): #51.
    ['postgres://rh@db.localhost:5432/rh?sslmode=require', 'db.localhost may not be on this machine'],
    ['postgres://rh@localhost/rh', 'localhost may not be on this machine'],
    ['postgres://rh@LOCALHOST./rh?sslmode=disable', 'for this machine write 127.0.0.1 or [::1]'],
    ['postgres://rh@127.0.0.1.nip.io/rh', 'is not on this machine'],
    ['postgres://rh@0177.0.0.1/rh', 'is not on this machine'],
    ['postgres://rh@127.1/rh', 'is not on this machine'],
    ['postgres://rh@[::2]/rh', 'is not on this machine'],
    ['postgres://rh@[::ffff:10.0.0.1]/rh', 'is not on this machine'],
  ])('is refused unverified: %s', (url, why) => {
    const decision = decide(url);
    expect(decision.local).toBe(false);
    expect(decision.refusal).toContain(why);
    expect(decision.refusal).toMatch(/sslmode=verify-full.*RINGHOOK_DATABASE_CA_FILE.*RINGHOOK_DATABASE_UNVERIFIED=on/);
  });

  it.each([
    ['postgres://u:p@db.example/r?sslmode=verify-full', false],
    ['postgres://u:p@db.example/r?sslmode=verify-ca', false],
    ['postgres://u:p@db.example/r?sslrootcert=system', false],
    ['postgres://u:p@db.example/r', true],
    ['postgres://u:p@db.example/r?sslmode=require', true],
  ])('is used verified: %s (CA file: %s)', (url, caFile) => {
    expect(decide(url, caFile)).toMatchObject({ local: false, tls: 'verified', refusal: undefined });
  });

  it('is used unverified when the operator says the network is private', () => {
    expect(decide('postgres://u:p@postgres:5432/r', false, true)).toMatchObject({
      local: false,
      tls: 'none',
      refusal: undefined,
    });
    expect(decide('postgres://u:p@postgres:5432/r?sslmode=require', false, true)).toMatchObject({
      tls: 'unverified',
      refusal: undefined,
    });
  });

  it('refuses a CA file with sslmode=disable', () => {
    expect(decide('postgres://u:p@127.0.0.1/r?sslmode=disable', true).refusal).toMatch(
      /RINGHOOK_DATABASE_CA_FILE is set but RINGHOOK_DATABASE_URL says sslmode=disable/,
    );
  });
});
