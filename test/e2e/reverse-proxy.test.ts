// The shipped reverse-proxy examples, run for real: deploy/Caddyfile (Caddy) and deploy/nginx.conf
// (nginx), read at test time and adapted only where a local run must differ (see
// test/helpers/reverse-proxy.ts), in front of a real ringhook whose plain-HTTP port trusts
// 127.0.0.1, as the examples' comments tell operators to set it up. Clients connect from other
// loopback addresses (127.0.0.2, 127.0.0.3) so that the address the proxy names to ringhook is
// distinguishable from the proxy's own.
import fs from 'node:fs';
import https from 'node:https';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SqliteOwnerAuthStore } from '../../src/store/sqlite/owner-auth.js';
import { WEBHOOK_AUTH_LIMITS } from '../../src/http/auth-throttle.js';
import { request, type Reply } from '../helpers/https-client.js';
import { freeTcpPort } from '../helpers/ports.js';
import { startProxy, type ProxyKind, type RunningProxy } from '../helpers/reverse-proxy.js';
import { sqliteDb, startTestService, type TestService } from '../helpers/service.js';
import { createAccount } from '../helpers/accounts.js';

const CLIENT = '127.0.0.2';
const OTHER_CLIENT = '127.0.0.3';
const PHONE = '+14155550123';

const until = async <T>(what: string, probe: () => T | undefined, ms = 15_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** name=value of each Set-Cookie header. */
function cookiesOf(reply: Reply): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of reply.headers['set-cookie'] ?? []) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq > 0) out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

interface Stream {
  status: number;
  headers: Record<string, unknown>;
  text: () => string;
  ended: () => boolean;
  close: () => void;
}

function openStream(url: string, ca: string, cookie: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      { ca, localAddress: CLIENT, headers: { cookie, accept: 'text/event-stream' } },
      (res) => {
        let text = '';
        let ended = false;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('close', () => (ended = true));
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: () => text,
          ended: () => ended,
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
  });
}

describe.each<ProxyKind>(['caddy', 'nginx'])('behind %s with the shipped configuration', (kind) => {
  let t: TestService;
  let proxy: RunningProxy;
  let httpPort: number;
  /** Every secret that travelled in a path through the proxy: none may be in its logs. */
  const secrets: string[] = [];

  beforeAll(async () => {
    const proxyPort = await freeTcpPort();
    httpPort = await freeTcpPort();
    t = await startTestService({
      RINGHOOK_HTTP_PORT: String(httpPort),
      RINGHOOK_TRUST_PROXY: '127.0.0.1',
      RINGHOOK_PUBLIC_URL: `https://127.0.0.1:${proxyPort}`,
    });
    try {
      proxy = await startProxy(kind, { port: proxyPort, upstreamPort: httpPort });
    } catch (error) {
      await t.stop();
      throw error;
    }
  }, 120_000);

  afterAll(async () => {
    // ringhook first: it ends its event streams when it stops, and Caddy 2.6 holds an abandoned
    // one (and its own graceful stop) until ringhook's next heartbeat otherwise.
    await t?.stop();
    await proxy?.stop();
    if (t) fs.rmSync(t.dataDir, { recursive: true, force: true });
  }, 60_000);

  afterEach(() => {
    if (t) expect(t.takeErrorLogs()).toEqual([]);
  });

  /** Requests sent through the proxy (the event stream apart): each must have its access log line. */
  let proxied = 0;
  const viaProxy = (p: string, options: Parameters<typeof request>[1] = {}) => {
    proxied++;
    return request(proxy.url + p, { ca: proxy.ca, localAddress: CLIENT, ...options });
  };
  /** The access log lines of the webhook calls for this user_id (the api_key part redacted), once there are `count`. */
  const webhookLines = (userId: string, count: number) =>
    until(`${count} access log lines for /webhook/${userId}/[redacted]`, () => {
      const found = proxy.accessLog().filter((l) => l.includes(`/webhook/${userId}/[redacted]`));
      return found.length >= count ? found : undefined;
    });
  /** The client address the proxy logged. */
  const remoteOf = (line: string) => (kind === 'caddy' ? JSON.parse(line).request.remote_ip : line.split(' ')[0]);
  const newAccount = async () => {
    const a = await createAccount(t.service.stores.accounts, { phone: PHONE });
    secrets.push(a.apiKey);
    return a;
  };
  const alert = (
    userId: string,
    apiKey: string,
    body: string,
    headers: Record<string, string> = {},
    localAddress = CLIENT,
  ) =>
    viaProxy(`/webhook/${userId}/${apiKey}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'text/plain', ...headers },
      localAddress,
    });

  /** A one-time sign-in link made as `ringhook account login-link` makes it (same store, same URL). */
  const loginLink = (userId: string) => {
    const { token } = new SqliteOwnerAuthStore(sqliteDb(t.service.stores), t.clock.now).createLoginLink(userId);
    secrets.push(token);
    return { token, url: `${t.config.publicUrl}/login/link/${token}` };
  };

  /** Signs in through the proxy with a one-time link, as a browser does: the session cookie. */
  const signInWithLink = async (userId: string): Promise<string> => {
    const { token, url } = loginLink(userId);
    expect(url.startsWith(`${proxy.url}/login/link/`)).toBe(true);
    const page = await viaProxy(url.slice(proxy.url.length), { method: 'GET' });
    expect(page.status).toBe(200);
    const presession = cookiesOf(page)['__Host-ringhook_presession'];
    const csrf = csrfOf(page.text);
    expect(presession && csrf).toBeTruthy();
    const posted = await viaProxy('/login/link', {
      method: 'POST',
      body: new URLSearchParams({ _csrf: csrf!, token }).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: proxy.url,
        cookie: `__Host-ringhook_presession=${presession}`,
      },
    });
    expect(posted.status, posted.text).toBe(303);
    const session = cookiesOf(posted)['__Host-ringhook_session'];
    expect(session).toBeTruthy();
    return `__Host-ringhook_session=${session}`;
  };

  it("forwards an alert sent over HTTPS to ringhook's plain port, which trusts the X-Forwarded-Proto the proxy sets", async () => {
    const a = await newAccount();
    const res = await alert(a.userId, a.apiKey, `${kind}: BTCUSD crossed 100000`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ success: true, call_id: expect.any(String) });
    expect(t.callRow(res.json.call_id)).toMatchObject({ user_id: a.userId, message: `${kind}: BTCUSD crossed 100000` });
    // The client saying "http" changes nothing: the proxy says https, because the client used it.
    const second = await alert(a.userId, a.apiKey, `${kind}: ETHUSD crossed 5000`, { 'x-forwarded-proto': 'http' });
    expect(second.status, second.text).toBe(200);
    expect((await t.service.stores.calls.list({ userId: a.userId })).map((c) => c.message).sort()).toEqual([
      `${kind}: BTCUSD crossed 100000`,
      `${kind}: ETHUSD crossed 5000`,
    ]);
    // The same client going round the proxy, to the plain port, with the same headers: refused.
    const direct = await request(`http://127.0.0.1:${httpPort}/webhook/${a.userId}/${a.apiKey}`, {
      plain: true,
      method: 'POST',
      body: 'around the proxy',
      localAddress: CLIENT,
      headers: { 'content-type': 'text/plain', 'x-forwarded-proto': 'https', 'x-forwarded-for': '127.0.0.1' },
    });
    expect(direct.status).toBe(403);
    expect(direct.json).toMatchObject({ code: 'https_required' });
    expect(await t.service.stores.calls.list({ userId: a.userId })).toHaveLength(2);
  });

  it('names the real client to ringhook, whatever X-Forwarded-For / X-Forwarded-Proto the client sends', async () => {
    const spoofed = { 'x-forwarded-for': '6.6.6.6', 'x-forwarded-proto': 'https' };
    // Dashboard sign-in: a failed attempt is logged (and throttled) under the client's address.
    const form = await viaProxy('/login', { method: 'GET', headers: spoofed });
    expect(form.status).toBe(200);
    const presession = cookiesOf(form)['__Host-ringhook_presession'];
    const failed = await viaProxy('/login', {
      method: 'POST',
      body: new URLSearchParams({
        _csrf: csrfOf(form.text)!,
        user_id: 'f'.repeat(32),
        password: 'not the password',
      }).toString(),
      headers: {
        ...spoofed,
        'content-type': 'application/x-www-form-urlencoded',
        origin: proxy.url,
        cookie: `__Host-ringhook_presession=${presession}`,
      },
    });
    expect(failed.status).toBe(401);
    const logged = t.logs.filter((l) => l.msg === 'dashboard sign-in failed').map((l) => l.address);
    expect(logged).toEqual([CLIENT]);

    // Webhook credential throttle (30 failures a minute per client address): changing
    // X-Forwarded-For on every attempt does not dodge it, and another client is not blocked by it.
    const a = await newAccount();
    for (let i = 0; i < WEBHOOK_AUTH_LIMITS.failures; i++) {
      const wrongKey = `wrongkey${kind}${i}x${'0'.repeat(20)}`;
      secrets.push(wrongKey);
      const res = await alert(a.userId, wrongKey, 'guess', { 'x-forwarded-for': `6.6.6.${i}` });
      expect(res.status, `attempt ${i}: ${res.text}`).toBe(401);
    }
    const blocked = await alert(a.userId, `wrongkey${kind}last`, 'guess', { 'x-forwarded-for': '7.7.7.7' });
    secrets.push(`wrongkey${kind}last`);
    expect(blocked.status, blocked.text).toBe(429);
    expect(blocked.json).toMatchObject({ code: 'too_many_failures' });
    const other = await alert(a.userId, `wrongkey${kind}other`, 'guess', {}, OTHER_CLIENT);
    secrets.push(`wrongkey${kind}other`);
    expect(other.status, other.text).toBe(401);
    // Valid credentials from the throttled client still get through.
    const valid = await alert(a.userId, a.apiKey, `${kind}: valid after failures`, { 'x-forwarded-for': '6.6.6.6' });
    expect(valid.status, valid.text).toBe(200);
    // The proxy's access log names the clients it saw, too.
    const lines = await webhookLines(a.userId, WEBHOOK_AUTH_LIMITS.failures + 3);
    expect(lines.map(remoteOf).sort()).toEqual(
      [...Array<string>(WEBHOOK_AUTH_LIMITS.failures + 2).fill(CLIENT), OTHER_CLIENT].sort(),
    );
  });

  // (ringhook also answers X-Accel-Buffering: no, so behind nginx this proves the stack as shipped,
  // not the events location's proxy_buffering off alone.)
  it("streams the dashboard's server-sent events through at once (first bytes, then a live change)", async () => {
    const a = await newAccount();
    const cookie = await signInWithLink(a.userId);
    const stream = await openStream(`${proxy.url}/dashboard/events`, proxy.ca, cookie);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      // Unbuffered: the first bytes arrive while the stream is still open.
      await until('the first bytes of the stream', () => (stream.text().includes(': connected') ? true : undefined));
      expect(stream.ended()).toBe(false);
      const res = await alert(a.userId, a.apiKey, `${kind}: live`);
      expect(res.status).toBe(200);
      await until('the call event', () =>
        stream.text().includes(`"callId":"${res.json.call_id}"`) ? true : undefined,
      );
      expect(stream.text()).toContain(`event: call\ndata: {"callId":"${res.json.call_id}","status":"queued"}\n\n`);
      expect(stream.ended()).toBe(false);
    } finally {
      stream.close();
    }
  });

  it('keeps an access log line for each request, with the api_key and sign-in link tokens replaced by [redacted]', async () => {
    const a = await newAccount();
    const res = await alert(a.userId, a.apiKey, `${kind}: logged`);
    expect(res.status).toBe(200);
    const { token } = loginLink(a.userId);
    expect((await viaProxy(`/login/link/${token}`, { method: 'GET' })).status).toBe(200);
    if (proxy.plainUrl) {
      // nginx's port-80 server: a webhook sent to http:// is redirected, and logged redacted too.
      const plain = await request(`${proxy.plainUrl}/webhook/${a.userId}/${a.apiKey}`, {
        plain: true,
        method: 'POST',
        body: 'plain',
        localAddress: CLIENT,
      });
      expect(plain.status).toBe(301);
      expect(plain.headers.location).toBe(`https://127.0.0.1/webhook/${a.userId}/${a.apiKey}`);
    }
    const [webhookLine] = await webhookLines(a.userId, 1);
    const linkLine = await until('the access log line of the sign-in link', () =>
      proxy.accessLog().find((l) => l.includes('/login/link/[redacted]')),
    );
    if (kind === 'caddy') {
      expect(JSON.parse(webhookLine!).request).toMatchObject({
        method: 'POST',
        uri: `/webhook/${a.userId}/[redacted]`,
      });
      expect(JSON.parse(webhookLine!).status).toBe(200);
      expect(JSON.parse(linkLine).request).toMatchObject({ method: 'GET', uri: '/login/link/[redacted]' });
    } else {
      expect(webhookLine).toContain(`"POST /webhook/${a.userId}/[redacted] HTTP/1.1" 200 `);
      expect(linkLine).toContain('"GET /login/link/[redacted] HTTP/1.1" 200 ');
      await webhookLines(a.userId, 2);
      expect(proxy.accessLog().some((l) => l.includes(`"POST /webhook/${a.userId}/[redacted] HTTP/1.1" 301 `))).toBe(
        true,
      );
    }
    // A line for each request sent through the proxy in this file (besides the readiness probes).
    const log = await until(`${proxied} access log lines from the test's clients`, () => {
      const lines = proxy.accessLog();
      return lines.filter((l) => remoteOf(l) !== '127.0.0.1').length >= proxied ? lines : undefined;
    });
    const text = log.join('\n');
    expect(text).toContain('[redacted]');
    expect(text).toContain(`/webhook/${a.userId}/[redacted]`);
    for (const secret of secrets)
      expect(text, `a secret (${secret.slice(0, 6)}…) in the access log`).not.toContain(secret);
    // The proxy's other logs (Caddy's other loggers, nginx's error_log) do not have them either.
    const other = proxy.otherLogs();
    for (const secret of secrets)
      expect(other, `a secret (${secret.slice(0, 6)}…) in the proxy's other logs`).not.toContain(secret);
    // Evidence for the report.
    console.log(`${kind} access log, a redacted webhook line:\n${webhookLine}\nand a sign-in link line:\n${linkLine}`);
  });

  // Last: ringhook is stopped here.
  it("while ringhook is down (502), the proxy's error lines do not carry the api_key either", async () => {
    const a = await newAccount();
    await t.stop();
    t = undefined as unknown as TestService;
    const res = await viaProxy(`/webhook/${a.userId}/${a.apiKey}`, { method: 'POST', body: `${kind}: ringhook down` });
    expect(res.status).toBe(502);
    // Caddy writes an error line (filtered); nginx's are below crit, so none is written.
    if (kind === 'caddy')
      await until(
        "Caddy's error line for the 502",
        () => proxy.otherLogs().includes(`"uri":"/webhook/${a.userId}/[redacted]"`) || undefined,
      );
    else await new Promise((r) => setTimeout(r, 300));
    const logs = proxy.otherLogs() + proxy.accessLog().join('\n');
    for (const secret of secrets)
      expect(logs, `a secret (${secret.slice(0, 6)}…) in the proxy's logs`).not.toContain(secret);
  });
});
