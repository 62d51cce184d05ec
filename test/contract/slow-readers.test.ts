// Clients that send requests and never read the answers, over real HTTPS against ringhook's own
// listeners (startServers and its connection guard). The handler is the test's own, standing in for
// serve's largest answers (a "Hear it" WAV is up to 5 MB): 8 MiB, more than a loopback socket's buffers (4 MiB here)
// take, so its connection stays with an answer under way for as long as its client does not read.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterEach, expect, it } from 'vitest';
import { parseAddressList } from '../../src/core/connections/address-match.js';
import { SLOW_READER_MS } from '../../src/core/connections/connection-caps.js';
import { type RunningServers, startServers } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/log.js';

const BIG = Buffer.alloc(8 * 1024 * 1024, 'a');

let servers: RunningServers | undefined;
const sockets: tls.TLSSocket[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await servers?.close();
  servers = undefined;
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function start(connections: { total: number; perAddress: number; sendTimeoutMs: number; minSendRate: number }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-slow-readers-'));
  dirs.push(dataDir);
  const logs: Array<Record<string, unknown>> = [];
  const handled: string[] = [];
  servers = await startServers(
    (req, res) => {
      handled.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(req.url === '/big' ? BIG : 'small');
    },
    {
      host: '127.0.0.1',
      port: 0,
      httpPort: null,
      tls: null,
      dataDir,
      trustProxy: parseAddressList(''),
      certificateNames: ['127.0.0.1'],
      connections,
      logger: createLogger({ level: 'debug', write: (line) => logs.push(JSON.parse(line)) }),
    },
  );
  return { port: servers.httpsPort, logs, handled };
}

interface Client {
  socket: tls.TLSSocket;
  closed: () => boolean;
  /** What was read (only for a client that reads). */
  text: () => string;
}

/** A TLS connection from `localAddress` that sends `requests` at once; reads the answers only if `reads`. */
function client(port: number, localAddress: string, requests: string[], reads: boolean): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port,
      localAddress,
      rejectUnauthorized: false,
    } as tls.ConnectionOptions);
    sockets.push(socket);
    let closed = false;
    let text = '';
    socket.on('error', () => {});
    socket.once('close', () => (closed = true));
    if (reads) socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    else socket.pause();
    socket.once('secureConnect', () => {
      socket.write(requests.map((url) => `GET ${url} HTTP/1.1\r\nHost: test\r\n\r\n`).join(''));
      resolve({ socket, closed: () => closed, text: () => text });
    });
    socket.once('close', () => reject(new Error('closed before its handshake')));
  });
}

const until = async (what: () => boolean, ms: number) => {
  const deadline = Date.now() + ms;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return what();
};
const logged = (logs: Array<Record<string, unknown>>, msg: string) => logs.filter((l) => l.msg === msg);

it('at the total cap a slow reader is closed to let a fresh address in, and the others after the send timeout', async () => {
  // The send timeout 10 s, with no allowance for the bytes waiting (30 s and 64 KiB/s by default): far
  // enough past the slow readers' 2 s that none has reached it when the fresh address comes (#53: at a
  // load average of 20, 6 s had passed for some by then, and the room was made by the send timeout).
  const s = await start({ total: 6, perAddress: 3, sendTimeoutMs: 10_000, minSendRate: 1e12 });
  // Every slot taken by a connection whose answer (8 MiB) its client does not read.
  await Promise.all([
    ...Array.from({ length: 3 }, () => client(s.port, '127.0.0.21', ['/big'], false)),
    ...Array.from({ length: 3 }, () => client(s.port, '127.0.0.22', ['/big'], false)),
  ]);
  await until(() => s.handled.length === 6, 5_000);
  // Long enough for the guard to call them slow readers (it looks every second).
  await new Promise((r) => setTimeout(r, SLOW_READER_MS + 1_500));
  const fresh = await client(s.port, '127.0.0.23', ['/small'], true);
  expect(await until(() => fresh.text().includes('small'), 5_000)).toBe(true);
  expect(logged(s.logs, 'connections closed to make room')[0]).toMatchObject({ cap: 'slow reader' });
  // The rest wait until the send timeout (10 s here, 30 s by default) since their answers were written.
  expect(
    await until(() => logged(s.logs, 'connections closed: the client read none of the answer').length > 0, 12_000),
  ).toBe(true);
  expect(logged(s.logs, 'connections closed: the client read none of the answer')[0]).toMatchObject({
    cap: 'send timeout',
  });
  // Closed on serve's side: a new connection from each of their addresses is let in again.
  const again = await client(s.port, '127.0.0.21', ['/small'], true);
  expect(await until(() => again.text().includes('small'), 5_000)).toBe(true);
}, 40_000);

it('a client that reads a large answer slowly keeps its connection past the send timeout', async () => {
  // 3 s, and 128 s more for 8 MiB at the default 64 KiB/s: the one write completes only at its end.
  const s = await start({ total: 20, perAddress: 10, sendTimeoutMs: 3_000, minSendRate: 64 * 1024 });
  const reader = await client(s.port, '127.0.0.24', ['/big'], false);
  // It takes a little every half second: slow, but reading.
  const trickle = setInterval(() => reader.socket.read(64 * 1024), 500);
  try {
    await new Promise((r) => setTimeout(r, 5_000));
    expect(reader.closed()).toBe(false);
  } finally {
    clearInterval(trickle);
  }
}, 20_000);

it('requests sent ahead of the answers beyond the fourth are refused 429; the handler sees four', async () => {
  const s = await start({ total: 20, perAddress: 10, sendTimeoutMs: 30_000, minSendRate: 64 * 1024 });
  const pipelining = await client(
    s.port,
    '127.0.0.25',
    Array.from({ length: 20 }, () => '/small'),
    true,
  );
  const statuses = () => [...pipelining.text().matchAll(/^HTTP\/1\.1 (\d+)/gm)].map((m) => Number(m[1]));
  expect(await until(() => statuses().length === 20, 5_000)).toBe(true);
  expect(statuses()).toEqual([200, 200, 200, 200, ...Array.from({ length: 16 }, () => 429)]);
  expect(pipelining.text()).toContain('"code":"too_many_pipelined"');
  expect(s.handled.length).toBe(4);
  // The answers read, the connection takes requests again.
  pipelining.socket.write('GET /small HTTP/1.1\r\nHost: test\r\n\r\n');
  expect(await until(() => s.handled.length === 5, 5_000)).toBe(true);
  expect(logged(s.logs, 'requests refused: too many sent ahead on one connection')[0]).toMatchObject({
    cap: 'sent ahead',
  });
}, 20_000);
