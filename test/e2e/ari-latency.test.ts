// originate → INVITE at the phone, timed against a real Asterisk: the one test of the ARI client that
// measures the CPU, so it runs alone (vitest.config.ts ALONE); the rest of the client's tests are in
// ari.test.ts, in parallel with the other files.
import { randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AriClient } from '../../src/pbx/ari.js';
import { connectTestAri, startTestAsterisk, type TestAsterisk } from '../helpers/asterisk.js';
import { freeUdpPort } from '../helpers/ports.js';

let pbx: TestAsterisk;
let ari: AriClient;

beforeAll(async () => {
  pbx = await startTestAsterisk();
  ari = await connectTestAri(pbx);
});

afterAll(async () => {
  await ari?.close();
  await pbx?.stop();
});

/** Resolves when Asterisk reports the channel gone. */
function destroyed(channelId: string): Promise<void> {
  return new Promise((resolve) => {
    const off = ari.onChannel(channelId, (e) => {
      if (e.type === 'ChannelDestroyed') {
        off();
        resolve();
      }
    });
  });
}

it('originate → INVITE at the phone: latency over 20 calls', async () => {
  // A bare UDP socket stands in for the phone's SIP port only to timestamp the INVITE.
  const socket = createSocket('udp4');
  const port = await freeUdpPort();
  const arrivals = new Map<string, number>();
  socket.on('message', (msg) => {
    const text = msg.toString('latin1');
    const m = /^INVITE sip:(t\d+)@/.exec(text);
    if (m && !arrivals.has(m[1]!)) arrivals.set(m[1]!, performance.now());
  });
  await new Promise<void>((r) => socket.bind(port, '127.0.0.1', () => r()));
  const latencies: number[] = [];
  for (let i = 0; i < 20; i++) {
    const id = `t${i}`;
    const channelId = `t-${randomUUID()}`;
    const gone = destroyed(channelId);
    const t0 = performance.now();
    await ari.originate({ channelId, endpoint: `PJSIP/trunk/sip:${id}@127.0.0.1:${port}`, timeoutSec: 5 });
    while (!arrivals.has(id)) await new Promise((r) => setTimeout(r, 1));
    latencies.push(arrivals.get(id)! - t0);
    await ari.hangup(channelId);
    await gone;
  }
  socket.close();
  latencies.sort((a, b) => a - b);
  const p50 = latencies[10]!;
  const max = latencies.at(-1)!;
  console.log(`originate → INVITE at phone: p50 ${p50.toFixed(1)} ms, max ${max.toFixed(1)} ms (20 calls)`);
  expect(max).toBeLessThan(100);
});
