// Speech synthesis with the real engines (flite, espeak-ng, sox from Debian).
import { mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RING_ALLOWANCE_MS } from '../../src/core/speech/speech-plan.js';
import { silentLogger } from '../../src/lib/log.js';
import { createTts, speechCacheKey } from '../../src/speech/tts.js';
import { TtsError } from '../../src/speech/tts-api.js';
import { waitFor } from '../helpers/wait.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rh-tts-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tts', () => {
  it('synthesizes 8 kHz 16-bit mono WAV with flite and caches it by text, voice, engine', async () => {
    const tts = createTts({ cacheDir: dir });
    const first = await tts.synthesize('BTC crossed 50,000 dollars.');
    expect(first.cached).toBe(false);
    expect(first.path).toBe(join(dir, `${speechCacheKey('BTC crossed 50,000 dollars.', 'slt', 'flite')}.wav`));
    expect(first.media).toBe(`sound:${first.path.slice(0, -4)}`);
    expect(first.durationMs).toBeGreaterThan(1000);
    expect(first.durationMs).toBeLessThan(5000);
    const { readFile } = await import('node:fs/promises');
    const header = await readFile(first.path);
    expect(header.toString('ascii', 0, 4)).toBe('RIFF');
    expect(header.readUInt16LE(22)).toBe(1); // channels
    expect(header.readUInt32LE(24)).toBe(8000); // sample rate
    expect(header.readUInt16LE(34)).toBe(16); // bits
    const again = await tts.synthesize('BTC crossed 50,000 dollars.');
    expect(again).toMatchObject({ cached: true, path: first.path, durationMs: first.durationMs });
    const other = await tts.synthesize('BTC crossed 50,000 dollars.', { engine: 'espeak-ng' });
    expect(other.path).not.toBe(first.path);
    expect(other.cached).toBe(false);
    // Each synthesis's temp dir is gone with it (flite's WAV normalized here, espeak-ng's by sox).
    expect((await readdir(dir)).filter((name) => name.startsWith('.tmp-'))).toEqual([]);
  });

  it('a phrase found in the cache is not looked for again for 5 s; after that, one removed meanwhile is made again', async () => {
    let t = 1_000_000;
    const tts = createTts({ cacheDir: dir }, { now: () => t });
    const made = await tts.synthesize('Press 1 to confirm.');
    expect((await tts.synthesize('Press 1 to confirm.')).cached).toBe(true);
    await rm(made.path);
    t += 4_999;
    expect(await tts.synthesize('Press 1 to confirm.')).toMatchObject({ cached: true, path: made.path });
    t += 1;
    const again = await tts.synthesize('Press 1 to confirm.');
    expect(again).toMatchObject({ cached: false, path: made.path });
    expect((await stat(again.path)).size).toBeGreaterThan(44);
  });

  it('runs one synthesis for concurrent requests of the same text', async () => {
    const tts = createTts({ cacheDir: dir });
    const results = await Promise.all(Array.from({ length: 5 }, () => tts.synthesize('Same text five times.')));
    expect(new Set(results.map((r) => r.path)).size).toBe(1);
    expect(results.filter((r) => !r.cached)).toHaveLength(5); // all got the one fresh result
    expect((await readdir(dir)).filter((n) => n.endsWith('.wav'))).toHaveLength(1);
  });

  it('speaks text that looks like an option, and leaves no temp files', async () => {
    const tts = createTts({ cacheDir: dir, engine: 'espeak-ng' });
    const r = await tts.synthesize('-w /etc/passwd --help; $(reboot)');
    expect(r.durationMs).toBeGreaterThan(500);
    expect(await readdir(dir)).toEqual([r.path.split('/').at(-1)]);
  });

  it('says clearly when the engine is missing', async () => {
    const tts = createTts({ cacheDir: dir, binaries: { flite: '/nonexistent/flite' } });
    const error = await tts.synthesize('hello').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TtsError);
    expect((error as TtsError).code).toBe('engine_missing');
    expect((error as TtsError).message).toMatch(/not installed/);
  });

  it("flite's 8 kHz kal voice needs no sox (normalized here); a 16 kHz voice does, and says so when it is missing", async () => {
    const tts = createTts({ cacheDir: dir, binaries: { sox: '/nonexistent/sox' } });
    try {
      const kal = await tts.synthesize('NVDA crossed 140.', { engine: 'flite', voice: 'kal' });
      const { readFile } = await import('node:fs/promises');
      const bytes = await readFile(kal.path);
      expect(bytes.readUInt32LE(24)).toBe(8000);
      let loudest = 0;
      for (let i = 44; i < bytes.length; i += 2) loudest = Math.max(loudest, Math.abs(bytes.readInt16LE(i)));
      expect(loudest).toBe(29204);
      const error = await tts.synthesize('NVDA crossed 140.').catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'engine_missing',
        message: expect.stringMatching(/^\/nonexistent\/sox is not installed/),
      });
    } finally {
      tts.close();
    }
  });

  it('an engine that hangs is killed with what it started after the time limit; the next message is tried afresh', async () => {
    const hang = join(dir, 'hanging-engine');
    // An unusual length, so that the engine's own child can be told from any other sleep.
    await writeFile(hang, '#!/bin/sh\nsleep 31.7\n', { mode: 0o755 });
    const tts = createTts({ cacheDir: join(dir, 'cache'), binaries: { flite: hang }, timeoutMs: 500 });
    try {
      for (const text of ['first', 'second']) {
        const started = Date.now();
        const error = await tts.synthesize(text).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TtsError);
        expect((error as TtsError).message).toMatch(/timed out after 500 ms/);
        expect(Date.now() - started).toBeLessThan(3_000);
      }
      await new Promise((r) => setTimeout(r, 200));
      const { execFileSync } = await import('node:child_process');
      const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes(hang) || l.includes('sleep 31.7'));
      expect(left).toEqual([]);
    } finally {
      tts.close();
    }
  });

  it('estimates when speech asked for now would be ready: more work queued, later', async () => {
    const tts = createTts({ cacheDir: dir, maxProcesses: 1 });
    try {
      const idle = tts.expectedReadyMs();
      const kal16Idle = tts.expectedReadyMs({ engine: 'flite', voice: 'kal16' });
      const making = tts.expectedMakingMs();
      expect(making).toBe(idle);
      const pending = ['one', 'two', 'three'].map((t) => tts.synthesize(`queued message ${t}`));
      expect(tts.expectedReadyMs()).toBeGreaterThan(idle * 2);
      // The queue delays it; its own making is what it was.
      expect(tts.expectedMakingMs()).toBe(making);
      expect(tts.expectedReadyMs({ engine: 'flite', voice: 'kal16' })).toBeLessThan(tts.expectedReadyMs());
      await Promise.all(pending);
      // Nothing queued any more: a voice not used meanwhile is expected as soon as it was at first.
      expect(tts.expectedReadyMs({ engine: 'flite', voice: 'kal16' })).toBe(kal16Idle);
      // A message planned and not asked for yet counts as queued until it is taken back (once).
      const unreserve = tts.reserve({ engine: 'flite', voice: 'kal16' });
      expect(tts.expectedReadyMs({ engine: 'flite', voice: 'kal16' })).toBe(2 * kal16Idle);
      unreserve();
      unreserve();
      expect(tts.expectedReadyMs({ engine: 'flite', voice: 'kal16' })).toBe(kal16Idle);
    } finally {
      tts.close();
    }
  });

  it('makes speech ahead only with an engine free and no speech asked for waiting; what it made is known as made, and found in the cache by the call', async () => {
    const tts = createTts({ cacheDir: dir, maxProcesses: 1 });
    expect(tts.progressOf('Made ahead.', { voice: 'kal' })).toBe('none');
    const long = (what: string) =>
      `${what} ${'NVDA crossed one hundred and forty dollars on the five minute chart. '.repeat(4)}`;
    const asked = tts.synthesize(long('Asked for by a call.'));
    await waitFor(
      'its making started',
      async () => ((await readdir(dir)).some((n) => n.startsWith('.tmp-')) ? true : undefined),
      5_000,
      1,
    );
    expect(tts.ahead(() => 'Not while the engine is busy.', { voice: 'kal' })).toBeUndefined();
    const waiting = tts.synthesize(long('Asked for too.'));
    await asked;
    // The second call's speech waits for the engine, or has it.
    expect(tts.ahead(() => 'Not while a call waits for the engine.', { voice: 'kal' })).toBeUndefined();
    await waiting;
    const ahead = tts.ahead(() => 'Made ahead.', { voice: 'kal' });
    expect(ahead).toBeDefined();
    expect(tts.ahead(() => 'Only one at a time on one engine.', { voice: 'kal' })).toBeUndefined();
    await waitFor(
      'being made',
      () => (tts.progressOf('Made ahead.', { voice: 'kal' }) === 'making' ? true : undefined),
      5_000,
      1,
    );
    await ahead;
    expect(tts.progressOf('Made ahead.', { voice: 'kal' })).toBe('made');
    expect(tts.progressOf('Made ahead.', { voice: 'slt' })).toBe('none');
    expect(tts.progressOf('Not while the engine is busy.', { voice: 'kal' })).toBe('none');
    expect(await tts.synthesize('Made ahead.', { voice: 'kal' })).toMatchObject({ cached: true });
    // An invalid voice makes nothing and never rejects; the call asking later hears why.
    await expect(tts.ahead(() => 'Bad voice.', { voice: '-x' })).resolves.toBeUndefined();
    expect(tts.progressOf('Bad voice.', { voice: '-x' })).toBe('none');
    await tts.cleanup(0);
    expect(tts.progressOf('Made ahead.', { voice: 'kal' })).toBe('none');
    tts.close();
  });

  it("speaks with Festival's HTS slt voice (text2wave) and with espeak-ng in German", async () => {
    const tts = createTts({ cacheDir: dir });
    const festival = await tts.synthesize('Alert from ringhook.', {
      engine: 'festival',
      voice: 'cmu_us_slt_arctic_hts',
    });
    expect(festival.path).toBe(
      join(dir, `${speechCacheKey('Alert from ringhook.', 'cmu_us_slt_arctic_hts', 'festival')}.wav`),
    );
    expect(festival.durationMs).toBeGreaterThan(700);
    const german = await tts.synthesize('Alarm von ringhook.', { engine: 'espeak-ng', voice: 'de' });
    expect(german.path).toBe(join(dir, `${speechCacheKey('Alarm von ringhook.', 'de', 'espeak-ng')}.wav`));
    expect(german.durationMs).toBeGreaterThan(700);
    await expect(tts.synthesize('hi', { engine: 'festival', voice: 'x) (system "id"' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  it('a voice whose engine is missing speaks with the configured engine instead, and says so in a warning', async () => {
    const warnings: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];
    const logger = {
      ...silentLogger,
      warn: (message: string, fields?: Record<string, unknown>) => void warnings.push({ message, fields }),
    };
    const tts = createTts({ cacheDir: dir, binaries: { text2wave: '/nonexistent/text2wave' } }, { logger });
    const spoken = await tts.synthesize('Alert from ringhook.', { engine: 'festival', voice: 'cmu_us_slt_arctic_hts' });
    expect(spoken.path).toBe(join(dir, `${speechCacheKey('Alert from ringhook.', 'slt', 'flite')}.wav`));
    expect(spoken.durationMs).toBeGreaterThan(700);
    expect(warnings).toEqual([
      {
        message: "the voice's engine festival failed; speaking with flite instead",
        fields: expect.objectContaining({ engine: 'festival', fallback: 'slt' }),
      },
    ]);
    expect(String(warnings[0]?.fields?.reason)).toMatch(/not installed/);
  });

  it('an engine that exits 0 with no sound (flite given Cyrillic) has failed: never cached, never spoken', async () => {
    const tts = createTts({ cacheDir: dir });
    await expect(tts.synthesize('Привет, мир')).rejects.toMatchObject({
      code: 'engine_failed',
      message: expect.stringMatching(/made no sound/),
    });
    expect((await readdir(dir)).filter((f) => f.endsWith('.wav'))).toEqual([]);
    // espeak-ng reads it.
    expect((await tts.synthesize('Привет, мир', { engine: 'espeak-ng', voice: 'ru' })).durationMs).toBeGreaterThan(300);
  });

  it('a voice that fails is expected as slow as its failure and its fallback together (a burst would otherwise pick it and ring before the fallback is made)', async () => {
    const slowEspeak = join(dir, 'slow-espeak-ng');
    await writeFile(slowEspeak, `#!/bin/sh\nsleep ${RING_ALLOWANCE_MS / 1000 + 0.2}\nexec espeak-ng "$@"\n`, {
      mode: 0o755,
    });
    const tts = createTts({
      cacheDir: join(dir, 'cache'),
      engine: 'espeak-ng',
      binaries: { flite: '/nonexistent/flite', espeakNg: slowEspeak },
    });
    try {
      expect(tts.expectedReadyMs({ engine: 'flite', voice: 'kal' })).toBeLessThan(RING_ALLOWANCE_MS);
      const spoken = await tts.synthesize('Alert from ringhook.', { engine: 'flite', voice: 'kal' });
      expect(spoken.path).toBe(
        join(dir, 'cache', `${speechCacheKey('Alert from ringhook.', 'en-us', 'espeak-ng')}.wav`),
      );
      expect(tts.expectedReadyMs({ engine: 'flite', voice: 'kal' })).toBeGreaterThan(RING_ALLOWANCE_MS);
    } finally {
      tts.close();
    }
  });

  it('refuses an empty text and a voice that looks like an option', async () => {
    const tts = createTts({ cacheDir: dir });
    await expect(tts.synthesize('  ')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(tts.synthesize('hi', { voice: '-o/etc/x' })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('cleanup removes entries unused for N days and stale temp dirs', async () => {
    const now = Date.now();
    const tts = createTts({ cacheDir: dir }, { now: () => now });
    const old = await tts.synthesize('old message');
    const fresh = await tts.synthesize('fresh message');
    const tenDaysAgo = new Date(now - 10 * 86_400_000);
    await utimes(old.path, tenDaysAgo, tenDaysAgo);
    const tmp = join(dir, '.tmp-abandoned');
    await writeFile(tmp, 'x');
    await utimes(tmp, tenDaysAgo, tenDaysAgo);
    await writeFile(join(dir, 'not-ours.txt'), 'keep');
    expect(await tts.cleanup(7)).toBe(2);
    expect((await readdir(dir)).sort()).toEqual([fresh.path.split('/').at(-1), 'not-ours.txt'].sort());
    await expect(stat(old.path)).rejects.toThrow();
  });
});
