// What a real phone sends from the moment it answers: a voice (a person's "Hello?", a voicemail's
// greeting and beep), then its microphone's low noise, and perhaps a digit (RFC 4733) pressed at a
// given moment; written as a pcap for SIPp's play_pcap_audio (scenario answer-talk).
import { type RtpFrame, rtpPcap } from './pcap.js';

const FRAME_MS = 20;
const FRAME_SAMPLES = 160;

/** µ-law of one 16-bit sample (G.711). */
function ulaw(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  const x = Math.min(32635, Math.abs(sample)) + 0x84;
  let exponent = 7;
  for (let mask = 0x4000; (x & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (x >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** A quiet room through a phone's microphone: noise of average level ~16 of 32768, far below talk (256). */
export function lowNoiseUlaw(ms: number): Buffer {
  const out = Buffer.alloc(ms * 8);
  for (let i = 0; i < out.length; i++)
    out[i] = ulaw(Math.round((Math.random() + Math.random() + Math.random() - 1.5) * 40));
  return out;
}

/**
 * `voice` (µ-law samples) from the answer, then low noise up to `totalMs`; `digit` pressed at
 * `digitAtMs` (100 ms, as a person's press), in place of the audio meanwhile.
 */
export function talkingPhonePcap({
  voice,
  totalMs,
  digit,
}: {
  voice: Buffer;
  totalMs: number;
  digit?: { key: string; atMs: number };
}): Buffer {
  const audio = Buffer.concat([voice, lowNoiseUlaw(Math.max(0, totalMs - voice.length / 8))]);
  const frames: RtpFrame[] = [];
  const event = digit ? '0123456789*#'.indexOf(digit.key) : -1;
  if (digit && event < 0) throw new Error(`not a digit: ${digit.key}`);
  for (let n = 0; n * FRAME_SAMPLES < audio.length; n++) {
    const atMs = n * FRAME_MS;
    const timestamp = n * FRAME_SAMPLES;
    if (digit && atMs >= digit.atMs && atMs < digit.atMs + 100) {
      const start = Math.floor(digit.atMs / FRAME_MS) * FRAME_SAMPLES;
      const duration = timestamp - start + FRAME_SAMPLES;
      const last = atMs + FRAME_MS >= digit.atMs + 100;
      const payload = Buffer.from([event, (last ? 0x80 : 0) | 10, duration >> 8, duration & 0xff]);
      frames.push({ atMs, payloadType: 101, marker: timestamp === start, timestamp: start, payload });
      // The end is said three times, as phones do (it may be lost).
      if (last)
        for (const extra of [1, 2]) frames.push({ atMs: atMs + extra, payloadType: 101, timestamp: start, payload });
      continue;
    }
    frames.push({
      atMs,
      payloadType: 0,
      marker: n === 0,
      timestamp,
      payload: audio.subarray(n * FRAME_SAMPLES, (n + 1) * FRAME_SAMPLES),
    });
  }
  return rtpPcap(frames);
}
