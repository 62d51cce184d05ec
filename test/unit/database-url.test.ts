// RINGHOOK_DATABASE_URL read once (core/server/database-url.ts), and the driver given exactly that reading:
// a parameter twice is refused, PG* environment variables are ignored (#39). Pure: no connection is made.
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/core/server/database-url.js';
import { databaseTls } from '../../src/core/server/database-tls.js';
import { driverTarget } from '../../src/store/postgres/connect.js';

const read = (url: string) => {
  const parsed = parseDatabaseUrl(url);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.url;
};

describe('one reading of the URL', () => {
  it('reads user, password, hosts, ports, database and sslmode', () => {
    expect(read('postgresql://u:p%40x@a.example:5433,[2001:db8::1]/r%20x?sslmode=verify-full')).toMatchObject({
      user: 'u',
      password: 'p@x',
      hosts: ['a.example', '2001:db8::1'],
      ports: [5433, 5432],
      database: 'r x',
      sslmode: 'verify-full',
    });
    expect(read('postgres:///rh')).toMatchObject({ hosts: ['127.0.0.1'], ports: [5432], user: undefined });
    expect(read('postgres://u@%2Frun%2Fpg:5433/r')).toMatchObject({ socketDir: '/run/pg', ports: [5433] });
  });

  it.each([
    [
      'postgres://u@db.example/r?sslmode=verify-full&sslmode=require',
      'sslmode is given twice (verify-full and require)',
    ],
    ['postgres://u@db.example/r?application_name=a&application_name=b', 'application_name is given twice'],
    ['postgres://u@db.example/r?sslmode=nonsense', 'sslmode=nonsense is not one of'],
    ['postgres://u@db.example/r?ssl=true', 'use sslmode='],
    ['postgres://u@db.example/r?max=1', 'max= is set by ringhook itself'],
    ['postgres://u@db.example/r?sslrootcert=/etc/ca.pem', 'RINGHOOK_DATABASE_CA_FILE'],
    ['postgres://u@/r?host=db.example', 'is not a socket directory'],
    ['postgres://u@db.example:99999/r', 'is not a port'],
    ['mysql://u@db.example/r', 'not a PostgreSQL URL'],
  ])('refuses %s', (url, why) => {
    const parsed = parseDatabaseUrl(url);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toContain(why);
    expect(databaseTls(url, { caFile: false, allowUnverified: true }).refusal).toContain(why);
  });
});

describe('the driver gets that reading, and no PG* variable', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (key.startsWith('PG')) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it('a URL without a host is 127.0.0.1 even with PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSL set', () => {
    Object.assign(process.env, {
      PGHOST: '203.0.113.7',
      PGPORT: '6543',
      PGUSER: 'mallory',
      PGPASSWORD: 'stolen',
      PGDATABASE: 'other',
      PGSSL: 'require',
      PGAPPNAME: 'x',
    });
    const sql = postgres(driverTarget('postgres://rh@/rh?sslmode=require'));
    expect(sql.options).toMatchObject({
      host: ['127.0.0.1'],
      port: [5432],
      user: 'rh',
      database: 'rh',
      ssl: 'require',
      connection: { application_name: 'ringhook' },
    });
    expect((sql.options.pass as unknown as () => string)()).toBe('');
    void sql.end({ timeout: 0 });
  });

  it('verify-full stays verify-full, and a CA file makes it a verified TLS option', () => {
    const sql = postgres(driverTarget('postgres://u:p@db.example:5433/r?sslmode=verify-full'));
    expect(sql.options).toMatchObject({ host: ['db.example'], port: [5433], ssl: 'verify-full', database: 'r' });
    void sql.end({ timeout: 0 });
  });

  it('the duplicated sslmode and a remote host without verified TLS are refused before any connection', () => {
    expect(() => driverTarget('postgres://u@db.example/r?sslmode=verify-full&sslmode=require')).toThrow(
      /sslmode is given twice/,
    );
    expect(() => driverTarget('postgres://u@198.51.100.9/r?sslmode=require')).toThrow(/checks no certificate/);
  });
});
