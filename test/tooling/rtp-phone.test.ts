// The test phone's RTP (test/helpers/rtp-phone.ts) keeps real time while the test process's event
// loop is stalled: an in-process ringhook shares that loop, and a stall there was a pause in the
// phone's voice (keypad.test.ts under load: a greeting heard as a person, "no audio 2.15 s for
// 0.87 s"). One phone plays to another; the test blocks its own thread for 1 s in the middle.
import { expect, it } from 'vitest';
import { freeUdpPort } from '../helpers/ports.js';
import { startRtpPhone } from '../helpers/rtp-phone.js';

/** A loud µ-law byte (about -12 dBov): every packet of it counts as sound. */
const LOUD = 0x20;

it('a phone plays on while the test process is blocked for 1 s: no gap of 1 s at the other end (holds beside two busy loops on 2 cores)', async () => {
  const speaker = await startRtpPhone(await freeUdpPort());
  const listener = await startRtpPhone(await freeUdpPort());
  try {
    const samples = Buffer.alloc(8 * 3_000, LOUD); // 3 s
    const playing = speaker.play({ host: '127.0.0.1', port: listener.port }, samples);
    await new Promise((r) => setTimeout(r, 1_000));
    const blockedUntil = Date.now() + 1_000;
    while (Date.now() < blockedUntil) {
      // The test process's event loop does nothing else meanwhile, as under a long synchronous step.
    }
    await playing;
    const heard = listener.loudAt();
    const gaps = heard.slice(1).map((at, i) => at - heard[i]!);
    // 150 packets of 20 ms; a packet late by a scheduling delay, never by the 1 s block.
    expect(heard.length).toBeGreaterThan(140);
    expect(Math.max(...gaps)).toBeLessThan(500);
  } finally {
    await speaker.close();
    await listener.close();
  }
});

it('hush stops what is playing and drops what was still to come; a later play plays', async () => {
  const speaker = await startRtpPhone(await freeUdpPort());
  const listener = await startRtpPhone(await freeUdpPort());
  const to = { host: '127.0.0.1', port: listener.port };
  try {
    const started = Date.now();
    const first = speaker.play(to, Buffer.alloc(8 * 10_000, LOUD));
    const second = speaker.play(to, Buffer.alloc(8 * 10_000, LOUD));
    await new Promise((r) => setTimeout(r, 300));
    speaker.hush();
    await Promise.all([first, second]);
    expect(Date.now() - started).toBeLessThan(5_000);
    const before = listener.loudAt().length;
    await speaker.play(to, Buffer.alloc(8 * 400, LOUD));
    await new Promise((r) => setTimeout(r, 200));
    expect(listener.loudAt().length - before).toBeGreaterThan(10);
  } finally {
    await speaker.close();
    await listener.close();
  }
});
