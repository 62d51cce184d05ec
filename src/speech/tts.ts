// The speech module: text to a cached telephone WAV. createTts puts its parts together (the cache,
// the engines' gate and resident processes, the maker of one WAV, who speaks and who instead) and
// answers from their costs how soon speech will be ready, and whether there is room to make some ahead.
import { SpeechCosts } from '../core/speech/speech-costs.js';
import { silentLogger, type Logger } from '../lib/log.js';
import { WorkGate } from '../lib/work-gate.js';
import type { TtsEngine } from './engine.js';
import { buildResidentFlite } from './flite-resident.js';
import { SpeechCache, speechCacheKey, type SpeechProgress } from './speech-cache.js';
import { type SpeechBinaries, SpeechMaker } from './speech-maker.js';
import { type SpeechStep, SpeechWorkers } from './speech-workers.js';
import { type Tts, TtsOptions, type TtsOptionsInput, type TtsSettings, Voice } from './tts-api.js';
import { DEFAULT_VOICE, Speakers } from './tts-speakers.js';

export { speechCacheKey, type SpeechProgress, type SynthesizedSpeech } from './speech-cache.js';
export type { TtsEngine } from './engine.js';

type SpeakOptions = { engine?: TtsEngine; voice?: string };

export function createTts(input: TtsOptionsInput, deps: { logger?: Logger; now?: () => number } = {}): Tts {
  const o = TtsOptions.parse(input);
  const logger = deps.logger ?? silentLogger;
  const now = deps.now ?? Date.now;
  const bin: SpeechBinaries = {
    flite: o.binaries.flite ?? 'flite',
    'espeak-ng': o.binaries.espeakNg ?? 'espeak-ng',
    festival: o.binaries.text2wave ?? 'text2wave',
    sox: o.binaries.sox ?? 'sox',
  };
  const cache = new SpeechCache(o.cacheDir, now);
  // A burst of calls must not start a thousand engines on two cores: each waits for a slot.
  const processes = new WorkGate({ concurrency: o.maxProcesses, queue: Number.POSITIVE_INFINITY });
  const workers = new SpeechWorkers(o.cacheDir, bin, {
    logger,
    buildResidentFlite:
      o.residentFliteDir !== undefined && bin.flite === 'flite'
        ? () => buildResidentFlite(o.residentFliteDir!)
        : undefined,
  });
  const costs = new SpeechCosts();
  const maker = new SpeechMaker({ options: o, bin, workers, processes, costs, logger });
  const speakers = new Speakers({ options: o, cache, maker, costs, logger, now });
  const synthesize = (text: string, options: SpeakOptions = {}) => speakers.synthesize(text, options);
  const plan = speechPlanning(o, costs, cache);
  return {
    synthesize,
    cleanup: (maxAgeDays) => cache.cleanup(maxAgeDays),
    ...plan,
    ahead: makingAhead(o, processes, synthesize),
    close: () => workers.close(),
  };
}

/** Who speaks what is asked with `options`: the operator's command unless an engine is asked for by name, else the engine and its voice (unchecked). */
function speakerOf(o: TtsSettings, options: SpeakOptions): { command: string } | { engine: TtsEngine; voice: string } {
  if (o.command !== undefined && options.engine === undefined) return { command: o.command };
  const engine = options.engine ?? o.engine;
  return { engine, voice: options.voice ?? o.voice ?? DEFAULT_VOICE[engine] };
}

/** How soon speech asked with some options will be ready, from what such speech took and what is queued. */
function speechPlanning(o: TtsSettings, costs: SpeechCosts, cache: SpeechCache) {
  /** The step and voice whose times the speech asked with `options` goes by. */
  const costKey = (options: SpeakOptions): [SpeechStep, string] => {
    const speaker = speakerOf(o, options);
    return 'command' in speaker ? ['convert', 'command'] : [speaker.engine, speaker.voice];
  };
  const expectedMakingMs = (options: SpeakOptions = {}): number => costs.expectedMs(...costKey(options));
  /** The cache key synthesize() uses for this text and options; undefined for a voice it refuses. */
  const cacheKeyOf = (text: string, options: SpeakOptions): string | undefined => {
    const speaker = speakerOf(o, options);
    if ('command' in speaker) return speechCacheKey(text, speaker.command, 'command');
    return Voice.safeParse(speaker.voice).success ? speechCacheKey(text, speaker.voice, speaker.engine) : undefined;
  };
  return {
    expectedMakingMs,
    fastestMakingMs: (options: SpeakOptions = {}): number => costs.fastestMs(...costKey(options)),
    reserve: (options: SpeakOptions = {}) => costs.queue(...costKey(options)),
    expectedReadyMs: (options: SpeakOptions = {}): number =>
      costs.queuedMs / o.maxProcesses + expectedMakingMs(options),
    progressOf: (text: string, options: SpeakOptions = {}): SpeechProgress => {
      const key = cacheKeyOf(text, options);
      return key === undefined ? 'none' : cache.progressOf(key);
    },
  };
}

/**
 * Speech asked for ahead, only while an engine is idle: at most one outstanding an engine, so a
 * call's speech asked for meanwhile waits for at most one of them an engine.
 */
function makingAhead(
  o: TtsSettings,
  processes: WorkGate,
  synthesize: (text: string, options?: SpeakOptions) => Promise<unknown>,
): Tts['ahead'] {
  let aheadOutstanding = 0;
  return (say: () => string, options: SpeakOptions = {}): Promise<void> | undefined => {
    const { running, waiting } = processes.busy;
    if (waiting > 0 || running >= o.maxProcesses || aheadOutstanding >= o.maxProcesses) return undefined;
    const text = say();
    aheadOutstanding++;
    const done = () => {
      aheadOutstanding--;
    };
    return synthesize(text, options).then(done, done);
  };
}
