// Pebble, Let's Encrypt's ACME test authority (Debian `pebble`), on loopback: its own HTTPS
// certificate made with openssl (the test CA that RINGHOOK_ACME_CA_FILE trusts), its validation
// pointed at ringhook's ports, and its DNS lookups answered by pebble-challtestsrv (every name is
// 127.0.0.1). Nothing is stubbed: Pebble fetches the HTTP-01 challenge from ringhook itself.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { freeTcpPort, freeUdpPort } from './ports.js';

export interface PebbleOptions {
  /** ringhook's plain-HTTP port: where Pebble fetches HTTP-01 challenges. */
  httpPort: number;
  /** ringhook's HTTPS port: where Pebble would check TLS-ALPN-01. */
  tlsPort: number;
  /** Seconds each certificate is valid. */
  validitySeconds: number;
  /** Names Pebble refuses to issue for. */
  blocklist?: string[];
}

export interface Pebble {
  directory: string;
  /** The PEM of the test CA behind Pebble's own HTTPS listener: for RINGHOOK_ACME_CA_FILE. */
  caFile: string;
  /** The root the certificates Pebble issues chain to (its management endpoint's /roots/0). */
  root(): Promise<string>;
  /** Stops Pebble (the authority is down); start() brings it back on the same ports. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops everything and removes the files. */
  close(): Promise<void>;
  output(): string;
}

const PROVISION = 'run scripts/provision-test-peers.sh as root (it installs pebble)';

export function pebbleInstalled(): boolean {
  return fs.existsSync('/usr/bin/pebble') && fs.existsSync('/usr/bin/pebble-challtestsrv');
}

function makeTestCa(dir: string): { caFile: string; cert: string; key: string } {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=ringhook test CA for Pebble',
  );
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'pebble.key', '-out', 'pebble.csr', '-subj', '/CN=localhost');
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  ssl(
    'x509',
    '-req',
    '-in',
    'pebble.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'pebble.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  );
  return { caFile: path.join(dir, 'ca.pem'), cert: path.join(dir, 'pebble.pem'), key: path.join(dir, 'pebble.key') };
}

function getText(url: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () =>
          res.statusCode === 200 ? resolve(body) : reject(new Error(`${url}: HTTP ${res.statusCode}`)),
        );
      })
      .on('error', reject);
  });
}

export async function startPebble(options: PebbleOptions): Promise<Pebble> {
  if (!pebbleInstalled()) throw new Error(`pebble is not installed: ${PROVISION}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-pebble-'));
  const tls = makeTestCa(dir);
  const [acmePort, managementPort, dnsPort, challtestManagement] = [
    await freeTcpPort(),
    await freeTcpPort(),
    await freeUdpPort(),
    await freeTcpPort(),
  ];
  const configFile = path.join(dir, 'pebble.json');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: tls.cert,
        privateKey: tls.key,
        httpPort: options.httpPort,
        tlsPort: options.tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
        domainBlocklist: options.blocklist ?? [],
        certificateValidityPeriod: options.validitySeconds,
      },
    }),
  );
  let output = '';
  const collect = (child: ChildProcess) => {
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  };
  // Every name resolves to 127.0.0.1 (and no AAAA): the "internet" is this machine's loopback.
  const dns = spawn(
    'pebble-challtestsrv',
    [
      '-dns01',
      `127.0.0.1:${dnsPort}`,
      '-http01',
      '',
      '-https01',
      '',
      '-tlsalpn01',
      '',
      '-management',
      `127.0.0.1:${challtestManagement}`,
      '-defaultIPv4',
      '127.0.0.1',
      '-defaultIPv6',
      '',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  collect(dns);
  let pebble: ChildProcess | null = null;
  const ca = fs.readFileSync(tls.caFile, 'utf8');
  const directory = `https://127.0.0.1:${acmePort}/dir`;

  const start = async () => {
    // PEBBLE_VA_NOSLEEP: no random pause before each validation; validation itself is real.
    const child = spawn('pebble', ['-config', configFile, '-dnsserver', `127.0.0.1:${dnsPort}`], {
      env: { PATH: process.env.PATH ?? '', PEBBLE_VA_NOSLEEP: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    collect(child);
    pebble = child;
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await getText(directory, ca);
        return;
      } catch (error) {
        if (child.exitCode !== null) throw new Error(`pebble exited ${child.exitCode}:\n${output}`);
        if (Date.now() > deadline)
          throw new Error(`pebble did not answer at ${directory}: ${(error as Error).message}\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };

  const stop = async () => {
    const child = pebble;
    pebble = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };

  await start();
  return {
    directory,
    caFile: tls.caFile,
    root: () => getText(`https://127.0.0.1:${managementPort}/roots/0`, ca),
    stop,
    start,
    async close() {
      await stop();
      if (dns.exitCode === null) {
        const exited = new Promise((resolve) => dns.once('exit', resolve));
        dns.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
    output: () => output,
  };
}
