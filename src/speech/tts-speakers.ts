// Who speaks a text, and who speaks instead when that fails: the operator's command (resting a
// minute after a failure), else the engine and voice asked for, else the configured engine. The
// speech is taken from the cache when made or being made; otherwise it is counted as queued work
// until it is done, and a failure's time goes to the voice that failed (speech-costs).
import { z } from 'zod';
import type { SpeechCosts } from '../core/speech/speech-costs.js';
import type { Logger } from '../lib/log.js';
import type { TtsEngine } from './engine.js';
import { type SpeechCache, speechCacheKey, type SynthesizedSpeech } from './speech-cache.js';
import type { SpeechMaker } from './speech-maker.js';
import type { SpeechStep } from './speech-workers.js';
import { TtsError, type TtsSettings, Voice } from './tts-api.js';
import { SpeechCommandError } from './tts-command.js';

export const DEFAULT_VOICE: Record<TtsEngine, string> = {
  flite: 'slt',
  'espeak-ng': 'en-us',
  festival: 'cmu_us_slt_arctic_hts',
};

// Festival takes its voice inside a Scheme expression: a plain name only.
const FESTIVAL_VOICE = /^[a-z0-9_]{1,100}$/;

export interface SpeakersDeps {
  options: Pick<TtsSettings, 'engine' | 'voice' | 'command' | 'commandRestMs'>;
  cache: Pick<SpeechCache, 'cachedOr' | 'progressOf'>;
  maker: Pick<SpeechMaker, 'produce' | 'writeText' | 'viaCommand'>;
  costs: Pick<SpeechCosts, 'queue' | 'tookFailing'>;
  logger: Logger;
  now: () => number;
}

export class Speakers {
  private commandRestingUntil = -Infinity;

  constructor(private readonly deps: SpeakersDeps) {}

  async synthesize(text: string, options: { engine?: TtsEngine; voice?: string } = {}): Promise<SynthesizedSpeech> {
    const o = this.deps.options;
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
      return this.withCommand(text, o.command, () => this.builtIn(text, engine, voice));
    }
    return this.chosen(text, engine, voice);
  }

  private builtIn(text: string, engine: TtsEngine, voice: string): Promise<SynthesizedSpeech> {
    const { cache, maker } = this.deps;
    const key = speechCacheKey(text, voice, engine);
    const make = () =>
      cache.cachedOr(key, (target) => maker.produce(target, engine, voice, maker.writeText, text, { engine, voice }));
    // Speech made, or being made for another request (counted there), is not queued work.
    return cache.progressOf(key) === 'none' ? this.counted(engine, voice, make) : make();
  }

  /** An engine an account's voice asked for; when it fails, the configured engine speaks instead. */
  private async chosen(text: string, engine: TtsEngine, voice: string): Promise<SynthesizedSpeech> {
    const o = this.deps.options;
    if (engine === o.engine) return this.builtIn(text, engine, voice);
    const started = performance.now();
    try {
      return await this.builtIn(text, engine, voice);
    } catch (error) {
      const fallback = o.voice ?? DEFAULT_VOICE[o.engine];
      this.deps.logger.warn(`the voice's engine ${engine} failed; speaking with ${o.engine} instead`, {
        engine,
        voice,
        fallback,
        reason: (error as Error).message,
      });
      return this.tookAsFallback(engine, voice, started, this.builtIn(text, o.engine, fallback));
    }
  }

  private async withCommand(
    text: string,
    command: string,
    fallback: () => Promise<SynthesizedSpeech>,
  ): Promise<SynthesizedSpeech> {
    const { cache, maker, logger, now, options: o } = this.deps;
    const started = performance.now();
    try {
      const key = speechCacheKey(text, command, 'command');
      const make = () =>
        cache.cachedOr(key, async (target) => {
          if (now() < this.commandRestingUntil) throw new SpeechCommandError('it failed a moment ago');
          return maker.produce(target, 'convert', 'command', maker.viaCommand(command), text, { engine: 'command' });
        });
      return await (cache.progressOf(key) === 'none' ? this.counted('convert', 'command', make) : make());
    } catch (error) {
      // Whatever went wrong (the command, its output, sox on its output), the call still speaks.
      if (now() >= this.commandRestingUntil) {
        logger.warn('the speech command failed; speaking with the built-in engine', {
          engine: o.engine,
          reason: (error as Error).message,
          restMs: o.commandRestMs,
        });
        this.commandRestingUntil = now() + o.commandRestMs;
      }
      return this.tookAsFallback('convert', 'command', started, fallback());
    }
  }

  /** Counts `work` as queued speech until it is done (cached or made). */
  private async counted(
    step: SpeechStep,
    voice: string,
    work: () => Promise<SynthesizedSpeech>,
  ): Promise<SynthesizedSpeech> {
    const done = this.deps.costs.queue(step, voice);
    try {
      return await work();
    } finally {
      done();
    }
  }

  /**
   * A voice that fails costs what its failure and its fallback took together: that is when its
   * calls' speech is ready (a burst does not pick a failing voice for a speed it does not have).
   */
  private async tookAsFallback(
    step: SpeechStep,
    voice: string,
    started: number,
    spoken: Promise<SynthesizedSpeech>,
  ): Promise<SynthesizedSpeech> {
    const made = await spoken;
    this.deps.costs.tookFailing(step, voice, performance.now() - started);
    return made;
  }
}
