// The media side of a test phone (SIPp does the SIP): a UDP socket that the phone's SDP names,
// sending recorded audio and RFC 4733 digits to Asterisk as G.711 µ-law RTP, and keeping when each
// received packet carried sound. Asterisk answers symmetric RTP to where this socket sends from,
// so what it sends back arrives here too.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { waitFor } from './wait.js';

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
  /**
   * Sends the samples in real time (20 ms a packet) to `to`; resolves when the last is sent, with when
   * that was (ms since the epoch, the phone's own clock reading, not when this process heard of it).
   * Commands called without awaiting the one before run back to back: a stall of this process puts no
   * pause between them.
   */
  play(to: { host: string; port: number }, samples: Buffer): Promise<number>;
  /**
   * `ms` of a phone's silence suppression (VAD/DTX): no audio packets, the RTP clock running on (the
   * next audio packet carries the marker bit); with `comfortNoiseEveryMs`, an RFC 3389 comfort noise
   * packet (payload type 13, a noise level of -70 dBov) at once and then at that interval.
   */
  quiet(to: { host: string; port: number }, ms: number, comfortNoiseEveryMs?: number): Promise<number>;
  /** Sends one RFC 4733 digit (payload type 101) to `to`. */
  digit(to: { host: string; port: number }, digit: string): Promise<number>;
  /** When each received audio packet with sound arrived (ms since the epoch). */
  loudAt(): number[];
  /**
   * The most any packet was sent after its time, or a pause ended after its end (ms): the phone's own
   * stall on a loaded machine, which puts a pause into what it says that the test did not mean.
   */
  lateMs(): number;
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

/** How many loud packets a phone keeps the times of: 20 minutes of a call's audio at 50 a second. */
const LOUD_KEPT = 60_000;

/**
 * The phone's socket and its pacing run in a worker thread (rtp-phone-worker.mjs): a stall of this
 * process's event loop (an in-process ringhook's) is no pause in what the phone says. play, quiet
 * and digit run there in the order called; each resolves once done.
 */
export function startRtpPhone(port: number): Promise<RtpPhone> {
  // Slot 0's first 4 bytes: how many times follow (slots 1…).
  const loud = new SharedArrayBuffer(8 * (LOUD_KEPT + 1));
  const loudTimes = new Float64Array(loud);
  const loudCount = new Int32Array(loud, 0, 1);
  const late = new SharedArrayBuffer(8);
  const worker = new Worker(new URL('./rtp-phone-worker.mjs', import.meta.url), { workerData: { port, loud, late } });
  const pending = new Map<number, (at: number) => void>();
  let nextId = 1;
  const command = (message: Record<string, unknown>) =>
    new Promise<number>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      worker.postMessage({ ...message, id });
    });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message: { bound?: number; error?: string; done?: number; at?: number }) => {
      if (message.error !== undefined) reject(new Error(`RTP phone on port ${port}: ${message.error}`));
      if (message.done !== undefined) {
        pending.get(message.done)?.(message.at ?? Date.now());
        pending.delete(message.done);
      }
      if (message.bound === undefined) return;
      resolve({
        port,
        play: (to, samples) => command({ kind: 'play', to, samples }),
        quiet: (to, ms, comfortNoiseEveryMs) => command({ kind: 'quiet', to, ms, comfortNoiseEveryMs }),
        digit: (to, digit) => {
          const event = '0123456789*#'.indexOf(digit);
          if (event < 0) return Promise.reject(new Error(`not a digit: ${digit}`));
          return command({ kind: 'digit', to, event });
        },
        loudAt: () => Array.from(loudTimes.subarray(1, Atomics.load(loudCount, 0) + 1)),
        lateMs: () => new Float64Array(late)[0]!,
        hush: () => worker.postMessage({ kind: 'hush' }),
        echo: (to, downDb) => worker.postMessage({ kind: 'echo', to, downDb }),
        close: async () => {
          worker.postMessage({ kind: 'close' });
          await exited;
          for (const done of pending.values()) done(Date.now());
          pending.clear();
        },
      });
    });
  });
}

/** A phrase heard at the phone: its first and last packet with sound. */
export interface SoundRun {
  start: number;
  end: number;
}

/** The speech heard from `from` on: its first and last packet with sound, up to a pause of `quietMs`. */
export function soundRun(rtp: RtpPhone, from: number, quietMs: number): SoundRun | undefined {
  const after = rtp.loudAt().filter((at) => at >= from);
  if (after.length === 0) return undefined;
  let end = after[0]!;
  for (const at of after.slice(1)) {
    if (at - end > quietMs) break;
    end = at;
  }
  return { start: after[0]!, end };
}

/** Waits until the speech heard from `from` on has ended (`quietMs` and a margin of quiet). */
export const playbackEnded = (rtp: RtpPhone, from: number, quietMs: number, timeoutMs: number): Promise<SoundRun> =>
  waitFor(
    'the playback to end at the phone',
    () => {
      const run = soundRun(rtp, from, quietMs);
      return run && Date.now() - run.end > quietMs + 300 ? run : undefined;
    },
    timeoutMs,
    50,
  );
