// smpps:// (SMPP over TLS): the Net::SMPP SMSC behind a TLS terminator made here with node:tls
// and a self-signed certificate from openssl (the Perl SMSC itself speaks plain TCP).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { createSmsSender } from '../../src/sms/service.js';
import { smsConfig } from '../helpers/sms-config.js';
import { startSmsc, type Smsc } from '../helpers/smpp-server.js';

let smsc: Smsc;
let tlsServer: Server;
let tlsPort: number;
let dir: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  smsc = await startSmsc();
  dir = mkdtempSync(join(tmpdir(), 'ringhook-smpps-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  tlsServer = createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (clear) => {
      const upstream = connect({ host: '127.0.0.1', port: smsc.port });
      sockets.add(clear).add(upstream);
      clear.pipe(upstream).pipe(clear);
      const end = () => {
        clear.destroy();
        upstream.destroy();
      };
      clear.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    },
  );
  await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
  const addr = tlsServer.address();
  tlsPort = typeof addr === 'object' && addr ? addr.port : 0;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => (tlsServer ? tlsServer.close(() => resolve()) : resolve()));
  await smsc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function smpps(extra: Record<string, string>) {
  return createSmsSender(
    smsConfig({
      RINGHOOK_SMS_GATEWAY: 'smpp',
      RINGHOOK_SMS_FROM: 'RINGHOOK',
      RINGHOOK_SMPP_URL: `smpps://${smsc.systemId}:${smsc.password}@127.0.0.1:${tlsPort}`,
      RINGHOOK_SMS_RETRY_ATTEMPTS: '1',
      RINGHOOK_SMPP_CONNECT_TIMEOUT_MS: '3000',
      ...extra,
    }),
    { logger: silentLogger },
  );
}

it('binds and submits over TLS (self-signed certificate allowed by RINGHOOK_SMPP_TLS_INSECURE)', async () => {
  const s = smpps({ RINGHOOK_SMPP_TLS_INSECURE: 'true' });
  try {
    const result = await s.send({ to: '+15551230004', text: 'Missed call alert: over TLS', reference: 'call-tls' });
    expect(result).toMatchObject({ status: 'sent', parts: 1 });
    expect(await smsc.waitForEvent((e) => e.event === 'message')).toMatchObject({
      text: 'Missed call alert: over TLS',
      source_addr: 'RINGHOOK',
    });
    const submit = await smsc.waitForEvent((e) => e.event === 'submit_sm');
    expect(submit).toMatchObject({ source_addr_ton: 5, source_addr_npi: 0 });
  } finally {
    await s.close();
  }
});

it('refuses an untrusted certificate by default, as a failure that says why', async () => {
  const s = smpps({});
  try {
    const result = await s.send({ to: '+15551230004', text: 'x', reference: 'call-tls-untrusted' });
    expect(result).toMatchObject({ status: 'failed' });
    expect(result.status === 'failed' && result.error).toMatch(/self[- ]signed/i);
  } finally {
    await s.close();
  }
});
