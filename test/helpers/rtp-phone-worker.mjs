// The test phone's media (test/helpers/rtp-phone.ts) in a worker thread of its own: its RTP is
// paced by this thread's event loop, not by the test process's, where an in-process ringhook runs
// (a stall there, its SQLite writes or a collection, was a pause in the phone's voice: a greeting
// heard as a person, "no audio 2.15 s for 0.87 s", keypad.test.ts under load). Commands (play,
// quiet, digit) run one after the other in the order sent, back to back however late the test reads their answers; each answers `done` with its id and when it
// finished. When
// each received packet carried sound is written to shared memory, read by the test at any time.
import { createSocket } from 'node:dgram';
import { parentPort, workerData } from 'node:worker_threads';

const FRAME_BYTES = 160; // 20 ms at 8 kHz
const FRAME_MS = 20;
const SSRC = 0x52494e47;

const { port, loud, late } = workerData;
/** late[0]: the most a packet was sent after its time, or a pause ended after its end (ms): the phone's own stalls. */
const lateMs = new Float64Array(late);
const noteLate = (ms) => {
  if (ms > lateMs[0]) lateMs[0] = ms;
};
/** loud[0]: how many times are kept; loud[1…]: the times (ms since the epoch). */
const loudTimes = new Float64Array(loud);
const loudCount = new Int32Array(loud, 0, 1);

const socket = createSocket('udp4');
let seq = 1;
let timestamp = 0;
/** Hushes so far: a command stops once a hush came after it was sent. */
let hushes = 0;
let echo;
/** Commands not yet run, and whether one is running. */
const queue = [];
let running = false;

socket.on('message', (msg) => {
  if (msg.length < 12 || msg[0] >> 6 !== 2) return;
  const pt = msg[1] & 0x7f;
  if (pt !== 0) return;
  const payload = msg.subarray(12 + (msg[0] & 0x0f) * 4);
  let sound = 0;
  for (const b of payload) if ((b & 0x7f) < 0x60) sound++;
  if (sound > payload.length / 10) {
    const n = Atomics.load(loudCount, 0);
    // Slot 0 holds the count (as the Int32 view's first 4 bytes): the times start at slot 1.
    if (n + 1 < loudTimes.length) {
      loudTimes[n + 1] = Date.now();
      Atomics.store(loudCount, 0, n + 1);
    }
  }
  if (echo) {
    const gain = echo.gain;
    void send(echo.to, packet(0, false, Buffer.from(payload.map((b) => linearToUlaw(ulawToLinear(b) * gain)))));
    timestamp += payload.length;
  }
});

function packet(pt, marker, payload) {
  const header = Buffer.alloc(12);
  header[0] = 0x80;
  header[1] = (marker ? 0x80 : 0) | pt;
  header.writeUInt16BE(seq++ & 0xffff, 2);
  header.writeUInt32BE(timestamp >>> 0, 4);
  header.writeUInt32BE(SSRC, 8);
  return Buffer.concat([header, payload]);
}

const send = (to, data) => new Promise((resolve) => socket.send(data, to.port, to.host, () => resolve()));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function play(to, samples, hushed) {
  const started = Date.now();
  for (let at = 0, n = 0; at < samples.length && !hushed(); at += FRAME_BYTES, n++) {
    noteLate(Date.now() - (started + n * FRAME_MS));
    await send(to, packet(0, n === 0, samples.subarray(at, at + FRAME_BYTES)));
    timestamp += FRAME_BYTES;
    // Paced against the clock, not the timer: the stream keeps real time.
    const ahead = started + (n + 1) * FRAME_MS - Date.now();
    if (ahead > 0) await sleep(ahead);
  }
}

async function quiet(to, ms, comfortNoiseEveryMs, hushed) {
  const started = Date.now();
  const startTimestamp = timestamp;
  for (let at = 0; at < ms && !hushed(); at += comfortNoiseEveryMs ?? ms) {
    const ahead = started + at - Date.now();
    if (ahead > 0) await sleep(ahead);
    timestamp = startTimestamp + at * 8;
    if (comfortNoiseEveryMs !== undefined) await send(to, packet(13, false, Buffer.from([70])));
  }
  const rest = started + ms - Date.now();
  if (rest > 0 && !hushed()) await sleep(rest);
  if (!hushed()) noteLate(Date.now() - (started + ms));
  timestamp = startTimestamp + ms * 8;
}

async function digit(to, event) {
  const payload = (end, duration) => Buffer.from([event, (end ? 0x80 : 0) | 10, duration >> 8, duration & 0xff]);
  for (let i = 1; i <= 5; i++) {
    await send(to, packet(101, i === 1, payload(false, i * FRAME_BYTES)));
    await sleep(FRAME_MS);
  }
  for (let i = 0; i < 3; i++) await send(to, packet(101, false, payload(true, 6 * FRAME_BYTES)));
  timestamp += 6 * FRAME_BYTES;
}

async function runQueue() {
  if (running) return;
  running = true;
  while (queue.length > 0) {
    const command = queue.shift();
    const hushed = () => hushes !== command.hushes;
    if (command.kind === 'play') await play(command.to, Buffer.from(command.samples), hushed);
    else if (command.kind === 'quiet') await quiet(command.to, command.ms, command.comfortNoiseEveryMs, hushed);
    else if (command.kind === 'digit') await digit(command.to, command.event);
    parentPort.postMessage({ done: command.id, at: Date.now() });
  }
  running = false;
}

parentPort.on('message', (command) => {
  if (command.kind === 'hush') {
    // The call ended: what is playing stops, what was still to come is dropped (each answered done).
    hushes++;
    echo = undefined;
    for (const dropped of queue.splice(0)) parentPort.postMessage({ done: dropped.id, at: Date.now() });
    return;
  }
  if (command.kind === 'echo') {
    echo = { to: command.to, gain: 10 ** (-command.downDb / 20) };
    return;
  }
  if (command.kind === 'close') {
    hushes++;
    socket.close(() => process.exit(0));
    return;
  }
  // A hush stops only what was sent before it.
  queue.push({ ...command, hushes });
  void runQueue();
});

socket.once('error', (error) => parentPort.postMessage({ error: error.message }));
socket.bind(port, '127.0.0.1', () => parentPort.postMessage({ bound: port }));

/** G.711 µ-law to a 16-bit sample. */
function ulawToLinear(byte) {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 0x07)) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

/** A 16-bit sample to G.711 µ-law. */
function linearToUlaw(sample) {
  const sign = sample < 0 ? 0x80 : 0;
  const x = Math.min(32635, Math.round(Math.abs(sample))) + 0x84;
  let exponent = 7;
  for (let mask = 0x4000; (x & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  return ~(sign | (exponent << 4) | ((x >> (exponent + 3)) & 0x0f)) & 0xff;
}
