// ringhook's own certificate against a real ACME authority: Pebble on loopback, validating HTTP-01 by
// fetching the challenge from ringhook's plain-HTTP port. `ringhook serve` runs as a real process;
// a TLS client checks what it serves against Pebble's root. Certificates live 60 s, so renewal
// comes after 40 s. No PEBBLE_VA_ALWAYS_VALID anywhere: every validation is real.
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, NAMES, servedSerial, startServe, stopServes } from '../helpers/acme-serve.js';
import { buildOnce, runCli } from '../helpers/cli.js';
import { request } from '../helpers/https-client.js';
import { startPebble, type Pebble } from '../helpers/pebble.js';
import { freeTcpPort } from '../helpers/ports.js';
import { makeDataDir as makeDir } from '../helpers/service.js';

const VALIDITY_S = 60;

/** One HTTP/1.1 request on an open TLS connection (keep-alive); resolves with the status line. */
function requestOn(socket: tls.TLSSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const timer = setTimeout(
      () => reject(new Error(`no answer on the open connection: ${JSON.stringify(received)}`)),
      5_000,
    );
    const onData = (chunk: Buffer) => {
      received += chunk.toString();
      const head = received.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? -1);
      const whole = length >= 0 ? received.length >= head + 4 + length : received.endsWith('0\r\n\r\n');
      if (head >= 0 && whole) {
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('error', reject);
        resolve(received.split('\r\n')[0]!);
      }
    };
    socket.on('data', onData);
    socket.on('error', reject);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${NAMES[0]}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

function doctor(env: Record<string, string>): { ok: boolean | string; detail: string; fix?: string } {
  const result = runCli(['doctor', '--json'], env);
  const check = (result.json as Array<{ name: string; ok: boolean | string; detail: string; fix?: string }>).find(
    (c) => c.name === 'certificate',
  );
  if (!check) throw new Error(`no certificate check:\n${result.stdout}\n${result.stderr}`);
  return check;
}

/** The data dirs this file made, removed after it. */
const dataDirs: string[] = [];
const makeDataDir = (prefix: string) => {
  const dir = makeDir(prefix);
  dataDirs.push(dir);
  return dir;
};

let pebble: Pebble;
let root: string;
let httpsPort: number;
let httpPort: number;

beforeAll(async () => {
  buildOnce();
  httpsPort = await freeTcpPort();
  httpPort = await freeTcpPort();
  pebble = await startPebble({
    httpPort,
    tlsPort: httpsPort,
    validitySeconds: VALIDITY_S,
    blocklist: ['blocked.ringhook.test'],
  });
  root = await pebble.root();
}, 60_000);

afterEach(stopServes);
afterAll(async () => {
  await stopServes();
  await pebble?.close();
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function acmeEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(httpsPort),
    RINGHOOK_HTTP_PORT: String(httpPort),
    RINGHOOK_TELEPHONY: 'off',
    RINGHOOK_DB_SYNC: 'normal',
    RINGHOOK_ACME_DOMAIN: NAMES.join(','),
    RINGHOOK_PUBLIC_URL: `https://${NAMES[0]}:${httpsPort}`,
    RINGHOOK_ACME_DIRECTORY: pebble.directory,
    RINGHOOK_ACME_CA_FILE: pebble.caFile,
    ...extra,
  };
}

describe('ringhook obtains, serves and renews its own certificate from Pebble', () => {
  it('orders at start over HTTP-01, serves a chain to Pebble’s root, swaps the renewal in with a connection open, and keeps it when the authority goes down', async () => {
    const dataDir = makeDataDir('rh-acme-');
    // No RINGHOOK_ACME_EMAIL: the renewal is this account's second order, whose repeated registration
    // Pebble refused as an empty update before the account's URL was kept (acme/account-url.json).
    const env = acmeEnv(dataDir);
    const serve = await startServe(env);
    const ordered = Date.now();
    await serve.waitFor('serving the certificate obtained from the ACME authority', 30_000);
    const firstOrderMs = Date.now() - ordered;

    // A TLS client trusting only Pebble's root accepts it, for both names.
    const first = await servedSerial(httpsPort, root);
    expect(first.names).toContain('DNS:alerts.ringhook.test');
    expect(first.names).toContain('DNS:www.ringhook.test');
    const www = await connect(httpsPort, root, 'www.ringhook.test');
    expect(www.authorized).toBe(true);
    www.destroy();

    // The data dir holds the account key and the certificate's key, 0600.
    for (const file of ['account-key.pem', 'key.pem'])
      expect(fs.statSync(path.join(dataDir, 'acme', file)).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(path.join(dataDir, 'acme', 'cert.pem'), 'utf8')).toContain('BEGIN CERTIFICATE');

    // The plain-HTTP port sends everything but challenges to HTTPS, same path; a token nobody placed is 404.
    const redirect = await request(`http://127.0.0.1:${httpPort}/dashboard?x=1`, {
      method: 'GET',
      plain: true,
      headers: { host: 'attacker.example' },
    });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe(`https://${NAMES[0]}:${httpsPort}/dashboard?x=1`);
    const post = await request(`http://127.0.0.1:${httpPort}/webhook/x`, {
      method: 'POST',
      plain: true,
      headers: { host: NAMES[0]! },
      body: '{}',
    });
    expect(post.status).toBe(308);
    const unknown = await request(`http://127.0.0.1:${httpPort}/.well-known/acme-challenge/nothing-here`, {
      method: 'GET',
      plain: true,
    });
    expect(unknown.status).toBe(404);

    // /metrics says the days left: under one for a 45-second certificate.
    const metricsText = await metricsOver(httpsPort, root);
    const days = Number(/^ringhook_acme_certificate_days_left (\S+)$/m.exec(metricsText)?.[1]);
    expect(days, metricsText).toBeGreaterThanOrEqual(0);
    expect(days).toBeLessThan(0.001);

    expect(doctor(env)).toMatchObject({
      ok: true,
      detail: expect.stringContaining('alerts.ringhook.test, www.ringhook.test'),
    });

    // A client keeps one connection open (a request every 2 s) while the renewal comes in.
    const open = await connect(httpsPort, root);
    expect(await requestOn(open)).toMatch(/^HTTP\/1\.1 200/);
    let keepGoing = true;
    const keepAlive = (async () => {
      while (keepGoing) {
        expect(await requestOn(open)).toMatch(/^HTTP\/1\.1 200/);
        await new Promise((r) => setTimeout(r, 2_000));
      }
    })();
    await serve.waitFor('serving the certificate renewed from the ACME authority', VALIDITY_S * 1000);
    const second = await servedSerial(httpsPort, root);
    expect(second.serial).not.toBe(first.serial);
    keepGoing = false;
    await keepAlive;
    // The open connection finished on the old certificate, without a restart in between.
    expect(open.getPeerCertificate().serialNumber).toBe(first.serial);
    expect(await requestOn(open)).toMatch(/^HTTP\/1\.1 200/);
    open.destroy();
    expect(serve.child.exitCode).toBeNull();

    // The authority goes down before the next renewal: one clear line, the current certificate still served, doctor names the fault.
    await pebble.stop();
    try {
      await serve.waitFor(
        /could not renew the certificate for alerts\.ringhook\.test, www\.ringhook\.test: .*RINGHOOK_ACME_DIRECTORY/,
        VALIDITY_S * 1000,
      );
      const failureLines = serve
        .output()
        .split('\n')
        .filter((l) => l.includes('could not renew'));
      expect(failureLines).toHaveLength(1);
      expect((await servedSerial(httpsPort, root)).serial).toBe(second.serial);
      const check = doctor(env);
      expect(check.ok).toBe(false);
      expect(check.detail).toContain('last error');
      expect(check.detail).toMatch(/ECONNREFUSED/);
      expect(check.fix).toContain('RINGHOOK_ACME_DIRECTORY');

      // Restarted while the authority is still down: the stored certificate is served from the first
      // connection. An unreachable authority counts nothing against its limits, so the new process
      // tries once at start (an operator may have fixed the network), fails the same way, and backs off.
      await stopServes();
      const again = await startServe(env);
      expect((await servedSerial(httpsPort, root)).serial).toBe(second.serial);
      await again.waitFor('could not renew the certificate', 15_000);
      expect(again.output()).not.toContain('self-signed');
      expect(doctor(env).detail).toMatch(/failures|last error/);
    } finally {
      await pebble.start();
    }
    console.log(`first order: ${firstOrderMs} ms`);
  }, 150_000);

  it('a name the authority refuses: serve keeps answering on a self-signed certificate, and doctor says which variable to fix', async () => {
    const dataDir = makeDataDir('rh-acme-refused-');
    const env = acmeEnv(dataDir, {
      RINGHOOK_ACME_DOMAIN: 'blocked.ringhook.test',
      RINGHOOK_ACME_EMAIL: 'ops@example.com',
    });
    const serve = await startServe(env);
    await serve.waitFor('could not obtain the certificate for blocked.ringhook.test', 30_000);
    expect(serve.output()).toContain('RINGHOOK_ACME_DOMAIN');
    const health = await request(`https://127.0.0.1:${httpsPort}/healthz`, {
      method: 'GET',
      ca: fs.readFileSync(path.join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8'),
    });
    expect(health.status).toBe(200);
    const check = doctor(env);
    expect(check).toMatchObject({
      ok: false,
      detail: expect.stringContaining('no certificate yet for blocked.ringhook.test'),
    });
    expect(check.fix).toContain('RINGHOOK_ACME_DOMAIN');
  }, 60_000);

  it('an authority whose HTTPS certificate is not trusted (no RINGHOOK_ACME_CA_FILE): doctor points at RINGHOOK_ACME_CA_FILE', async () => {
    const dataDir = makeDataDir('rh-acme-untrusted-');
    const env = acmeEnv(dataDir);
    delete env.RINGHOOK_ACME_CA_FILE;
    const serve = await startServe(env);
    await serve.waitFor('could not obtain the certificate', 30_000);
    expect(doctor(env).fix).toContain('RINGHOOK_ACME_CA_FILE');
  }, 60_000);
});

/** /metrics over a connection that sends the certificate's name (SNI), trusting Pebble's root. */
function metricsOver(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: NAMES[0], ca }, () => {
      socket.write(`GET /metrics HTTP/1.1\r\nHost: ${NAMES[0]}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}
