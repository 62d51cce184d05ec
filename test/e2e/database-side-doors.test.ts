// The two database URLs of the third review (#39) against a relay on another machine: a network
// namespace with a documentation address (198.51.100.2), a relay that answers PostgreSQL's SSLRequest
// and then TLS with a self-signed certificate for another name, and records every byte it receives.
// `ringhook serve` runs in a second namespace (198.51.100.1) and must refuse both URLs before the
// relay sees a byte: a duplicated sslmode (read first by the check, last by the driver), and a URL
// without a host with PGHOST pointing at the relay (the driver read it; ringhook now ignores PG*).
// And the fourth review's (#51): names that look local (db.localhost, localhost) answered with the
// relay's address by the client namespace's resolver (its own /etc/hosts, which `ip netns exec`
// mounts from /etc/netns/<name>/: getaddrinfo, the driver's lookup, reads it as it would DNS).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildOnce, REPO_ROOT } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/service.js';

const tag = `${process.pid % 100_000}`;
const client = `rh-dbc-${tag}`;
const relayNs = `rh-dbr-${tag}`;
const RELAY = '198.51.100.2';
let relayLog: string;
let relay: ReturnType<typeof spawn> | undefined;
let work: string;

const sh = (command: string, args: string[]) => execFileSync(command, args, { encoding: 'utf8', stdio: 'pipe' });
const netnsEtc = `/etc/netns/${client}`;
const removeNamespaces = () => {
  fs.rmSync(netnsEtc, { recursive: true, force: true });
  for (const ns of [client, relayNs])
    try {
      sh('ip', ['netns', 'del', ns]);
    } catch {
      // not made, or gone
    }
};

// The relay: 'S' to the SSLRequest, then TLS with its own certificate; every byte is logged.
const RELAY_SCRIPT = `
const net = require('node:net'), tls = require('node:tls'), fs = require('node:fs');
const [cert, key, log] = process.argv.slice(1);
const note = (line) => fs.appendFileSync(log, line + '\\n');
net.createServer((socket) => {
  note('connection from ' + socket.remoteAddress);
  socket.once('data', (first) => {
    note('plain bytes ' + first.length);
    socket.write('S');
    const secure = new tls.TLSSocket(socket, { isServer: true, cert: fs.readFileSync(cert), key: fs.readFileSync(key) });
    secure.on('data', (d) => note('decrypted bytes ' + d.length + ': ' + JSON.stringify(d.toString('latin1'))));
    secure.on('error', (e) => note('tls error ' + e.message));
  });
  socket.on('error', () => {});
}).listen(5432, '${RELAY}', () => note('listening'));
`;

beforeAll(async () => {
  buildOnce();
  removeNamespaces();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-dbrelay-'));
  relayLog = path.join(work, 'relay.log');
  sh('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=relay.attacker.example',
    '-keyout',
    path.join(work, 'key.pem'),
    '-out',
    path.join(work, 'cert.pem'),
  ]);
  fs.mkdirSync(netnsEtc, { recursive: true });
  fs.writeFileSync(path.join(netnsEtc, 'hosts'), `${RELAY} localhost db.localhost\n`);
  for (const ns of [client, relayNs]) {
    sh('ip', ['netns', 'add', ns]);
    sh('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
  }
  sh('ip', [
    'link',
    'add',
    `rhdc${tag}`,
    'netns',
    client,
    'type',
    'veth',
    'peer',
    'name',
    `rhdr${tag}`,
    'netns',
    relayNs,
  ]);
  sh('ip', ['netns', 'exec', client, 'ip', 'addr', 'add', '198.51.100.1/24', 'dev', `rhdc${tag}`]);
  sh('ip', ['netns', 'exec', relayNs, 'ip', 'addr', 'add', `${RELAY}/24`, 'dev', `rhdr${tag}`]);
  sh('ip', ['netns', 'exec', client, 'ip', 'link', 'set', `rhdc${tag}`, 'up']);
  sh('ip', ['netns', 'exec', relayNs, 'ip', 'link', 'set', `rhdr${tag}`, 'up']);
  relay = spawn(
    'ip',
    [
      'netns',
      'exec',
      relayNs,
      process.execPath,
      '-e',
      RELAY_SCRIPT,
      path.join(work, 'cert.pem'),
      path.join(work, 'key.pem'),
      relayLog,
    ],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 10_000;
  while (!(fs.existsSync(relayLog) && fs.readFileSync(relayLog, 'utf8').includes('listening'))) {
    if (Date.now() > deadline) throw new Error('the relay did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
}, 60_000);

afterAll(() => {
  relay?.kill();
  removeNamespaces();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** `ringhook serve` in the client namespace; what it printed, its exit code, and what the relay saw meanwhile. */
function serveWith(env: Record<string, string>) {
  fs.writeFileSync(relayLog, '');
  const dataDir = makeDataDir('rh-dbrelay-data-');
  const result = spawnSync(
    'ip',
    ['netns', 'exec', client, process.execPath, path.join(REPO_ROOT, 'bin', 'ringhook.js'), 'serve'],
    {
      env: {
        PATH: process.env.PATH!,
        HOME: process.env.HOME!,
        RINGHOOK_DATA_DIR: dataDir,
        RINGHOOK_HOST: '127.0.0.1',
        RINGHOOK_PORT: '18443',
        RINGHOOK_TELEPHONY: 'off',
        RINGHOOK_SECRET_KEY: 'ab'.repeat(32),
        ...env,
      },
      encoding: 'utf8',
      timeout: 20_000,
    },
  );
  fs.rmSync(dataDir, { recursive: true, force: true });
  return {
    code: result.status,
    output: `${result.stdout}${result.stderr}`,
    relaySaw: fs.readFileSync(relayLog, 'utf8'),
  };
}

it('the relay answers whoever connects (so a silent relay below means ringhook never connected)', () => {
  fs.writeFileSync(relayLog, '');
  const probe = spawnSync(
    'ip',
    [
      'netns',
      'exec',
      client,
      process.execPath,
      '-e',
      `require('node:net').connect(5432, '${RELAY}', function () { this.end('x'); })`,
    ],
    { timeout: 10_000 },
  );
  expect(probe.status).toBe(0);
  expect(fs.readFileSync(relayLog, 'utf8')).toContain('connection from 198.51.100.1');
});

it('a duplicated sslmode (verify-full, then require) is refused with a clear error before the relay sees a byte', () => {
  const run = serveWith({
    RINGHOOK_DATABASE_URL: `postgres://rh:secret@${RELAY}:5432/rh?sslmode=verify-full&sslmode=require`,
  });
  expect(run.code).not.toBe(0);
  expect(run.output).toContain('the parameter sslmode is given twice (verify-full and require): give it once');
  expect(run.output).not.toMatch(/\n\s+at /);
  expect(run.output).not.toContain('secret');
  expect(run.relaySaw).toBe('');
});

it('a URL without a host, with PGHOST (and PGPORT, PGUSER, PGPASSWORD) naming the relay: PG* is ignored, the relay sees nothing', () => {
  const run = serveWith({
    RINGHOOK_DATABASE_URL: 'postgres:///rh?sslmode=require',
    PGHOST: RELAY,
    PGPORT: '5432',
    PGUSER: 'rh',
    PGPASSWORD: 'secret',
  });
  // localhost in the client namespace has no PostgreSQL: serve stops, saying where it tried.
  expect(run.code).not.toBe(0);
  expect(run.output).toMatch(/cannot connect to PostgreSQL at postgres:\/\/\/rh\?sslmode=require: connection refused/);
  expect(run.relaySaw).toBe('');
});

it('the client namespace resolves db.localhost and localhost to the relay (as a DNS answering another address would)', () => {
  const lookup = spawnSync(
    'ip',
    [
      'netns',
      'exec',
      client,
      process.execPath,
      '-e',
      `const dns = require('node:dns'); Promise.all(['db.localhost', 'localhost'].map((n) => dns.promises.lookup(n))).then((a) => console.log(a.map((x) => x.address).join(' ')))`,
    ],
    { encoding: 'utf8', timeout: 10_000 },
  );
  expect(lookup.stdout.trim()).toBe(`${RELAY} ${RELAY}`);
});

it.each([
  [
    'postgres://rh:secret@db.localhost:5432/rh?sslmode=require',
    'db.localhost',
    'sslmode=require, which checks no certificate',
  ],
  ['postgres://rh:secret@localhost:5432/rh', 'localhost', 'is reached without TLS'],
])('a name that looks local (%s) is another host: refused before the relay sees a byte', (url, host, how) => {
  const run = serveWith({ RINGHOOK_DATABASE_URL: url });
  expect(run.code).not.toBe(0);
  expect(run.output).toContain(`the database host ${host} may not be on this machine`);
  expect(run.output).toContain('for this machine write 127.0.0.1 or [::1]');
  expect(run.output).toContain(how);
  expect(run.output.trim().split('\n')).toHaveLength(1);
  expect(run.output).not.toContain('secret');
  expect(run.relaySaw).toBe('');
});
