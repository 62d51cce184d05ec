// http:// typed for https:// (#52): a real serve's HTTPS port answers a plain HTTP request with a
// sentence saying to use https, as nginx does, and goes on serving HTTPS as before.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;

beforeAll(async () => {
  t = await startTestService();
});

afterAll(async () => {
  await t?.stop();
});

function plainRequest(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/healthz', method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

it('answers a plain HTTP request on the HTTPS port: 400, use https://', async () => {
  const port = t.service.servers.httpsPort;
  const answer = await plainRequest(port);
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.body)).toMatchObject({
    success: false,
    code: 'bad_request',
    error: 'The plain HTTP request was sent to the HTTPS port: use https:// instead of http://.',
  });
  // HTTPS on the same port as before.
  const secure = await t.post('/webhook/0123456789abcdef0123456789abcdef/rk_nope', 'x');
  expect(secure.status).toBe(401);
  expect(t.takeErrorLogs()).toEqual([]);
});

it('a connection reset before its first byte costs nothing: serve goes on answering', async () => {
  const port = t.service.servers.httpsPort;
  // Reset while serve waits for the first bytes to tell HTTP from TLS: an 'error' with nobody
  // listening on the raw socket would end the process.
  for (let i = 0; i < 3; i += 1) {
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        setTimeout(() => {
          socket.resetAndDestroy();
          resolve();
        }, 20);
      });
      socket.on('error', reject);
    });
  }
  const secure = await t.post('/webhook/0123456789abcdef0123456789abcdef/rk_nope', 'x');
  expect(secure.status).toBe(401);
});
