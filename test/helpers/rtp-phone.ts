// The media side of a test phone (SIPp does the SIP): a UDP socket that the phone's SDP names,
// sending recorded audio and RFC 4733 digits to Asterisk as G.711 µ-law RTP, and keeping when each
// received packet carried sound. Asterisk answers symmetric RTP to where this socket sends from,
// so what it sends back arrives here too.
import { spawnSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import fs from 'node:fs';
import path from 'node:path';

const FRAME_BYTES = 160; // 20 ms at 8 kHz
const FRAME_MS = 20;

/** Where Asterisk sends and receives the call's audio, from the SDP of its INVITE in SIPp's log. */
export function asteriskMedia(sippLog: string): { host: string; port: number } | undefined {
  const host = /^c=IN IP4 ([0-9.]+)/m.exec(sippLog)?.[1];
  const port = /^m=audio (\d+) /m.exec(sippLog)?.[1];
  return host && port ? { host, port: Number(port) } : undefined;
}

/**
 * Speech made with flite (or espeak-ng), as 8 kHz µ-law samples (no header). `then` adds a tone
 * (Hz, ms) and silence (ms) after it.
 */
export function spokenUlaw(
  dir: string,
  name: string,
  text: string,
  then: { toneHz?: number; toneMs?: number; silenceMs?: number; engine?: 'flite' | 'espeak-ng' } = {},
): { samples: Buffer; speechMs: number } {
  const run = (cmd: string, args: string[]) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr || r.error}`);
  };
  const speech = path.join(dir, `${name}-speech.wav`);
  if (then.engine === 'espeak-ng') run('espeak-ng', ['-w', speech, text]);
  else run('flite', ['-voice', 'slt', '-t', text, '-o', speech]);
  const parts = [path.join(dir, `${name}-speech8k.wav`)];
  run('sox', [speech, '-r', '8000', '-c', '1', '-b', '16', parts[0]!]);
  if (then.toneHz && then.toneMs) {
    parts.push(path.join(dir, `${name}-tone.wav`));
    run('sox', [
      '-n',
      '-r',
      '8000',
      '-c',
      '1',
      '-b',
      '16',
      parts.at(-1)!,
      'synth',
      String(then.toneMs / 1000),
      'sine',
      String(then.toneHz),
      'vol',
      '0.5',
    ]);
  }
  if (then.silenceMs) {
    parts.push(path.join(dir, `${name}-silence.wav`));
    run('sox', ['-n', '-r', '8000', '-c', '1', '-b', '16', parts.at(-1)!, 'trim', '0', String(then.silenceMs / 1000)]);
  }
  const out = path.join(dir, `${name}.ul`);
  run('sox', [...parts, '-t', 'raw', '-e', 'mu-law', '-r', '8000', '-c', '1', out]);
  const speechMs = Math.round((fs.statSync(parts[0]!).size - 44) / 16);
  return { samples: fs.readFileSync(out), speechMs };
}

export interface RtpPhone {
  port: number;
  /** Sends the samples in real time (20 ms a packet) to `to`; resolves when the last is sent. */
  play(to: { host: string; port: number }, samples: Buffer): Promise<void>;
  /**
   * `ms` of a phone's silence suppression (VAD/DTX): no audio packets, the RTP clock running on (the
   * next audio packet carries the marker bit); with `comfortNoiseEveryMs`, an RFC 3389 comfort noise
   * packet (payload type 13, a noise level of -70 dBov) at once and then at that interval.
   */
  quiet(to: { host: string; port: number }, ms: number, comfortNoiseEveryMs?: number): Promise<void>;
  /** Sends one RFC 4733 digit (payload type 101) to `to`. */
  digit(to: { host: string; port: number }, digit: string): Promise<void>;
  /** When each received audio packet with sound arrived (ms since the epoch). */
  loudAt(): number[];
  /** Stops a play() in progress (the call ended). */
  hush(): void;
  /**
   * From now on, sends every audio packet received back to `to`, `downDb` quieter: a line's echo of
   * the caller's own voice (a mobile phone must return it 46 dB down or more, 3GPP TS 26.131; a line with
   * no echo control, ~6).
   */
  echo(to: { host: string; port: number }, downDb: number): void;
  close(): Promise<void>;
}

export function startRtpPhone(port: number): Promise<RtpPhone> {
  const socket: Socket = createSocket('udp4');
  const loud: number[] = [];
  let seq = 1;
  let timestamp = 0;
  const ssrc = 0x52494e47;
  let hushed = false;
  let echo: { to: { host: string; port: number }; gain: number } | undefined;
  socket.on('message', (msg) => {
    if (msg.length < 12 || msg[0]! >> 6 !== 2) return;
    const pt = msg[1]! & 0x7f;
    if (pt !== 0) return;
    const payload = msg.subarray(12 + (msg[0]! & 0x0f) * 4);
    let sound = 0;
    for (const b of payload) if ((b & 0x7f) < 0x60) sound++;
    if (sound > payload.length / 10) loud.push(Date.now());
    if (echo) {
      const gain = echo.gain;
      void send(echo.to, packet(0, false, Buffer.from(payload.map((b) => linearToUlaw(ulawToLinear(b) * gain)))));
      timestamp += payload.length;
    }
  });
  const packet = (pt: number, marker: boolean, payload: Buffer) => {
    const header = Buffer.alloc(12);
    header[0] = 0x80;
    header[1] = (marker ? 0x80 : 0) | pt;
    header.writeUInt16BE(seq++ & 0xffff, 2);
    header.writeUInt32BE(timestamp >>> 0, 4);
    header.writeUInt32BE(ssrc, 8);
    return Buffer.concat([header, payload]);
  };
  const send = (to: { host: string; port: number }, data: Buffer) =>
    new Promise<void>((resolve) => socket.send(data, to.port, to.host, () => resolve()));
  const tick = () => new Promise((r) => setTimeout(r, FRAME_MS));
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, '127.0.0.1', () =>
      resolve({
        port,
        async play(to, samples) {
          const started = Date.now();
          hushed = false;
          for (let at = 0, n = 0; at < samples.length && !hushed; at += FRAME_BYTES, n++) {
            await send(to, packet(0, n === 0, samples.subarray(at, at + FRAME_BYTES)));
            timestamp += FRAME_BYTES;
            // Paced against the clock, not the timer: the stream keeps real time.
            const ahead = started + (n + 1) * FRAME_MS - Date.now();
            if (ahead > 0) await new Promise((r) => setTimeout(r, ahead));
          }
        },
        async quiet(to, ms, comfortNoiseEveryMs) {
          const started = Date.now();
          const startTimestamp = timestamp;
          hushed = false;
          for (let at = 0; at < ms && !hushed; at += comfortNoiseEveryMs ?? ms) {
            const ahead = started + at - Date.now();
            if (ahead > 0) await new Promise((r) => setTimeout(r, ahead));
            timestamp = startTimestamp + at * 8;
            if (comfortNoiseEveryMs !== undefined) await send(to, packet(13, false, Buffer.from([70])));
          }
          const rest = started + ms - Date.now();
          if (rest > 0 && !hushed) await new Promise((r) => setTimeout(r, rest));
          timestamp = startTimestamp + ms * 8;
        },
        async digit(to, digit) {
          const event = '0123456789*#'.indexOf(digit);
          if (event < 0) throw new Error(`not a digit: ${digit}`);
          const payload = (end: boolean, duration: number) =>
            Buffer.from([event, (end ? 0x80 : 0) | 10, duration >> 8, duration & 0xff]);
          for (let i = 1; i <= 5; i++) {
            await send(to, packet(101, i === 1, payload(false, i * FRAME_BYTES)));
            await tick();
          }
          for (let i = 0; i < 3; i++) await send(to, packet(101, false, payload(true, 6 * FRAME_BYTES)));
          timestamp += 6 * FRAME_BYTES;
        },
        loudAt: () => [...loud],
        hush: () => {
          hushed = true;
          echo = undefined;
        },
        echo: (to, downDb) => {
          echo = { to, gain: 10 ** (-downDb / 20) };
        },
        close: () => new Promise((r) => socket.close(() => r())),
      }),
    );
  });
}

/** G.711 µ-law to a 16-bit sample. */
function ulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 0x07)) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

/** A 16-bit sample to G.711 µ-law. */
function linearToUlaw(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  const x = Math.min(32635, Math.round(Math.abs(sample))) + 0x84;
  let exponent = 7;
  for (let mask = 0x4000; (x & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  return ~(sign | (exponent << 4) | ((x >> (exponent + 3)) & 0x0f)) & 0xff;
}
