// What the speech module takes and gives: its options (checked), its interface and its errors.
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import type { TtsEngine } from './engine.js';
import type { SpeechProgress, SynthesizedSpeech } from './speech-cache.js';

export type TtsErrorCode = 'engine_missing' | 'engine_failed' | 'invalid_input';

export class TtsError extends Error {
  override readonly name = 'TtsError';
  constructor(
    readonly code: TtsErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const TtsOptions = z.object({
  cacheDir: z.string().startsWith('/', 'must be an absolute path'),
  engine: z.enum(['flite', 'espeak-ng']).default('flite'),
  /** The configured engine's voice. flite: kal, kal16, awb, rms, slt (or a .flitevox path); espeak-ng: en-us, en, de… */
  voice: z.string().optional(),
  timeoutMs: z.number().int().positive().default(20_000),
  /** A command line that reads the text on stdin and writes a WAV on stdout; unset: the built-in engine. */
  command: z.string().min(1).optional(),
  commandTimeoutMs: z.number().int().positive().default(10_000),
  commandMaxBytes: z
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  /** After a failure the command rests this long, so that a broken engine does not delay every call. */
  commandRestMs: z.number().int().nonnegative().default(60_000),
  /** Speech processes at once (engine + sox); more wait their turn in the order asked (dial order). */
  maxProcesses: z.number().int().positive().default(availableParallelism()),
  /**
   * Where the resident flite is built (RINGHOOK_CACHE_DIR): flite's built-in voices then run in
   * resident processes (flite-resident.ts). Unset, or a flite of the operator's: a process per message.
   */
  residentFliteDir: z.string().startsWith('/', 'must be an absolute path').optional(),
  /** Each speech file's mode: readable by the Asterisk that plays it only (core/speech/media-modes.ts). */
  fileMode: z.number().int().min(0).max(0o777).default(0o600),
  binaries: z
    .object({ flite: z.string(), espeakNg: z.string(), text2wave: z.string(), sox: z.string() })
    .partial()
    .default({}),
});
export type TtsOptionsInput = z.input<typeof TtsOptions>;
/** The options with their defaults filled in. */
export type TtsSettings = z.output<typeof TtsOptions>;

// Not argv-safe otherwise: a voice starting with '-' would be read as an option.
export const Voice = z
  .string()
  .regex(/^[A-Za-z0-9_./+-]{1,200}$/)
  .refine((v) => !v.startsWith('-'), {
    message: 'must not start with -',
  });

export interface Tts {
  synthesize(text: string, options?: { engine?: TtsEngine; voice?: string }): Promise<SynthesizedSpeech>;
  /** Removes cached files not used for `maxAgeDays` (and stale temp dirs); returns how many. */
  cleanup(maxAgeDays: number): Promise<number>;
  /**
   * In how many ms speech asked for now in this voice would be ready: the work queued before it
   * shared by the engines, plus its own making (estimates from the recent syntheses).
   */
  expectedReadyMs(options?: { engine?: TtsEngine; voice?: string }): number;
  /** Of which its own making: what a message in this voice took lately, alone. */
  expectedMakingMs(options?: { engine?: TtsEngine; voice?: string }): number;
  /** The quickest a message in this voice was made: its cost in itself, to compare voices by. */
  fastestMakingMs(options?: { engine?: TtsEngine; voice?: string }): number;
  /**
   * Counts a message planned in this voice and not asked for yet as queued, so that the calls
   * planned meanwhile see it; the returned function takes it back (call it when the message is
   * asked for, or not needed after all).
   */
  reserve(options?: { engine?: TtsEngine; voice?: string }): () => void;
  /**
   * Makes speech ahead of its call, only when an engine is free and no speech asked for waits for
   * one; undefined (nothing started, `say` not called) otherwise. `say` gives the text. Settles when
   * made, or when it could not be (never rejects: the call asks again and hears why).
   */
  ahead(say: () => string, options?: { engine?: TtsEngine; voice?: string }): Promise<void> | undefined;
  /**
   * The speech of this text in this voice: 'made' (or found) by this process and not cleaned up
   * since, 'making' now, or 'none' of those. A hint for plans (synthesize still looks for the file).
   */
  progressOf(text: string, options?: { engine?: TtsEngine; voice?: string }): SpeechProgress;
  /** Stops the resident speech processes (speech asked for later starts them again). */
  close(): void;
}
