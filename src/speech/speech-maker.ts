// Makes one telephone WAV: the text (or a command's WAV) written in a temp dir of the cache, the
// engine run there in a resident process, the result converted to 8 kHz mono and evened out,
// checked for sound and moved into the cache under its key. Each run takes a slot of the engines'
// gate (a burst of calls must not start a thousand engines on two cores) and its time is counted.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SpeechCosts } from '../core/speech/speech-costs.js';
import { checkWav, normalizedTelephoneWav, withTrueSizes } from '../core/speech/wav.js';
import type { Logger } from '../lib/log.js';
import type { WorkGate } from '../lib/work-gate.js';
import type { TtsEngine } from './engine.js';
import { speechFile, type SynthesizedSpeech } from './speech-cache.js';
import type { SpeechStep, SpeechWorkers } from './speech-workers.js';
import { TtsError, type TtsSettings } from './tts-api.js';
import { runSpeechCommand, SpeechCommandError } from './tts-command.js';

const WAV_HEADER_BYTES = 44;
/** 100 ms of the telephone format (8 kHz, 16-bit): the least a made phrase is taken for sound. */
const LEAST_SOUND_BYTES = 1_600;

/** What the steps write in a synthesis's temp dir (speech-workers.ts, tts-command.ts). */
const TEMP_FILES = ['text.txt', 'raw.wav', 'out.wav', 'err.txt'];

/** Puts what a step needs into the temp dir: the text for an engine, or the command's raw WAV. */
export type Prepare = (text: string, tmp: string) => Promise<void>;

/** One telephone WAV to make: where it goes, the step and voice that make it, how its input is written, its text, and what the log says of it. */
type Making = [
  target: string,
  step: SpeechStep,
  voice: string,
  prepare: Prepare,
  text: string,
  describe: Record<string, unknown>,
];

export type SpeechBinaries = Record<TtsEngine | 'sox', string>;

export interface SpeechMakerDeps {
  options: Pick<TtsSettings, 'cacheDir' | 'timeoutMs' | 'fileMode' | 'commandTimeoutMs' | 'commandMaxBytes'>;
  bin: SpeechBinaries;
  workers: Pick<SpeechWorkers, 'run'>;
  processes: Pick<WorkGate, 'tryRun'>;
  costs: Pick<SpeechCosts, 'took'>;
  logger: Logger;
}

export class SpeechMaker {
  constructor(private readonly deps: SpeechMakerDeps) {}

  /** The text as the engine's input. */
  readonly writeText: Prepare = (text, tmp) => writeFile(join(tmp, 'text.txt'), text, 'utf8');

  /** The operator's command run on the text: its WAV, checked, as the raw input of the conversion. */
  viaCommand(command: string): Prepare {
    const { commandTimeoutMs, commandMaxBytes } = this.deps.options;
    return async (text, tmp) => {
      const bytes = await runSpeechCommand(command, text, tmp, {
        timeoutMs: commandTimeoutMs,
        maxBytes: commandMaxBytes,
      });
      const check = checkWav(bytes);
      if (!check.ok) throw new SpeechCommandError(`its output is not a usable WAV: ${check.reason}`);
      await writeFile(join(tmp, 'raw.wav'), withTrueSizes(bytes, check));
    };
  }

  /** Writes what `step` needs in a temp dir, makes the telephone WAV there, and moves it to target. */
  produce(...making: Making): Promise<SynthesizedSpeech> {
    const [, step, voice, , text] = making;
    return this.deps.processes.tryRun(async () => {
      const started = performance.now();
      const made = await this.produceNow(...making);
      this.deps.costs.took(step, voice, performance.now() - started, text.length);
      return made;
    })!;
  }

  private async produceNow(...[target, step, voice, prepare, text, describe]: Making): Promise<SynthesizedSpeech> {
    const started = performance.now();
    const tmpName = `.tmp-${randomBytes(6).toString('hex')}`;
    const tmp = join(this.deps.options.cacheDir, tmpName);
    await mkdir(tmp, { recursive: true, mode: 0o700 });
    try {
      await prepare(text, tmp);
      if (step !== 'convert') await this.runStep(step, voice, tmpName);
      // Already in the telephone format (flite's 8 kHz voices): only its loudness is evened out, here.
      const ready = normalizedTelephoneWav(await readFile(join(tmp, 'raw.wav')));
      if (ready) await writeFile(join(tmp, 'out.wav'), ready);
      else await this.runStep('convert', voice, tmpName);
      const size = ready ? ready.length : (await stat(join(tmp, 'out.wav'))).size;
      // An engine that cannot read the text (flite given Cyrillic, say) exits 0 with a header and no
      // sound: a call must never speak that, so it fails like the engine did, and is not cached.
      if (size < WAV_HEADER_BYTES + LEAST_SOUND_BYTES)
        throw new TtsError('engine_failed', `${step} made no sound (${size} bytes)`);
      // The engines write with the umask's mode (0644 as a rule).
      await chmod(join(tmp, 'out.wav'), this.deps.options.fileMode);
      await rename(join(tmp, 'out.wav'), target);
      this.deps.logger.debug('speech synthesized', {
        ...describe,
        chars: text.length,
        ms: Math.round(performance.now() - started),
      });
      return speechFile(target, size, false);
    } finally {
      await removeTemp(tmp);
    }
  }

  /** Runs one step in a resident process: an engine makes tmp/raw.wav, `convert` makes tmp/out.wav from it. */
  private async runStep(step: SpeechStep, voice: string, tmpName: string): Promise<void> {
    const { bin, workers, options } = this.deps;
    const file = step === 'convert' ? bin.sox : bin[step];
    const status = await workers.run({ step, voice, dir: tmpName }, options.timeoutMs).catch((error: Error) => {
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
    const stderr = await readFile(join(options.cacheDir, tmpName, 'err.txt'), 'utf8').catch(() => '');
    throw new TtsError('engine_failed', `${file} failed: ${stderr.trim().slice(0, 500) || `exit status ${status}`}`);
  }
}

/** The files a step leaves, one by one (half the file operations of a recursive rm), then anything else. */
async function removeTemp(tmp: string): Promise<void> {
  // A step that failed early leaves some of them unmade, so an unlink may find nothing: nothing to do then, as the
  // rmdir below (or rm, when something is left) removes the folder either way.
  await Promise.all(
    TEMP_FILES.map(
      (name) => unlink(join(tmp, name)).catch(() => {}), // not made by a failed step: nothing to remove
    ),
  );
  await rmdir(tmp).catch(() => rm(tmp, { recursive: true, force: true }));
}
