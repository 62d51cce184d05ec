// Answering-machine detection with phones that stop sending audio while their user is silent
// (silence suppression: VAD/DTX, RFC 3389 comfort noise), as many phones and gateways do. SIPp
// answers the call; the call's audio both ways is real RTP (test/helpers/rtp-phone) to and from
// the managed Asterisk. A person says "Hello?" (espeak-ng, ~0.7 s) and then the phone sends no
// more audio, or only comfort noise, or silent audio (the case of a phone without suppression);
// a voicemail sends its greeting's sentences with no audio between them, and nothing after its
// beep. The gap in the phone's audio is silence: a person stays a person, a voicemail's greeting
// ends with its beep.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callAnswered, lastSpeechMadeBefore } from '../helpers/answered-call.js';
import { type CallingService, useCallingService } from '../helpers/calling-service.js';
import { machineLoad } from '../helpers/machine-load.js';
import { spokenUlaw, type RtpPhone } from '../helpers/rtp-phone.js';

const BEEP_MS = 400;
/** A phone's voice activity detection lets this much of the pause between sentences through as audio. */
const PAUSE_MS = 500;
const service = useCallingService({ RINGHOOK_AMD: 'on', RINGHOOK_RING_TIMEOUT: '10' });
let calling: CallingService;
let dir: string;
let hello: { samples: Buffer; speechMs: number };
let sentences: Array<{ samples: Buffer; speechMs: number }>;
let beep: Buffer;
/** Answer → first sound at the phone, for each person's call (ms), and what was heard. */
const firstWord: number[] = [];
const heard: string[] = [];

beforeAll(() => {
  calling = service.get();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-quiet-'));
  hello = spokenUlaw(dir, 'hello', 'Hello?', { engine: 'espeak-ng' });
  sentences = [
    "Hi, you've reached Alex.",
    "I can't take your call right now.",
    'Please leave a message after the tone.',
  ].map((text, n) => spokenUlaw(dir, `greeting-${n}`, text));
  const tone = spokenUlaw(dir, 'beep', '.', { toneHz: 1000, toneMs: BEEP_MS });
  beep = tone.samples.subarray(tone.samples.length - 8 * BEEP_MS);
}, 60_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  if (firstWord.length) console.log(`answer → first word at the phone, people: ${firstWord.join(', ')} ms`);
  for (const talk of heard) console.log(talk);
});

/** When the first packet with sound reached the phone, after the answer. */
function firstWordMs(rtp: RtpPhone, answeredAt: number): number {
  const [first] = rtp.loudAt();
  if (first === undefined) throw new Error('no sound reached the phone');
  return first - answeredAt;
}

it('(a) a person says "Hello?" and the phone then sends no RTP at all: a person (HUMAN), the message whole; no 1: unconfirmed with one SMS', async () => {
  let answeredAt = 0;
  const { row, rtp, sms, talk } = await callAnswered(calling, true, 'ES1! above 6000', async (call) => {
    answeredAt = call.answeredAt;
    await call.rtp.play(call.media, hello.samples);
  });
  heard.push(`${row.amd_cause}: ${talk}`);
  expect(row, `${row.amd_cause}: ${talk}`).toMatchObject({ status: 'unconfirmed', amd_status: 'HUMAN' });
  expect(row.amd_cause, talk).toMatch(/^HUMAN-1-/);
  expect(sms).toEqual(['Missed call alert: ES1! above 6000']);
  firstWord.push(firstWordMs(rtp, answeredAt));
  // The first call of the service makes all its speech (intro, keys, message, prompt: none is cached
  // yet) while the phone rings, and this phone answers at once: how soon the speech is made is the
  // machine's speed (flite beside the load). What ringhook adds is checked at any load: the first
  // word within 1 s of the answer or of its last speech made, whichever came later. The 1.5 s from
  // the answer holds on a machine not overloaded (docs/development.md, flaky tests: 5,082 ms beside
  // two busy loops and five test files).
  const first = rtp.loudAt()[0]!;
  const madeAt = lastSpeechMadeBefore(calling, first);
  const machine = machineLoad();
  console.log(
    `(a) first word ${first - answeredAt} ms after the answer, ${first - Math.max(answeredAt, madeAt)} ms after the answer or the last speech made (${madeAt ? `${madeAt - answeredAt} ms from the answer` : 'none logged'}); ${machine.said}`,
  );
  expect(first - Math.max(answeredAt, madeAt)).toBeLessThan(1_000);
  if (machine.quiet) expect(firstWord.at(-1)).toBeLessThan(1_500);
  expect(rtp.loudAt().length).toBeGreaterThan(100);
}, 120_000);

it('(b) a person says "Hello?", then the phone sends RFC 3389 comfort noise (every 20 ms: the densest) and presses 1 once the message is heard: a person, acknowledged, no SMS', async () => {
  let answeredAt = 0;
  const { row, rtp, sms, talk } = await callAnswered(
    calling,
    true,
    'AAPL broke 200',
    async (call) => {
      answeredAt = call.answeredAt;
      await call.rtp.play(call.media, hello.samples);
      await call.rtp.quiet(call.media, 6_000, 20);
      await call.rtp.digit(call.media, '1');
      await call.rtp.quiet(call.media, 10_000, 20);
    },
    'answer-cn',
  );
  heard.push(`${row.amd_cause}: ${talk}`);
  expect(row, `${row.amd_cause}: ${talk}`).toMatchObject({ status: 'acknowledged', amd_status: 'HUMAN' });
  expect(row.amd_cause, talk).toMatch(/^HUMAN-1-/);
  expect(sms).toEqual([]);
  firstWord.push(firstWordMs(rtp, answeredAt));
}, 120_000);

it('(c) a person says "Hello?", then the phone keeps sending silent RTP (no suppression): a person; confirmation not required: completed, no SMS', async () => {
  let answeredAt = 0;
  const { row, rtp, sms, talk } = await callAnswered(calling, false, 'BTC above 100k', async (call) => {
    answeredAt = call.answeredAt;
    await call.rtp.play(call.media, Buffer.concat([hello.samples, Buffer.alloc(8 * 15_000, 0xff)]));
  });
  heard.push(`${row.amd_cause}: ${talk}`);
  expect(row, `${row.amd_cause}: ${talk}`).toMatchObject({ status: 'completed', amd_status: 'HUMAN' });
  expect(row.amd_cause, talk).toMatch(/^HUMAN-1-/);
  expect(sms).toEqual([]);
  firstWord.push(firstWordMs(rtp, answeredAt));
}, 120_000);

it('(d) a voicemail whose greeting has no RTP between its sentences and none after its beep: a machine; the whole message is left once the beep ends (not 20 s later); voicemail with one SMS', async () => {
  let beepEndedAt = 0;
  const greeting = () =>
    callAnswered(calling, true, 'NVDA crossed 140', async ({ rtp, media }) => {
      // The whole greeting queued at once: the phone's thread plays it back to back, so that a stall of
      // this process between two sentences is no longer pause in it (#53: a 3.9 s gap, ringhook took it
      // for the greeting's end), and the beep's end is the phone's own time.
      for (const sentence of sentences) {
        void rtp.play(media, sentence.samples);
        void rtp.quiet(media, PAUSE_MS);
      }
      beepEndedAt = await rtp.play(media, beep);
    });
  let answered = await greeting();
  // A loaded machine may stall the test phone itself (a worker thread waiting for a core): its greeting
  // then has a pause of a second or more that no voicemail has, and ringhook rightly hears it as a
  // person's "Hello?" and silence (#53: once at a load average of 10), or as the greeting's end and
  // leaves its message into the rest of it (nothing after the beep: once at a load average of ~19).
  // Such a call is not the one this test means: it is made again, twice at most, and said; a phone
  // that did not stall must be heard as a machine, the message after its beep.
  const asMeant = ({ row, rtp }: typeof answered) => {
    const after = rtp.loudAt().filter((at) => at >= beepEndedAt);
    return row.amd_status === 'MACHINE' && after.length > 100 && after[0]! - beepEndedAt >= 1_000;
  };
  for (let again = 0; again < 2 && !asMeant(answered) && answered.rtp.lateMs() > 250; again++) {
    console.log(
      `(d) the test phone stalled ${Math.round(answered.rtp.lateMs())} ms (${machineLoad().said}), heard ${answered.row.amd_cause}: ${answered.talk}; called again`,
    );
    answered = await greeting();
  }
  const { row, rtp, sms, talk } = answered;
  heard.push(`${row.amd_cause}: ${talk}`);
  expect(row, `${row.amd_cause}: ${talk}`).toMatchObject({ status: 'voicemail', amd_status: 'MACHINE' });
  expect(sms).toEqual(['Missed call alert: NVDA crossed 140']);
  const loud = rtp.loudAt();
  // Stopped while the greeting went on, then spoken whole from 1.5 s after the beep (margin for a loaded machine).
  const after = loud.filter((at) => at >= beepEndedAt);
  const timeline = calling.progress
    .timeline(row.call_id as string)
    .map((e) => `${e.event} ${e.detail ?? ''}`)
    .concat(`the test phone's longest stall ${Math.round(rtp.lateMs())} ms (${machineLoad().said})`)
    .join('\n');
  expect(after.length, `${loud.length} packets with sound`).toBeGreaterThan(100);
  expect(after[0]! - beepEndedAt, timeline).toBeGreaterThanOrEqual(1_000);
  expect(after[0]! - beepEndedAt, timeline).toBeLessThan(4_000);
}, 120_000);
