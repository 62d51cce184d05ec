// Heard, not just answered, with phones that speak: a voicemail that plays a recorded greeting and
// a beep, a person who says "Hello?", a phone that sends nothing. SIPp answers the call; the call's
// audio both ways is real RTP (test/helpers/rtp-phone): the greeting and the digit go to the
// managed Asterisk, and what Asterisk plays back is timed at the phone. Answering-machine detection
// (TALK_DETECT while the message plays) is on, as by default.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { type Answered, callAnswered as answeredCall, lastSpeechMadeBefore } from '../helpers/answered-call.js';
import { machineLoad } from '../helpers/machine-load.js';
import { startCallingService, type CallingService } from '../helpers/calling-service.js';
import { request } from '../helpers/https-client.js';
import { spokenUlaw, type RtpPhone } from '../helpers/rtp-phone.js';
import { stopAllSipp } from '../helpers/sipp.js';
import { waitFor } from '../helpers/wait.js';

const BEEP_MS = 400;
const METRICS_TOKEN = 'metrics-token-0123456789';
let calling: CallingService;
let dir: string;
let greeting: { samples: Buffer; speechMs: number };
let hello: { samples: Buffer; speechMs: number };

beforeAll(async () => {
  calling = await startCallingService({
    RINGHOOK_AMD: 'on',
    RINGHOOK_RING_TIMEOUT: '10',
    RINGHOOK_METRICS_TOKEN: METRICS_TOKEN,
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-voices-'));
  // A carrier voicemail's greeting (about 5 s), its beep, then the silence of the recording.
  greeting = spokenUlaw(
    dir,
    'greeting',
    "Hi, you've reached Alex. I can't take your call right now. Please leave a message after the tone.",
    {
      toneHz: 1000,
      toneMs: BEEP_MS,
      silenceMs: 15_000,
    },
  );
  hello = spokenUlaw(dir, 'hello', 'Hello?', { silenceMs: 3_000 });
}, 180_000);

afterAll(async () => {
  await calling?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await stopAllSipp();
  expect(calling.t.takeErrorLogs().map((line) => JSON.stringify(line))).toEqual([]);
});

/** An alert to an account; SIPp answers, and `speak` runs once the call is answered. */
const callAnswered = (requireConfirm: boolean, message: string, speak: (call: Answered) => Promise<unknown>) =>
  answeredCall(calling, requireConfirm, message, speak);

it('a voicemail: the intro starts on the answer, stops once the greeting is found to be a machine, and the whole message is left after the beep; the call ends voicemail with one SMS', async () => {
  let answeredAt = 0;
  let beepEndedAt = 0;
  const { row, rtp, sms, talk } = await callAnswered(
    true,
    'NVDA crossed 140',
    async ({ rtp, media, answeredAt: at }) => {
      answeredAt = at;
      beepEndedAt = Date.now() + greeting.speechMs + BEEP_MS;
      await rtp.play(media, greeting.samples);
    },
  );
  expect(row, talk).toMatchObject({ status: 'voicemail', amd_status: 'MACHINE' });
  expect(sms).toEqual(['Missed call alert: NVDA crossed 140']);
  const loud = rtp.loudAt();
  spokenAtOnce(loud[0]!, answeredAt, 'voicemail');
  // Stopped while the greeting went on: nothing from 4.5 s after the answer to the beep's end.
  expect(loud.filter((at) => at > answeredAt + 4_500 && at < beepEndedAt)).toEqual([]);
  // Then the intro and message, at length, from their start: as long as the first, cut, attempt would have been whole.
  const after = loud.filter((at) => at >= beepEndedAt);
  expect(after.length, `${loud.length} packets with sound`).toBeGreaterThan(100);
  expect(after[0]! - beepEndedAt).toBeGreaterThanOrEqual(1_000);
}, 120_000);

it('a phone that sends nothing (silence): not sure, the message spoken at once and whole; no 1: unconfirmed with one SMS', async () => {
  let answeredAt = 0;
  const quiet = Buffer.alloc(8 * 12_000, 0xff);
  const { row, rtp, sms, talk } = await callAnswered(true, 'GLD at 2400', async ({ rtp, media, answeredAt: at }) => {
    answeredAt = at;
    await rtp.play(media, quiet);
  });
  expect(row, talk).toMatchObject({ status: 'unconfirmed', amd_status: 'NOTSURE' });
  expect(sms).toEqual(['Missed call alert: GLD at 2400']);
  const loud = rtp.loudAt();
  spokenAtOnce(loud[0]!, answeredAt, 'silence');
  expect(loud.length).toBeGreaterThan(100);
}, 120_000);

it("a phone that says nothing but returns ringhook's own speech as a line's echo, 40 dB down: the echo is not the phone talking (not sure); the message whole, unconfirmed with one SMS (30 dB down, its loudest frames were talk)", async () => {
  const { row, rtp, talk } = await callAnswered(true, 'SPX under 5000', async ({ rtp, media }) => {
    rtp.echo(media, 40);
    await new Promise((r) => setTimeout(r, 12_000));
  });
  expect(row, talk).toMatchObject({ status: 'unconfirmed', amd_status: 'NOTSURE' });
  expect(rtp.loudAt().length).toBeGreaterThan(100);
}, 120_000);

it('the same echo 6 dB down (a line with no echo canceller): taken for a machine, as the README says; the message restarts once the echo dies down, heard whole, and the call ends voicemail with its SMS', async () => {
  const { row, sms, talk } = await callAnswered(true, 'SPX under 4900', async ({ rtp, media }) => {
    rtp.echo(media, 6);
    await new Promise((r) => setTimeout(r, 20_000));
  });
  expect(row, talk).toMatchObject({ status: 'voicemail', amd_status: 'MACHINE' });
  expect(sms).toEqual(['Missed call alert: SPX under 4900']);
}, 120_000);

it('a person who says "Hello?": never taken for a machine; with confirmation required and no 1, unconfirmed with one SMS', async () => {
  let answeredAt = 0;
  const { row, rtp, sms, talk } = await callAnswered(true, 'ES1! above 6000', ({ rtp, media, answeredAt: at }) => {
    answeredAt = at;
    return rtp.play(media, hello.samples);
  });
  expect(row, talk).toMatchObject({ status: 'unconfirmed', amd_status: 'HUMAN' });
  spokenAtOnce(loud0(rtp), answeredAt, 'a person');
  expect(sms).toEqual(['Missed call alert: ES1! above 6000']);
  // The message was spoken to the person.
  expect(rtp.loudAt().length).toBeGreaterThan(100);
}, 120_000);

it('a person, confirmation not required: the message played, the call ends completed, no SMS', async () => {
  const { row, sms, talk } = await callAnswered(false, 'BTC above 100k', ({ rtp, media }) =>
    rtp.play(media, hello.samples),
  );
  expect(row, talk).toMatchObject({ status: 'completed', amd_status: 'HUMAN' });
  expect(sms).toEqual([]);
});

it('a person who presses 1 while the message plays: acknowledged, and the spoken confirmation reaches the phone after the digit', async () => {
  let digitAt = 0;
  const { row, rtp, sms } = await callAnswered(true, 'AAPL broke 200', async ({ rtp, media }) => {
    await rtp.play(media, hello.samples.subarray(0, 8 * (hello.speechMs + 1_000)));
    // The message has begun: sound arrives at the phone.
    await waitFor('the message at the phone', () => (rtp.loudAt().length > 25 ? true : undefined), 15_000, 20);
    digitAt = Date.now();
    await rtp.digit(media, '1');
  });
  expect(row.status).toBe('acknowledged');
  expect(row.amd_status).toBe('HUMAN');
  expect(sms).toEqual([]);
  const afterDigit = rtp.loudAt().filter((at) => at > digitAt + 300);
  // "Confirmed. Goodbye." is about a second of speech, starting ~0.1 s after the digit (its leading
  // silence is cut): at least 0.3 s of it falls after the first 0.3 s.
  expect(afterDigit.length).toBeGreaterThan(15);
  const events = calling.progress.timeline(row.call_id as string).map((e) => e.event);
  expect(events.indexOf('digit')).toBeGreaterThan(-1);
}, 120_000);

/**
 * Spoken at once: the first sound within 1 s of the answer or of the last speech made, whichever came
 * later, at any load; 1.5 s from the answer when the machine is quiet. How soon speech is made while
 * the phone rings is the machine's speed beside its load (#53: 2,612 ms from the answer beside two
 * busy loops; docs/development.md, flaky tests).
 */
function spokenAtOnce(first: number, answeredAt: number, what: string): void {
  const madeAt = lastSpeechMadeBefore(calling, first);
  const machine = machineLoad();
  console.log(
    `${what}: first sound ${first - answeredAt} ms after the answer, ${first - Math.max(answeredAt, madeAt)} ms after it or the last speech made; ${machine.said}`,
  );
  expect(first - Math.max(answeredAt, madeAt)).toBeLessThan(1_000);
  if (machine.quiet) expect(first - answeredAt).toBeLessThan(1_500);
}

/** When the first packet with sound reached the phone. */
function loud0(rtp: RtpPhone): number {
  const [first] = rtp.loudAt();
  if (first === undefined) throw new Error('no sound reached the phone');
  return first;
}

it('/metrics: every answered call above is in the histogram of answer → first speech', async () => {
  const res = await request(`${calling.t.baseUrl}/metrics`, {
    method: 'GET',
    ca: calling.t.ca,
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  expect(res.status).toBe(200);
  expect(res.text).toContain('ringhook_answer_to_first_speech_seconds_count 7');
  expect(res.text).toContain('ringhook_answer_to_first_speech_seconds_bucket{le="+Inf"} 7');
});
