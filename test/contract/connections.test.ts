// Idle connections over real HTTPS: one address holds at most its cap of connections, trusted
// proxies are held only to the total, at the total a new connection takes the place of the oldest
// idle one, a webhook from elsewhere is answered 200 during a flood, and a connection that never
// completes its handshake or never sends a request is closed after 10 s, while a live-update
// stream (a request under way) stays open.
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../src/store/sqlite/sessions.js';
import { createAccount } from '../helpers/accounts.js';
import { sqliteDb, startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let port: number;

beforeAll(async () => {
  t = await startTestService({
    RINGHOOK_MAX_CONNECTIONS: '40',
    RINGHOOK_MAX_CONNECTIONS_PER_ADDRESS: '10',
    RINGHOOK_TRUST_PROXY: '127.0.0.3',
  });
  port = t.service.servers.httpsPort;
});

afterAll(async () => {
  await t?.stop();
});

interface Held {
  /** Completed its TLS handshake. */
  secured: boolean;
  closedAt: number | undefined;
  socket: net.Socket;
}

/** A TLS connection from `localAddress` that sends nothing after its handshake; settles once handshaken or closed. */
function idleTls(localAddress: string): Promise<Held> {
  return new Promise((resolve) => {
    // localAddress reaches net.connect (the types leave it out).
    const socket = tls.connect({
      host: '127.0.0.1',
      port,
      localAddress,
      rejectUnauthorized: false,
    } as tls.ConnectionOptions);
    const held: Held = { secured: false, closedAt: undefined, socket };
    socket.on('error', () => {});
    socket.once('secureConnect', () => {
      held.secured = true;
      // A server that drops it right after the handshake has not kept it: wait a moment to tell.
      setTimeout(() => resolve(held), 200);
    });
    socket.once('close', () => {
      held.closedAt = Date.now();
      resolve(held);
    });
  });
}

const open = (list: Held[]) => list.filter((h) => h.closedAt === undefined);

it('caps one address, exempts trusted proxies from that cap, answers a webhook during the flood, and closes idle connections after 10 s', async () => {
  const a = await createAccount(t.service.stores.accounts, { plan: 'premium' });
  const token = new SqliteSessionStore(sqliteDb(t.service.stores), t.clock.now).create(a.userId).token;
  // A live-update stream opened first: its request is under way, so no first-request timeout applies.
  const stream = await new Promise<{ closed: () => boolean; text: () => string }>((resolve, reject) => {
    const req = https.get(
      `${t.baseUrl}/dashboard/events`,
      { ca: t.ca, headers: { cookie: `__Host-ringhook_session=${token}` } },
      (res) => {
        let text = '';
        let closed = false;
        res.on('data', (c) => (text += c));
        res.on('close', () => (closed = true));
        expect(res.statusCode).toBe(200);
        resolve({ closed: () => closed, text: () => text });
      },
    );
    req.on('error', reject);
  });

  const started = Date.now();
  const flood = await Promise.all(Array.from({ length: 25 }, () => idleTls('127.0.0.2')));
  expect(open(flood)).toHaveLength(10);
  // A bare TCP connection that never starts its handshake (from another address: 127.0.0.2 is full).
  const bare = net.connect({ host: '127.0.0.1', port, localAddress: '127.0.0.5' });
  let bareClosedAt: number | undefined;
  bare.on('error', () => {});
  bare.on('close', () => (bareClosedAt = Date.now()));

  const proxy = await Promise.all(Array.from({ length: 25 }, () => idleTls('127.0.0.3')));
  expect(open(proxy)).toHaveLength(25);

  // Everybody else is still served while the flood is held.
  const sent = Date.now();
  const res = await t.post(
    `/webhook/${a.userId}/${a.apiKey}`,
    'BTC crossed',
    { 'content-type': 'text/plain' },
    { localAddress: '127.0.0.1' },
  );
  expect(res.status).toBe(200);
  expect(Date.now() - sent).toBeLessThan(1000);

  // At the total cap (40: the stream, the first webhook's kept-alive connection, 10 + 1 + 25 held), a new connection closes the oldest one
  // that has sent no request yet (the flood's first) instead of being refused.
  // From ten fresh addresses: one address that already holds the average share is refused instead (#39).
  const others = await Promise.all(Array.from({ length: 10 }, (_, i) => idleTls(`127.0.0.${30 + i}`)));
  expect(open(others)).toHaveLength(10);
  const floodLeft = open(flood).length;
  expect(floodLeft).toBeGreaterThan(0);
  expect(floodLeft).toBeLessThanOrEqual(3);
  expect(open(proxy)).toHaveLength(25);
  const atCap = Date.now();
  const full = await t.post(
    `/webhook/${a.userId}/${a.apiKey}`,
    'ETH crossed',
    { 'content-type': 'text/plain' },
    { localAddress: '127.0.0.6' },
  );
  expect(full.status).toBe(200);
  expect(Date.now() - atCap).toBeLessThan(1000);
  expect(open(flood)).toHaveLength(floodLeft - 1);
  expect(stream.closed()).toBe(false);

  const idle = [...open(flood), ...open(proxy), ...open(others)];
  const deadline = Date.now() + 15_000;
  while ((idle.some((h) => h.closedAt === undefined) || bareClosedAt === undefined) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  for (const h of idle) {
    expect(h.closedAt).toBeDefined();
    expect(h.closedAt! - started).toBeGreaterThan(9_000);
    expect(h.closedAt! - started).toBeLessThan(14_000);
  }
  expect(bareClosedAt! - started).toBeGreaterThan(9_000);
  expect(stream.closed()).toBe(false);
  expect(stream.text()).toContain(': connected');
  // Refusals and evictions are told once, then counted.
  expect(t.logs.filter((l) => l.msg === 'connections refused').length).toBe(1);
  expect(t.logs.filter((l) => l.msg === 'connections closed to make room').length).toBe(1);
  bare.destroy();
}, 60_000);
