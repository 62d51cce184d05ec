// STAND-IN, not Asterisk: a tiny websocket server playing ARI's /ari/events only for faults a
// real Asterisk cannot be made to produce — malformed JSON, events that fail validation, and a
// socket that goes silent (stops answering pings) without closing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { createLogger } from '../../src/lib/log.js';
import { AriClient } from '../../src/pbx/ari.js';
import type { AriEvent } from '../../src/pbx/ari-schema.js';

interface StandIn {
  url: string;
  sockets: WebSocket[];
  connections: number;
  close(): Promise<void>;
}

async function startStandIn(options: { autoPong: boolean }): Promise<StandIn> {
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server, path: '/ari/events', autoPong: options.autoPong });
  const standIn: StandIn = { url: '', sockets: [], connections: 0, close: async () => {} };
  wss.on('connection', (ws) => {
    standIn.connections++;
    standIn.sockets.push(ws);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.close = async () => {
    for (const ws of wss.clients) ws.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
    await new Promise<void>((r) => server.close(() => r()));
  };
  return standIn;
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
});

function client(url: string, logLines: string[], heartbeatMs = 300) {
  const ari = new AriClient({
    baseUrl: url,
    user: 'u',
    password: 'p',
    app: 'standin',
    logger: createLogger({ level: 'debug', write: (l) => logLines.push(l) }),
    heartbeatMs,
    reconnect: { initialMs: 50, maxMs: 200 },
  });
  cleanup.push(() => ari.close());
  return ari;
}

describe('ARI client against a stand-in websocket (faults Asterisk cannot produce)', () => {
  it('stand-in: malformed JSON is logged and dropped; unknown and invalid events arrive as Unknown', async () => {
    const standIn = await startStandIn({ autoPong: true });
    cleanup.push(() => standIn.close());
    const logs: string[] = [];
    const ari = client(standIn.url, logs);
    const events: AriEvent[] = [];
    ari.on('event', (e) => events.push(e));
    await ari.connect();
    const ws = standIn.sockets[0]!;
    ws.send('{"type": "StasisStart", ');
    ws.send(JSON.stringify({ type: 'BridgeCreated', bridge: { id: 'b1' } }));
    ws.send(JSON.stringify({ type: 'ChannelDestroyed', channel: { id: 'c1' }, cause: 'sixteen' }));
    ws.send(JSON.stringify([1, 2]));
    ws.send(
      JSON.stringify({
        type: 'ChannelDtmfReceived',
        channel: { id: 'c1', name: 'PJSIP/trunk-1', state: 'Up', extra_future_field: 1 },
        digit: '1',
        duration_ms: 100,
      }),
    );
    await ari.waitFor((e) => e.type === 'ChannelDtmfReceived', 2_000);
    expect(
      events.map((e) => (e.type === 'Unknown' ? `Unknown:${e.originalType}${e.issues ? '!' : ''}` : e.type)),
    ).toEqual(['Unknown:BridgeCreated', 'Unknown:ChannelDestroyed!', 'Unknown:undefined', 'ChannelDtmfReceived']);
    expect(logs.some((l) => l.includes('malformed JSON'))).toBe(true);
    expect(logs.some((l) => l.includes('failed validation') && l.includes('ChannelDestroyed'))).toBe(true);
    expect(ari.isConnected).toBe(true);
  });

  it('stand-in: a websocket that goes silent is dropped within a few seconds and reconnected', async () => {
    const standIn = await startStandIn({ autoPong: false });
    cleanup.push(() => standIn.close());
    const logs: string[] = [];
    const ari = client(standIn.url, logs, 500);
    await ari.connect();
    const t0 = Date.now();
    const reconnected = new Promise<{ downMs: number }>((r) => ari.once('reconnected', r));
    await reconnected;
    const detectedMs = Date.now() - t0;
    expect(detectedMs).toBeLessThan(3_000);
    expect(standIn.connections).toBeGreaterThanOrEqual(2);
    expect(logs.some((l) => l.includes('silent'))).toBe(true);
    console.log(`silent websocket detected and replaced in ${detectedMs} ms (heartbeat 500 ms)`);
  });
});
