// ARI's REST transport against real HTTP servers on loopback: kept-alive connections, the deadline,
// the size cap, a connection cut in the middle of a reply, nobody listening.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KeptAliveHttp, RequestTimeoutError } from '../../src/pbx/ari-http.js';
import { AriClient } from '../../src/pbx/ari.js';
import { AriError } from '../../src/pbx/ari-error.js';
import { silentLogger } from '../../src/lib/log.js';
import { freeTcpPort } from '../helpers/ports.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function serve(handler: http.RequestListener): Promise<URL> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

describe('KeptAliveHttp', () => {
  it('sends the method, headers and body; one connection serves requests one after another', async () => {
    const seen: Array<{ method?: string; auth?: string; length?: string; body: string; port: number }> = [];
    const base = await serve((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({
          method: req.method,
          auth: req.headers.authorization,
          length: req.headers['content-length'],
          body,
          port: req.socket.remotePort!,
        });
        res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":"é"}');
      });
    });
    const client = new KeptAliveHttp(base);
    try {
      const first = await client.request(
        'POST',
        new URL('/ari/channels/a', base),
        { authorization: 'Basic eDp5' },
        '{"x":"é"}',
        2_000,
      );
      const second = await client.request('DELETE', new URL('/ari/channels/a', base), {}, undefined, 2_000);
      expect(first).toEqual({ status: 201, text: '{"ok":"é"}' });
      expect(second.status).toBe(201);
      expect(seen[0]).toMatchObject({ method: 'POST', auth: 'Basic eDp5', length: '10', body: '{"x":"é"}' });
      expect(seen[1]).toMatchObject({ method: 'DELETE', body: '' });
      expect(seen[1]!.port).toBe(seen[0]!.port);
    } finally {
      client.close();
    }
  });

  it('no reply within the deadline: a RequestTimeoutError, and the connection is not left waiting', async () => {
    let closed = false;
    const base = await serve((req) => req.socket.on('close', () => (closed = true)));
    const client = new KeptAliveHttp(base);
    try {
      const started = Date.now();
      const error = await client.request('GET', new URL('/slow', base), {}, undefined, 300).catch((e: Error) => e);
      expect(error).toBeInstanceOf(RequestTimeoutError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      await expect.poll(() => closed).toBe(true);
    } finally {
      client.close();
    }
  });

  it('a reply cut in the middle: an error, never a partial text', async () => {
    const base = await serve((req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => req.socket.destroy(), 20);
    });
    const client = new KeptAliveHttp(base);
    try {
      await expect(client.request('GET', new URL('/cut', base), {}, undefined, 2_000)).rejects.toMatchObject({
        code: 'ECONNRESET',
      });
    } finally {
      client.close();
    }
  });

  it('a kept-alive connection closed by the server as it is taken is tried once more on a new one; a new connection cut is not', async () => {
    const sockets = new Set<unknown>();
    let requests = 0;
    const base = await serve((req, res) => {
      requests++;
      const reused = sockets.has(req.socket);
      sockets.add(req.socket);
      // The second request on a connection: the server drops the connection without a word.
      if (reused || req.url === '/cut') return req.socket.destroy();
      res.writeHead(200).end(`answer ${requests}`);
    });
    const client = new KeptAliveHttp(base);
    try {
      expect((await client.request('GET', new URL('/a', base), {}, undefined, 2_000)).text).toBe('answer 1');
      expect((await client.request('POST', new URL('/b', base), {}, '{}', 2_000)).text).toBe('answer 3');
      expect(requests).toBe(3);
      const other = new KeptAliveHttp(base);
      await expect(other.request('GET', new URL('/cut', base), {}, undefined, 2_000)).rejects.toMatchObject({
        code: 'ECONNRESET',
      });
      other.close();
      expect(requests).toBe(4);
    } finally {
      client.close();
    }
  });

  it('nobody listening: the socket error with its code (ECONNREFUSED: the request never reached Asterisk)', async () => {
    // A port of this process's own block that nothing listens on: a port released by a server of
    // ours could be taken by another file's server meanwhile (files run in parallel).
    const base = new URL(`http://127.0.0.1:${await freeTcpPort()}`);
    const client = new KeptAliveHttp(base);
    await expect(client.request('GET', new URL('/x', base), {}, undefined, 2_000)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    client.close();
  });
});

describe('AriClient requests', () => {
  it('a timeout, a refusal and an HTTP error each become the AriError kind the dialer decides on', async () => {
    const base = await serve((req, res) => {
      if (req.url?.startsWith('/ari/asterisk/info')) return; // never answers
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Channel not found"}');
    });
    const ari = new AriClient({
      baseUrl: base.href,
      user: 'u',
      password: 'p',
      app: 'ringhook',
      logger: silentLogger,
      requestTimeoutMs: 200,
    });
    try {
      await expect(ari.asteriskInfo()).rejects.toMatchObject({ kind: 'timeout' });
      const notFound = await ari.hangup('nope').catch((e: AriError) => e);
      expect(notFound).toBeInstanceOf(AriError);
      expect(notFound).toMatchObject({ kind: 'http', status: 404, ariMessage: 'Channel not found' });
    } finally {
      await ari.close();
    }
    const gone = new URL(`http://127.0.0.1:${await freeTcpPort()}`);
    const refused = new AriClient({
      baseUrl: gone.href,
      user: 'u',
      password: 'p',
      app: 'ringhook',
      logger: silentLogger,
    });
    await expect(refused.hangup('x')).rejects.toMatchObject({ kind: 'network', cause: { code: 'ECONNREFUSED' } });
    await refused.close();
  });
});
