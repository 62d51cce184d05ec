import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { checkWav, normalizedTelephoneWav, withTrueSizes } from '../core/wav.js';
import { silentLogger, type Logger } from '../lib/log.js';
import { WorkGate } from '../lib/work-gate.js';
import { buildResidentFlite } from './flite-resident.js';
import {
  SpeechCache,
  speechCacheKey,
  speechFile,
  type SpeechProgress,
  type SynthesizedSpeech,
} from './speech-cache.js';
import { SpeechWorkers, type SpeechStep } from './speech-workers.js';
import { SpeechCosts } from '../core/speech-costs.js';
import { runSpeechCommand, SpeechCommandError } from './tts-command.js';

export { speechCacheKey, type SpeechProgress, type SynthesizedSpeech } from './speech-cache.js';

import type { TtsEngine } from './engine.js';

export type { TtsEngine } from './engine.js';
export * from './tts-api.js';
import { type Tts, TtsError, TtsOptions, type TtsOptionsInput, Voice } from './tts-api.js';

const WAV_HEADER_BYTES = 44;
/** 100 ms of the telephone format (8 kHz, 16-bit): the least a made phrase is taken for sound. */
const LEAST_SOUND_BYTES = 1_600;

const DEFAULT_VOICE: Record<TtsEngine, string> = {
  flite: 'slt',
  'espeak-ng': 'en-us',
  festival: 'cmu_us_slt_arctic_hts',
};

// Festival takes its voice inside a Scheme expression: a plain name only.
const FESTIVAL_VOICE = /^[a-z0-9_]{1,100}$/;

/** What the steps write in a synthesis's temp dir (speech-workers.ts, tts-command.ts). */
const TEMP_FILES = ['text.txt', 'raw.wav', 'out.wav', 'err.txt'];

export function createTts(input: TtsOptionsInput, deps: { logger?: Logger; now?: () => number } = {}): Tts {
  const o = TtsOptions.parse(input);
  const logger = deps.logger ?? silentLogger;
  const now = deps.now ?? Date.now;
  const bin = {
    flite: o.binaries.flite ?? 'flite',
    'espeak-ng': o.binaries.espeakNg ?? 'espeak-ng',
    festival: o.binaries.text2wave ?? 'text2wave',
    sox: o.binaries.sox ?? 'sox',
  };
  const cache = new SpeechCache(o.cacheDir, now);
  // A burst of calls must not start a thousand engines on two cores: each waits for a slot.
  const processes = new WorkGate({ concurrency: o.maxProcesses, queue: Number.POSITIVE_INFINITY });
  const workers = new SpeechWorkers(
    o.cacheDir,
    { flite: bin.flite, 'espeak-ng': bin['espeak-ng'], festival: bin.festival, sox: bin.sox },
    {
      logger,
      buildResidentFlite:
        o.residentFliteDir !== undefined && bin.flite === 'flite'
          ? () => buildResidentFlite(o.residentFliteDir!)
          : undefined,
    },
  );
  const costs = new SpeechCosts();

  /** Runs one step in a resident process: an engine makes tmp/raw.wav, `convert` makes tmp/out.wav from it. */
  async function runStep(step: SpeechStep, voice: string, tmpName: string): Promise<void> {
    const file = step === 'convert' ? bin.sox : bin[step];
    const status = await workers.run({ step, voice, dir: tmpName }, o.timeoutMs).catch((error: Error) => {
      throw new TtsError('engine_failed', `${file} failed: ${error.message}`, { cause: error });
    });
    if (status === 0) return;
    // The shell's "not found" (127) and "not executable" (126).
    if (status === 127 || status === 126) {
      throw new TtsError(
        'engine_missing',
        `${file} is not installed: run ringhook provision (or apt-get install flite espeak-ng festival festvox-us-slt-hts sox)`,
      );
    }
    const stderr = await readFile(join(o.cacheDir, tmpName, 'err.txt'), 'utf8').catch(() => '');
    throw new TtsError('engine_failed', `${file} failed: ${stderr.trim().slice(0, 500) || `exit status ${status}`}`);
  }

  /** Writes what `step` needs in a temp dir, makes the telephone WAV there, and moves it to target. */
  function produce(
    target: string,
    step: SpeechStep,
    voice: string,
    prepare: (text: string, tmp: string) => Promise<void>,
    text: string,
    describe: Record<string, unknown>,
  ): Promise<SynthesizedSpeech> {
    return processes.tryRun(async () => {
      const started = performance.now();
      const made = await produceNow(target, step, voice, prepare, text, describe);
      costs.took(step, voice, performance.now() - started, text.length);
      return made;
    })!;
  }

  /** Counts `work` as queued speech until it is done (cached or made). */
  async function counted(
    step: SpeechStep,
    voice: string,
    work: () => Promise<SynthesizedSpeech>,
  ): Promise<SynthesizedSpeech> {
    const done = costs.queue(step, voice);
    try {
      return await work();
    } finally {
      done();
    }
  }

  async function produceNow(
    target: string,
    step: SpeechStep,
    voice: string,
    prepare: (text: string, tmp: string) => Promise<void>,
    text: string,
    describe: Record<string, unknown>,
  ): Promise<SynthesizedSpeech> {
    const started = performance.now();
    const tmpName = `.tmp-${randomBytes(6).toString('hex')}`;
    const tmp = join(o.cacheDir, tmpName);
    await mkdir(tmp, { recursive: true, mode: 0o700 });
    try {
      await prepare(text, tmp);
      if (step !== 'convert') await runStep(step, voice, tmpName);
      // Already in the telephone format (flite's 8 kHz voices): only its loudness is evened out, here.
      const ready = normalizedTelephoneWav(await readFile(join(tmp, 'raw.wav')));
      if (ready) await writeFile(join(tmp, 'out.wav'), ready);
      else await runStep('convert', voice, tmpName);
      const size = ready ? ready.length : (await stat(join(tmp, 'out.wav'))).size;
      // An engine that cannot read the text (flite given Cyrillic, say) exits 0 with a header and no
      // sound: a call must never speak that, so it fails like the engine did, and is not cached.
      if (size < WAV_HEADER_BYTES + LEAST_SOUND_BYTES)
        throw new TtsError('engine_failed', `${step} made no sound (${size} bytes)`);
      // The engines write with the umask's mode (0644 as a rule).
      await chmod(join(tmp, 'out.wav'), o.fileMode);
      await rename(join(tmp, 'out.wav'), target);
      logger.debug('speech synthesized', {
        ...describe,
        chars: text.length,
        ms: Math.round(performance.now() - started),
      });
      return speechFile(target, size, false);
    } finally {
      await removeTemp(tmp);
    }
  }

  /** The files a step leaves, one by one (half the file operations of a recursive rm), then anything else. */
  async function removeTemp(tmp: string): Promise<void> {
    // A step that failed early leaves some of them unmade: the rmdir below, or rm, takes what is left.
    await Promise.all(TEMP_FILES.map((name) => unlink(join(tmp, name)).catch(() => {})));
    await rmdir(tmp).catch(() => rm(tmp, { recursive: true, force: true }));
  }

  const writeText = (text: string, tmp: string) => writeFile(join(tmp, 'text.txt'), text, 'utf8');

  const viaCommand = (command: string) => async (text: string, tmp: string) => {
    const bytes = await runSpeechCommand(command, text, tmp, {
      timeoutMs: o.commandTimeoutMs,
      maxBytes: o.commandMaxBytes,
    });
    const check = checkWav(bytes);
    if (!check.ok) throw new SpeechCommandError(`its output is not a usable WAV: ${check.reason}`);
    await writeFile(join(tmp, 'raw.wav'), withTrueSizes(bytes, check));
  };

  let commandRestingUntil = -Infinity;

  async function synthesizeBuiltIn(text: string, engine: TtsEngine, voice: string): Promise<SynthesizedSpeech> {
    const key = speechCacheKey(text, voice, engine);
    const make = () =>
      cache.cachedOr(key, (target) => produce(target, engine, voice, writeText, text, { engine, voice }));
    // Speech made, or being made for another request (counted there), is not queued work.
    return cache.progressOf(key) === 'none' ? counted(engine, voice, make) : make();
  }

  /** An engine an account's voice asked for; when it fails, the configured engine speaks instead. */
  async function synthesizeChosen(text: string, engine: TtsEngine, voice: string): Promise<SynthesizedSpeech> {
    if (engine === o.engine) return synthesizeBuiltIn(text, engine, voice);
    const started = performance.now();
    try {
      return await synthesizeBuiltIn(text, engine, voice);
    } catch (error) {
      const fallback = o.voice ?? DEFAULT_VOICE[o.engine];
      logger.warn(`the voice's engine ${engine} failed; speaking with ${o.engine} instead`, {
        engine,
        voice,
        fallback,
        reason: (error as Error).message,
      });
      return tookAsFallback(engine, voice, started, synthesizeBuiltIn(text, o.engine, fallback));
    }
  }

  /**
   * A voice that fails costs what its failure and its fallback took together: that is when its
   * calls' speech is ready (a burst does not pick a failing voice for a speed it does not have).
   */
  async function tookAsFallback(
    step: SpeechStep,
    voice: string,
    started: number,
    spoken: Promise<SynthesizedSpeech>,
  ): Promise<SynthesizedSpeech> {
    const made = await spoken;
    costs.tookFailing(step, voice, performance.now() - started);
    return made;
  }

  async function synthesizeWithCommand(
    text: string,
    command: string,
    fallback: () => Promise<SynthesizedSpeech>,
  ): Promise<SynthesizedSpeech> {
    const started = performance.now();
    try {
      const key = speechCacheKey(text, command, 'command');
      const make = () =>
        cache.cachedOr(key, async (target) => {
          if (now() < commandRestingUntil) throw new SpeechCommandError('it failed a moment ago');
          return produce(target, 'convert', 'command', viaCommand(command), text, { engine: 'command' });
        });
      return await (cache.progressOf(key) === 'none' ? counted('convert', 'command', make) : make());
    } catch (error) {
      // Whatever went wrong (the command, its output, sox on its output), the call still speaks.
      if (now() >= commandRestingUntil) {
        logger.warn('the speech command failed; speaking with the built-in engine', {
          engine: o.engine,
          reason: (error as Error).message,
          restMs: o.commandRestMs,
        });
        commandRestingUntil = now() + o.commandRestMs;
      }
      return tookAsFallback('convert', 'command', started, fallback());
    }
  }

  async function synthesize(
    text: string,
    options: { engine?: TtsEngine; voice?: string } = {},
  ): Promise<SynthesizedSpeech> {
    if (text.trim() === '') throw new TtsError('invalid_input', 'nothing to say: the text is empty');
    const engine = options.engine ?? o.engine;
    const voiceParsed = Voice.safeParse(options.voice ?? o.voice ?? DEFAULT_VOICE[engine]);
    if (!voiceParsed.success)
      throw new TtsError('invalid_input', `invalid voice: ${z.prettifyError(voiceParsed.error)}`);
    const voice = voiceParsed.data;
    if (engine === 'festival' && !FESTIVAL_VOICE.test(voice))
      throw new TtsError('invalid_input', `invalid Festival voice: ${voice}`);
    // An engine asked for by name is that engine; otherwise the operator's command when there is one.
    if (o.command !== undefined && options.engine === undefined) {
      return synthesizeWithCommand(text, o.command, () => synthesizeBuiltIn(text, engine, voice));
    }
    return synthesizeChosen(text, engine, voice);
  }

  /** Who speaks what is asked with `options`: the operator's command unless an engine is asked for by name, else the engine and its voice (unchecked). */
  function speakerOf(options: {
    engine?: TtsEngine;
    voice?: string;
  }): { command: string } | { engine: TtsEngine; voice: string } {
    if (o.command !== undefined && options.engine === undefined) return { command: o.command };
    const engine = options.engine ?? o.engine;
    return { engine, voice: options.voice ?? o.voice ?? DEFAULT_VOICE[engine] };
  }

  /** The step and voice whose times the speech asked with `options` goes by. */
  function costKey(options: { engine?: TtsEngine; voice?: string }): [SpeechStep, string] {
    const speaker = speakerOf(options);
    return 'command' in speaker ? ['convert', 'command'] : [speaker.engine, speaker.voice];
  }

  const expectedMakingMs = (options: { engine?: TtsEngine; voice?: string } = {}): number =>
    costs.expectedMs(...costKey(options));

  const fastestMakingMs = (options: { engine?: TtsEngine; voice?: string } = {}): number =>
    costs.fastestMs(...costKey(options));

  const reserve = (options: { engine?: TtsEngine; voice?: string } = {}) => costs.queue(...costKey(options));

  const expectedReadyMs = (options: { engine?: TtsEngine; voice?: string } = {}): number =>
    costs.queuedMs / o.maxProcesses + expectedMakingMs(options);

  /** The cache key synthesize() uses for this text and options; undefined for a voice it refuses. */
  function cacheKeyOf(text: string, options: { engine?: TtsEngine; voice?: string }): string | undefined {
    const speaker = speakerOf(options);
    if ('command' in speaker) return speechCacheKey(text, speaker.command, 'command');
    return Voice.safeParse(speaker.voice).success ? speechCacheKey(text, speaker.voice, speaker.engine) : undefined;
  }

  /** Speech asked for ahead and not done yet: at most one an engine, so a call's speech asked for meanwhile waits for at most one of them an engine. */
  let aheadOutstanding = 0;
  function ahead(say: () => string, options: { engine?: TtsEngine; voice?: string } = {}): Promise<void> | undefined {
    const { running, waiting } = processes.busy;
    if (waiting > 0 || running >= o.maxProcesses || aheadOutstanding >= o.maxProcesses) return undefined;
    const text = say();
    aheadOutstanding++;
    const done = () => {
      aheadOutstanding--;
    };
    return synthesize(text, options).then(done, done);
  }

  const progressOf = (text: string, options: { engine?: TtsEngine; voice?: string } = {}): SpeechProgress => {
    const key = cacheKeyOf(text, options);
    return key === undefined ? 'none' : cache.progressOf(key);
  };

  return {
    synthesize,
    cleanup: (maxAgeDays) => cache.cleanup(maxAgeDays),
    expectedReadyMs,
    expectedMakingMs,
    fastestMakingMs,
    reserve,
    ahead,
    progressOf,
    close: () => workers.close(),
  };
}
