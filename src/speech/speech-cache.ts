// The speech files: one WAV per sha256(engine, voice, text) in the cache dir (the command line
// standing for engine and voice), made once for concurrent requests, and removed when unused for
// some days. Every call says its fixed phrases (intro, prompt): one found in the cache is taken as
// there for a few seconds without looking again (a burst made four file operations a call of them).
import { createHash } from 'node:crypto';
import { readdir, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { TtsEngine } from './engine.js';

export interface SynthesizedSpeech {
  /** Absolute path of the WAV file. */
  path: string;
  /** What to give ARI's play: sound:<path without .wav>. */
  media: string;
  durationMs: number;
  cached: boolean;
}

/** How long a phrase found in the cache is taken as still there without looking. */
const RECHECK_CACHED_MS = 5_000;
/** At most this many found phrases are remembered. */
const REMEMBERED = 1_000;
/** At most this many keys of speech made or found are remembered (for plans only: progressOf). */
const MADE_REMEMBERED = 20_000;
/** A temp dir left by a synthesis that never finished is removed after this. */
const STALE_TEMP_MS = 3_600_000;

/**
 * The cache key: sha256 over engine, voice and text (NUL-separated, so no two inputs collide).
 * For the operator's command, engine is 'command' and voice the command line.
 */
export function speechCacheKey(text: string, voice: string, engine: TtsEngine | 'command'): string {
  return createHash('sha256').update(`${engine}\0${voice}\0${text}`).digest('hex');
}

/** Duration of a 16-bit mono 8 kHz WAV from its size (sox writes a 44-byte header). */
function wavDurationMs(bytes: number): number {
  return Math.max(0, Math.round(((bytes - 44) / 16_000) * 1000));
}

/** The speech of a WAV file `bytes` long at `path`. */
export function speechFile(path: string, bytes: number, cached: boolean): SynthesizedSpeech {
  return { path, media: `sound:${path.slice(0, -4)}`, durationMs: wavDurationMs(bytes), cached };
}

/** How far this process knows a key's speech to be: made (or found), being made, or neither. */
export type SpeechProgress = 'made' | 'making' | 'none';

export class SpeechCache {
  private readonly inFlight = new Map<string, Promise<SynthesizedSpeech>>();
  private readonly recentlyFound = new Map<string, { speech: SynthesizedSpeech; at: number }>();
  /** Keys made or found since the last cleanup, oldest first. */
  private readonly made = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly now: () => number,
  ) {}

  /** The cached file for this key, or what `make` produces at the target path given (once for concurrent requests). */
  async cachedOr(key: string, make: (target: string) => Promise<SynthesizedSpeech>): Promise<SynthesizedSpeech> {
    const target = join(this.dir, `${key}.wav`);
    const known = this.recentlyFound.get(key);
    if (known && this.now() - known.at < RECHECK_CACHED_MS) return known.speech;
    try {
      const { size } = await stat(target);
      const t = new Date(this.now());
      await utimes(target, t, t).catch(() => {}); // last use, for cleanup()
      const speech = speechFile(target, size, true);
      this.remember(key, speech);
      this.rememberMade(key);
      return speech;
    } catch {
      this.recentlyFound.delete(key);
    }
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = make(target).finally(() => this.inFlight.delete(key));
      // Only a success is remembered; a failure reaches the caller through `pending` itself.
      pending.then(() => this.rememberMade(key)).catch(() => {});
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /**
   * Whether this key's file was made or found since the last cleanup, or is being made. A hint for
   * planning when a call's speech will be ready, not a promise that the file is there (cachedOr still looks).
   */
  progressOf(key: string): SpeechProgress {
    if (this.made.has(key)) return 'made';
    return this.inFlight.has(key) ? 'making' : 'none';
  }

  /** Removes cached files not used for `maxAgeDays` (and stale temp dirs); returns how many. */
  async cleanup(maxAgeDays: number): Promise<number> {
    this.recentlyFound.clear();
    this.made.clear();
    const cutoff = this.now() - maxAgeDays * 86_400_000;
    const tmpCutoff = this.now() - STALE_TEMP_MS;
    let removed = 0;
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return 0;
    }
    for (const name of names) {
      const isWav = /^[0-9a-f]{64}\.wav$/.test(name);
      const isTmp = name.startsWith('.tmp-');
      if (!isWav && !isTmp) continue;
      const path = join(this.dir, name);
      try {
        const { mtimeMs } = await stat(path);
        if (mtimeMs < (isTmp ? tmpCutoff : cutoff)) {
          await rm(path, { recursive: true, force: true });
          // Found by a call while this ran: not taken as there any more.
          if (isWav) this.recentlyFound.delete(name.slice(0, -4));
          removed++;
        }
      } catch {
        // removed meanwhile
      }
    }
    return removed;
  }

  private rememberMade(key: string): void {
    this.made.delete(key);
    this.made.add(key);
    if (this.made.size > MADE_REMEMBERED) this.made.delete(this.made.values().next().value!);
  }

  private remember(key: string, speech: SynthesizedSpeech): void {
    const at = this.now();
    if (this.recentlyFound.size >= REMEMBERED)
      for (const [k, v] of this.recentlyFound) if (at - v.at >= RECHECK_CACHED_MS) this.recentlyFound.delete(k);
    if (this.recentlyFound.size < REMEMBERED) this.recentlyFound.set(key, { speech, at });
  }
}
