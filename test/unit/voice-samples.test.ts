// The dashboard's "Hear it" without the browser: the text a call would speak for the owner's box
// (the webhook's parsing, 500 characters, the normalizer, the call's script), and the bounds on
// making it: one at a time per account, the test calls' pace for new messages, replays free.
// The maker here is a stand-in (a promise the test settles) so that "still being made" is exact;
// the real engines make the WAV in test/e2e/dashboard.test.ts.
import { describe, expect, it } from 'vitest';
import type { CallSpeech } from '../../src/core/speech/languages.js';
import { decideTestPace, HOUR_MS, TEST_CALL_LIMITS } from '../../src/core/webhook/limits.js';
import { SAMPLE_ALERT } from '../../src/core/speech/spoken-alerts.js';
import type { SpokenCall } from '../../src/core/speech/spoken-call.js';
import { silentLogger } from '../../src/lib/log.js';
import { hearText, MAX_HEAR_BOX_CHARS, VoiceSamples } from '../../src/http/dashboard/voice-samples.js';

const english = { language: 'en', voice: 'slt', intro: null } as const;
const german = { language: 'de', voice: 'espeak-ng', intro: 'Kursalarm.' } as const;

function ok(body: string, account: Parameters<typeof hearText>[1] = english) {
  const text = hearText(body, account);
  if (!text.ok) throw new Error(text.error);
  return text;
}

describe('hearText: what a call would speak for the box', () => {
  it("is the call script in the account's language: intro, the normalized message, the prompt", () => {
    const text = ok('BTC 7.5M volume | TP1: 3,400');
    expect(text.phrases.intro).toBe('Alert from ringhook.');
    expect(text.phrases.message).toMatch(/seven point five million/);
    expect(text.phrases.message).not.toMatch(/[|]|7\.5M|3,400|TP1/);
    expect(text.phrases.prompt).toMatch(/Press 1/);
    expect(text.counted).toBe(true);
    const de = ok('BTCUSDT steigt um 2,5 %', german);
    expect(de.phrases.intro).toBe('Kursalarm.');
    expect(de.speech.synthesis).toMatchObject({ engine: 'espeak-ng' });
  });

  it('parses the box as the webhook parses a body: JSON speaks its "message" only', () => {
    const text = ok(JSON.stringify({ message: 'ETH crossed 3,400', ticker: 'ETHUSD', price: 3400 }));
    expect(text.message).toBe('ETH crossed 3,400');
    expect(text.phrases.message).toMatch(/three thousand four hundred/);
    expect(text.phrases.message).not.toMatch(/ticker|ETHUSD/);
  });

  it('refuses, with one clear line, a message longer than the webhook takes whole, an over-long box and what the webhook refuses', () => {
    const long = hearText('a'.repeat(501), english);
    expect(long).toEqual({
      ok: false,
      error: expect.stringMatching(/^The message is 501 characters: at most 500 are spoken/),
    });
    expect(hearText('a'.repeat(500), english).ok).toBe(true);
    const box = hearText(JSON.stringify({ message: 'short', strategy: 'x'.repeat(MAX_HEAR_BOX_CHARS) }), english);
    expect(box).toEqual({ ok: false, error: expect.stringMatching(/^The text is \d+ characters; paste at most 2000/) });
    expect(hearText('   ', english)).toEqual({
      ok: false,
      error: expect.stringMatching(/^The webhook would refuse this: The request body is empty/),
    });
    expect(hearText('{"message": 5}', english)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^The webhook would refuse this/),
    });
  });

  it('does not count the sample every owner is offered', () => {
    expect(ok(SAMPLE_ALERT).counted).toBe(false);
  });
});

describe("decideTestPace: the test calls' limits over times held in memory", () => {
  it("allows the minute's and the hour's number, then names the wait", () => {
    const now = 10 * HOUR_MS;
    const minute = Array.from({ length: TEST_CALL_LIMITS.perMinute }, (_, i) => now - 1_000 * (i + 1));
    expect(decideTestPace(now, minute.slice(1))).toEqual({ allowed: true });
    expect(decideTestPace(now, minute)).toMatchObject({
      allowed: false,
      limit: 'burst',
      retryAfterSeconds: 60 - TEST_CALL_LIMITS.perMinute,
    });
    const hour = Array.from({ length: TEST_CALL_LIMITS.perHour }, (_, i) => now - 5 * 60_000 * (i + 1));
    expect(decideTestPace(now, hour.slice(1))).toEqual({ allowed: true });
    expect(decideTestPace(now, hour)).toMatchObject({ allowed: false, retryAfterSeconds: 600 });
  });
});

describe("VoiceSamples: one at a time, the test calls' pace, replays free", () => {
  function samples() {
    let now = 5 * HOUR_MS;
    const pending: Array<() => void> = [];
    const made: string[] = [];
    // Stand-in maker: each sample is "made" when the test says so.
    const make = (phrases: SpokenCall, _speech: CallSpeech) =>
      new Promise<{ wav: Buffer; durationMs: number }>((resolve) => {
        made.push(phrases.message);
        pending.push(() => resolve({ wav: Buffer.from('RIFF'), durationMs: 1 }));
      });
    const store = new VoiceSamples(make, () => now, silentLogger);
    const hear = async (userId: string, body: string) => {
      const result = store.sample(userId, ok(body));
      pending.shift()?.();
      return result;
    };
    return { store, hear, made, pending, advance: (ms: number) => (now += ms) };
  }

  it('answers 429 to a second sample of the same account while one is being made; another account is not held', async () => {
    const { store, pending } = samples();
    const first = store.sample('u1', ok('ETH above 3,400'));
    expect(await store.sample('u1', ok('SOL below 150'))).toMatchObject({
      ok: false,
      status: 429,
      retryAfterSeconds: 2,
    });
    const other = store.sample('u2', ok('SOL below 150'));
    for (const done of pending.splice(0)) done();
    expect(await first).toMatchObject({ ok: true });
    expect(await other).toMatchObject({ ok: true });
    const again = store.sample('u1', ok('SOL below 150'));
    pending.shift()?.();
    expect(await again).toMatchObject({ ok: true });
  });

  it("holds new messages to the test calls' pace; hearing one again and the offered sample are free", async () => {
    const { hear, made, advance } = samples();
    expect(await hear('u1', 'ETH above 3,400')).toMatchObject({ ok: true });
    advance(1_000);
    expect(await hear('u1', 'SOL below 150')).toMatchObject({ ok: true });
    advance(1_000);
    expect(await hear('u1', 'ETH above 3,400')).toMatchObject({ ok: true });
    expect(await hear('u1', SAMPLE_ALERT)).toMatchObject({ ok: true });
    expect(await hear('u1', 'ADA at 0.45')).toEqual({
      ok: false,
      status: 429,
      retryAfterSeconds: 58,
      error: expect.stringMatching(/try again in 58 seconds/),
    });
    expect(made).not.toContain('A D A at zero point four five');
    expect(await hear('u2', 'ADA at 0.45')).toMatchObject({ ok: true });
    advance(58_000);
    expect(await hear('u1', 'ADA at 0.45')).toMatchObject({ ok: true });
    // Ten new messages an hour, then the wait to the oldest's hour.
    for (let i = 0; i < TEST_CALL_LIMITS.perHour - 3; i++) {
      advance(60_000);
      expect(await hear('u1', `alert number ${i}`)).toMatchObject({ ok: true });
    }
    advance(60_000);
    const refused = await hear('u1', 'one too many');
    expect(refused).toMatchObject({ ok: false, status: 429 });
    expect(refused.ok === false && refused.status === 429 && refused.retryAfterSeconds).toBeGreaterThan(60);
  });

  it('a sample the engine could not make is a 503, and the account is free again', async () => {
    const store = new VoiceSamples(
      () => Promise.reject(new Error('engine missing')),
      () => 0,
      silentLogger,
    );
    expect(await store.sample('u1', ok('ETH above 3,400'))).toMatchObject({ ok: false, status: 503 });
    expect(await store.sample('u1', ok('ETH above 3,400'))).toMatchObject({ ok: false, status: 503 });
  });
});
