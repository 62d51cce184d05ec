// The way to PostgreSQL over TLS, against a real server with ssl=on and a certificate from a test
// authority made here with openssl, and a relay in the path that presents its own certificate (a
// machine in the middle): sslmode=require lets the relay read the queries; with
// RINGHOOK_DATABASE_CA_FILE (or sslmode=verify-full) the relay is refused and the real server
// accepted. serve and doctor refuse a database host not on this machine whose certificate would not
// be verified, before any connection (the host, 198.51.100.7, is never reached).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/store/postgres/connect.js';
import { buildOnce, runCli } from '../helpers/cli.js';
import { type PgCluster, startPostgres } from '../helpers/postgres.js';

let pg: PgCluster;
let dir: string;
let files: Record<
  'ca' | 'serverCert' | 'serverKey' | 'otherCa' | 'strangerCert' | 'strangerKey' | 'misnamedCert' | 'misnamedKey',
  string
>;

function openssl(args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A key and a certificate for `names` (subjectAltName), signed by `ca` (or self-signed). */
function certificate(
  name: string,
  altNames: string,
  ca?: { cert: string; key: string },
): { cert: string; key: string } {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.pem`);
  const ext = path.join(dir, `${name}.ext`);
  fs.writeFileSync(ext, `subjectAltName=${altNames}\n`);
  openssl([
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-subj',
    `/CN=${name}`,
    '-out',
    `${cert}.csr`,
  ]);
  if (ca)
    openssl([
      'x509',
      '-req',
      '-in',
      `${cert}.csr`,
      '-CA',
      ca.cert,
      '-CAkey',
      ca.key,
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      ext,
      '-out',
      cert,
    ]);
  else openssl(['x509', '-req', '-in', `${cert}.csr`, '-signkey', key, '-days', '2', '-extfile', ext, '-out', cert]);
  return { cert, key };
}

function authority(name: string): { cert: string; key: string } {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.pem`);
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-subj',
    `/CN=${name}`,
    '-days',
    '2',
    '-out',
    cert,
  ]);
  return { cert, key };
}

/** The 8-byte SSLRequest every PostgreSQL client sends before its TLS handshake. */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 4, 0xd2, 0x16, 0x2f]);

interface Relay {
  port: number;
  /** What the clients sent, decrypted by the relay. */
  seen(): string;
  close(): Promise<void>;
}

/** A relay in the path: it answers the client's TLS with its own certificate and opens its own TLS to the server. */
async function startRelay(certFile: string, keyFile: string): Promise<Relay> {
  const chunks: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('error', () => {});
    client.once('data', (first) => {
      if (!first.subarray(0, 8).equals(SSL_REQUEST)) return client.destroy();
      client.write('S');
      const inner = new tls.TLSSocket(client, {
        isServer: true,
        cert: fs.readFileSync(certFile),
        key: fs.readFileSync(keyFile),
      });
      inner.on('error', () => {});
      const upstream = net.connect(pg.port, '127.0.0.1', () => upstream.write(SSL_REQUEST));
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      upstream.once('data', () => {
        const secure = tls.connect({ socket: upstream, rejectUnauthorized: false });
        secure.on('error', () => client.destroy());
        inner.on('data', (data: Buffer) => {
          chunks.push(data);
          secure.write(data);
        });
        secure.on('data', (data: Buffer) => inner.write(data));
        inner.on('close', () => secure.destroy());
        secure.on('close', () => inner.destroy());
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    seen: () => Buffer.concat(chunks).toString('latin1'),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-pg-tls-'));
  const ca = authority('test-ca');
  const server = certificate('server', 'DNS:localhost,IP:127.0.0.1', ca);
  const stranger = certificate('stranger', 'DNS:db.other.example');
  const misnamed = certificate('misnamed', 'DNS:db.other.example', ca);
  const otherCa = authority('other-ca');
  files = {
    ca: ca.cert,
    serverCert: server.cert,
    serverKey: server.key,
    otherCa: otherCa.cert,
    strangerCert: stranger.cert,
    strangerKey: stranger.key,
    misnamedCert: misnamed.cert,
    misnamedKey: misnamed.key,
  };
  // The server reads its key as the user it runs as (postgres, when the tests are root), mode 0600.
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(server.key, 0o600);
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    fs.chownSync(server.key, uid, gid);
  }
  pg = await startPostgres(['ssl=on', `ssl_cert_file=${server.cert}`, `ssl_key_file=${server.key}`]);
  buildOnce();
}, 180_000);

afterAll(async () => {
  await pg?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const urlVia = (port: number, query = '', host = '127.0.0.1') => `postgres://ringhook@${host}:${port}/postgres${query}`;

/** Connects as serve does, runs one query that names a phone number, and closes; the error's message if refused. */
async function tryQuery(url: string, caFile?: string): Promise<string> {
  try {
    const sql = await connect(url, { poolSize: 1, ...(caFile && { tls: { caFile } }) });
    try {
      const [row] = await sql<
        { ssl: boolean }[]
      >`select ssl, '+14155550123' as phone from pg_stat_ssl where pid = pg_backend_pid()`;
      return row!.ssl ? 'connected over TLS' : 'connected in the clear';
    } finally {
      await sql.end({ timeout: 1 });
    }
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

describe('a relay in the path that presents its own certificate', () => {
  it('reads everything with sslmode=require (the hole), and is refused with the authority given or verify-full', async () => {
    const relay = await startRelay(files.strangerCert, files.strangerKey);
    try {
      expect(await tryQuery(urlVia(relay.port, '?sslmode=require'))).toBe('connected over TLS');
      expect(relay.seen()).toContain('+14155550123');
      const before = relay.seen().length;
      expect(await tryQuery(urlVia(relay.port), files.ca)).toMatch(/^refused: .*self[- ]signed/i);
      expect(await tryQuery(urlVia(relay.port, '?sslmode=verify-full'), files.ca)).toMatch(
        /^refused: .*self[- ]signed/i,
      );
      expect(await tryQuery(urlVia(relay.port, '?sslmode=verify-full'))).toMatch(/^refused: /);
      expect(relay.seen().length).toBe(before);
    } finally {
      await relay.close();
    }
  });

  it('is refused with a certificate from the right authority for another name', async () => {
    const relay = await startRelay(files.misnamedCert, files.misnamedKey);
    try {
      expect(await tryQuery(urlVia(relay.port), files.ca)).toMatch(/^refused: .*(altnames|Hostname|IP: 127\.0\.0\.1)/i);
      expect(await tryQuery(urlVia(relay.port, '', 'localhost'), files.ca)).toMatch(/^refused: .*(altnames|Hostname)/i);
      expect(relay.seen()).not.toContain('+14155550123');
    } finally {
      await relay.close();
    }
  });
});

describe('the real server', () => {
  it('is accepted with RINGHOOK_DATABASE_CA_FILE, by address and by name, and refused with another authority', async () => {
    expect(await tryQuery(urlVia(pg.port), files.ca)).toBe('connected over TLS');
    expect(await tryQuery(urlVia(pg.port, '?sslmode=verify-full', 'localhost'), files.ca)).toBe('connected over TLS');
    expect(await tryQuery(urlVia(pg.port), files.otherCa)).toMatch(
      /^refused: .*(self[- ]signed|unable to verify|local issuer)/i,
    );
  });

  it('refuses a CA file that cannot be read or holds no certificate, in one line', async () => {
    expect(await tryQuery(urlVia(pg.port), path.join(dir, 'missing.pem'))).toMatch(
      /^refused: RINGHOOK_DATABASE_CA_FILE \(.*missing\.pem\) cannot be read: ENOENT$/,
    );
    expect(await tryQuery(urlVia(pg.port), files.serverKey)).toMatch(
      /^refused: RINGHOOK_DATABASE_CA_FILE .* holds no PEM certificate$/,
    );
  });
});

describe('a database host not on this machine', () => {
  const remote = 'postgres://ringhook:s3cret@198.51.100.7:5432/ringhook?sslmode=require';
  const env = { RINGHOOK_DATABASE_URL: remote, RINGHOOK_SECRET_KEY: 'c'.repeat(64), RINGHOOK_TELEPHONY: 'off' };

  it('is refused by connect before any connection, with the way out', async () => {
    const started = Date.now();
    const refused = await tryQuery(remote);
    expect(refused).toMatch(
      /^refused: cannot use the PostgreSQL database postgres:\/\/ringhook:\*\*\*@198\.51\.100\.7:5432\/ringhook\?sslmode=require: /,
    );
    expect(refused).toMatch(/sslmode=verify-full/);
    expect(refused).toMatch(/RINGHOOK_DATABASE_UNVERIFIED=on/);
    expect(refused).not.toContain('s3cret');
    // Refused at once: nothing was sent to wait 2 s for.
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('makes doctor fail the database check and serve refuse to start', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-pg-tls-cli-'));
    try {
      const doctor = runCli(['doctor', '--json'], { ...env, RINGHOOK_DATA_DIR: dataDir });
      expect(doctor.code).toBe(1);
      const database = (doctor.json as Array<{ name: string; ok: boolean; detail: string; fix?: string }>).find(
        (c) => c.name === 'database',
      )!;
      expect(database).toMatchObject({
        ok: false,
        detail: expect.stringMatching(/198\.51\.100\.7 is not on this machine/),
      });
      expect(JSON.stringify(doctor.json)).not.toContain('s3cret');
      const serve = runCli(['serve'], { ...env, RINGHOOK_DATA_DIR: dataDir, RINGHOOK_PORT: '0' });
      expect(serve.code).toBe(1);
      expect(serve.stderr).toMatch(
        /198\.51\.100\.7 is not on this machine and is reached with sslmode=require, which checks no certificate/,
      );
      expect(serve.stderr).not.toContain('s3cret');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
