// The keypad during a call, against the managed Asterisk and SIPp phones whose audio is real RTP
// (test/helpers/rtp-phone): the digits go to Asterisk as RFC 4733 events, and what Asterisk plays
// back is timed at the phone. A repeat is measured in that audio: after a 2 the phone hears a run
// of speech as long as the message and the prompt (the message from its start), where the first
// playback's rest would be seconds shorter. Answering-machine detection is on, as by default.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import { type Answered, callAnswered as answeredCall } from '../helpers/answered-call.js';
import { type CallingService, useCallingService } from '../helpers/calling-service.js';
import { playbackEnded, type RtpPhone, spokenUlaw } from '../helpers/rtp-phone.js';
import { sqliteDb } from '../helpers/service.js';
import { stopAllSipp } from '../helpers/sipp.js';

/** A pause longer than any within or between the call's phrases: the playback has ended. */
const QUIET_MS = 900;
const MESSAGE =
  'Gold broke out above its resistance on the daily chart. Check your position and move the stop below the breakout level now.';
const english = LANGUAGES.en.prompts;
const service = useCallingService({ RINGHOOK_AMD: 'on', RINGHOOK_RING_TIMEOUT: '10' });
let calling: CallingService;
let dir: string;
/** How long each phrase lasts in the server's voice (flite slt, as the test makes it). */
const ms = { intro: 0, keys: 0, message: 0, prompt: 0 };
let greeting: { samples: Buffer; speechMs: number };
const figures: string[] = [];

beforeAll(() => {
  calling = service.get();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-keypad-'));
  ms.intro = spokenUlaw(dir, 'intro', english.intro).speechMs;
  ms.keys = spokenUlaw(dir, 'keys', english.keys).speechMs;
  ms.message = spokenUlaw(dir, 'message', MESSAGE).speechMs;
  ms.prompt = spokenUlaw(dir, 'prompt', english.prompt).speechMs;
  greeting = spokenUlaw(
    dir,
    'greeting',
    "Hi, you've reached Alex. I can't take your call right now. Please leave a message after the tone.",
    { toneHz: 1000, toneMs: 400, silenceMs: 15_000 },
  );
}, 60_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  console.log(`phrases (flite slt): ${JSON.stringify(ms)}`);
  for (const line of figures) console.log(line);
});

afterEach(async () => {
  await stopAllSipp();
  expect(calling.t.takeErrorLogs().map((line) => JSON.stringify(line))).toEqual([]);
});

const callAnswered = (message: string, speak: (call: Answered) => Promise<unknown>) =>
  answeredCall(calling, true, message, speak);

const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));

/** Waits until the speech heard from `from` on has ended (QUIET_MS and a margin of quiet). */
const runEnded = (rtp: RtpPhone, from: number, timeoutMs = 40_000) => playbackEnded(rtp, from, QUIET_MS, timeoutMs);

const digits = (callId: string) =>
  calling.progress
    .timeline(callId)
    .filter((e) => e.event === 'digit')
    .map((e) => e.detail);

it('2 pressed while the message plays stops it and says it again from its start (heard at the phone: as long as the message and the prompt); 1 after the repeat acknowledges', async () => {
  let pressedAt = 0;
  let run: { start: number; end: number } | undefined;
  const { row, rtp, sms, talk } = await callAnswered(MESSAGE, async ({ rtp, media, answeredAt }) => {
    // 3 s into the message (the intro and the keys come first).
    await sleepUntil(answeredAt + ms.intro + ms.keys + 3_000);
    pressedAt = Date.now();
    await rtp.digit(media, '2');
    run = await runEnded(rtp, pressedAt + 200);
    await rtp.digit(media, '1');
  });
  expect(row.status, talk).toBe('acknowledged');
  expect(sms).toEqual([]);
  expect(digits(row.call_id as string)).toEqual(['2: the message again', '1: acknowledged']);
  const heardMs = run!.end - run!.start;
  figures.push(
    `2 at ${pressedAt - rtp.loudAt()[0]!} ms after the first word; then ${heardMs} ms of speech (message + prompt: ${ms.message + ms.prompt} ms); answer to 2: stopped within ${run!.start - pressedAt} ms`,
  );
  // The first playback's rest would be 3 s shorter: the message was said again from its start.
  expect(heardMs).toBeGreaterThan(ms.message + ms.prompt - 1_500);
  expect(heardMs).toBeLessThan(ms.message + ms.prompt + 1_000);
  // Barge-in: the repeat begins at once after the press, no gap in the speech.
  expect(run!.start - pressedAt).toBeLessThan(1_000);
}, 120_000);

it('0 pressed while the keys are said: a person (a digit, not talk), and the keys are said again, alone; then silence, and 1 acknowledges', async () => {
  let pressedAt = 0;
  let run: { start: number; end: number } | undefined;
  const { row, sms, talk } = await callAnswered(MESSAGE, async ({ rtp, media, answeredAt }) => {
    await sleepUntil(answeredAt + ms.intro + 1_000);
    pressedAt = Date.now();
    await rtp.digit(media, '0');
    run = await runEnded(rtp, pressedAt + 200);
    await rtp.digit(media, '1');
  });
  expect(row, talk).toMatchObject({ status: 'acknowledged', amd_status: 'HUMAN', amd_cause: 'DIGIT' });
  expect(sms).toEqual([]);
  // The digit's RFC 4733 packets were not taken for talk.
  expect(talk).not.toMatch(/\btalk \d/);
  expect(digits(row.call_id as string)).toEqual(['0: the keys', '1: acknowledged']);
  const heardMs = run!.end - run!.start;
  figures.push(`0: then ${heardMs} ms of speech (the keys: ${ms.keys} ms)`);
  // The keys alone: not the rest of the keys, the message and the prompt (about 15 s).
  expect(heardMs).toBeGreaterThan(ms.keys - 1_500);
  expect(heardMs).toBeLessThan(ms.keys + 1_000);
}, 120_000);

it('a machine (a long greeting) that sends digits once it is found to be one: they do nothing, a decision key (#56) neither; the message is left whole after the beep, voicemail with its SMS', async () => {
  const stores = calling.t.service.stores;
  const { row, sms, talk } = await answeredCall(
    calling,
    true,
    'NVDA crossed 140',
    async ({ rtp, media }) => {
      // The verdict comes about 2.8 s into the greeting (a phrase past 2 s).
      const at = 8 * 4_500;
      // Queued at once: the phone's thread plays them back to back (a stall of this process is no pause).
      void rtp.play(media, greeting.samples.subarray(0, at));
      for (const key of '1207') void rtp.digit(media, key);
      await rtp.play(media, greeting.samples.subarray(at));
    },
    'answer',
    async (account) => {
      // Decision keys are offered only with a callback URL; this one is never reached (a documentation
      // address, refused by the sender): what matters is that no decision is recorded or queued.
      await stores.callbacks.configure(account.userId, { url: 'https://198.51.100.7/hook', secret: 'whsec_a' });
      await stores.accounts.update(account.userId, { decisionKeys: '7=buy' });
    },
  );
  expect(row, talk).toMatchObject({ status: 'voicemail', amd_status: 'MACHINE', decision_key: null });
  expect(sms).toEqual(['Missed call alert: NVDA crossed 140']);
  // Each press is on the timeline, ignored (Asterisk may report one twice, as the next came after it).
  const pressed = digits(row.call_id as string);
  expect(pressed.filter((detail, i) => detail !== pressed[i - 1])).toEqual([
    '1: ignored (a machine)',
    '2: ignored (a machine)',
    '0: ignored (a machine)',
    '7: ignored (a machine)',
  ]);
  for (const detail of pressed) expect(detail).toMatch(/^[1207]: ignored \(a machine\)$/);
  const decisions = sqliteDb(stores)
    .prepare("SELECT count(*) AS n FROM callback_outbox WHERE call_id = ? AND type = 'call.decision'")
    .get(row.call_id) as { n: number };
  expect(decisions.n).toBe(0);
}, 120_000);
