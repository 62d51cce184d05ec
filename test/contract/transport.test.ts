// HTTPS only: the plain-HTTP port refuses everything except trusted proxies that say the client used HTTPS.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/https-client.js';
import { makeDataDir, startTestService, type TestService } from '../helpers/service.js';
import { freeTcpPort } from '../helpers/ports.js';
import { createAccount } from '../helpers/accounts.js';

let t: TestService;
let httpPort: number;

const plainPost = (p: string, headers: Record<string, string> = {}, localAddress?: string) =>
  request(`http://127.0.0.1:${httpPort}${p}`, {
    plain: true,
    method: 'POST',
    body: 'hello',
    headers: { 'content-type': 'text/plain', ...headers },
    ...(localAddress && { localAddress }),
  });

beforeAll(async () => {
  httpPort = await freeTcpPort();
  // 127.0.0.2 is the reverse proxy; requests from 127.0.0.1 are ordinary clients.
  t = await startTestService({ RINGHOOK_HTTP_PORT: String(httpPort), RINGHOOK_TRUST_PROXY: '127.0.0.2, 10.0.0.0/8' });
});

afterAll(async () => {
  await t.stop();
});

afterEach(() => {
  expect(t.takeErrorLogs()).toEqual([]);
});

describe('plain HTTP', () => {
  it('answers 403 "HTTPS is required" and records nothing', async () => {
    const a = await createAccount(t.service.stores.accounts);
    const res = await plainPost(`/webhook/${a.userId}/${a.apiKey}`);
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({
      success: false,
      code: 'https_required',
      error: expect.stringMatching(/HTTPS is required/),
    });
    expect(await t.service.stores.calls.list({ userId: a.userId })).toHaveLength(0);
  });

  it('ignores X-Forwarded-Proto from an address that is not a trusted proxy', async () => {
    const a = await createAccount(t.service.stores.accounts);
    const res = await plainPost(`/webhook/${a.userId}/${a.apiKey}`, { 'x-forwarded-proto': 'https' }, '127.0.0.1');
    expect(res.status).toBe(403);
    expect(await t.service.stores.calls.list({ userId: a.userId })).toHaveLength(0);
  });

  it('refuses a trusted proxy that does not say https', async () => {
    const a = await createAccount(t.service.stores.accounts);
    for (const proto of [undefined, 'http', 'https, http']) {
      const res = await plainPost(
        `/webhook/${a.userId}/${a.apiKey}`,
        proto ? { 'x-forwarded-proto': proto } : {},
        '127.0.0.2',
      );
      expect(res.status, String(proto)).toBe(403);
    }
    expect(await t.service.stores.calls.list({ userId: a.userId })).toHaveLength(0);
  });

  it('accepts an alert forwarded by a trusted proxy over HTTPS', async () => {
    const a = await createAccount(t.service.stores.accounts);
    const res = await plainPost(`/webhook/${a.userId}/${a.apiKey}`, { 'x-forwarded-proto': 'https' }, '127.0.0.2');
    expect(res.status).toBe(200);
    expect(res.json.success).toBe(true);
  });
});

describe('HTTPS certificate', () => {
  it('keeps the self-signed certificate in the data dir with mode 0600 and reuses it after a restart', async () => {
    const dataDir = makeDataDir();
    const first = await startTestService({ RINGHOOK_DATA_DIR: dataDir });
    const keyFile = path.join(dataDir, 'tls', 'self-signed-key.pem');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dataDir, 'ringhook.db')).mode & 0o777).toBe(0o600);
    expect(first.logs.some((l) => l.level === 'warn' && String(l.msg).includes('self-signed'))).toBe(true);
    const cert = first.ca;
    await first.stop();
    const second = await startTestService({ RINGHOOK_DATA_DIR: dataDir });
    expect(second.ca).toBe(cert);
    expect((await request(`${second.baseUrl}/healthz`, { method: 'GET', ca: cert })).status).toBe(200);
    await second.stop();
  });

  it("serves the operator's certificate from RINGHOOK_TLS_CERT and RINGHOOK_TLS_KEY", async () => {
    const source = makeDataDir();
    const made = await startTestService({ RINGHOOK_DATA_DIR: source });
    await made.stop();
    const certFile = path.join(source, 'tls', 'self-signed-cert.pem');
    const keyFile = path.join(source, 'tls', 'self-signed-key.pem');
    const other = await startTestService({ RINGHOOK_TLS_CERT: certFile, RINGHOOK_TLS_KEY: keyFile });
    expect(other.logs.some((l) => String(l.msg).includes('self-signed'))).toBe(false);
    expect(fs.existsSync(path.join(other.dataDir, 'tls'))).toBe(false);
    expect((await request(`${other.baseUrl}/healthz`, { method: 'GET', ca: made.ca })).status).toBe(200);
    await other.stop();
  });

  it('refuses to start on a port that is taken, saying so', async () => {
    await expect(startTestService({ RINGHOOK_PORT: String(new URL(t.baseUrl).port) })).rejects.toThrow(
      /cannot listen for HTTPS on 127\.0\.0\.1:\d+/,
    );
  });
});
