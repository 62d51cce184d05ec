// The Japanese dictionary (kuromoji 0.1.2 and the IPADIC it ships) that gives each kanji word its
// reading for espeak-ng's Japanese voice (core/speech/speech-text/kanji.ts). Loaded once, on the first
// Japanese speech, and kept: about 1.5 s and 270 MB of memory (README, "Languages and voices"),
// which a server without Japanese accounts never pays. From node_modules (npm, the image) or from
// the single executable's assets; when it cannot be loaded, one log line says so and kanji are
// read from the built-in table of market words, any other said "かんじ" and noted in the history.
// kuromoji itself (~0.1 s of CPU to import) is imported on the first load too, not at serve's start.
// A folder of the operator's (RINGHOOK_JA_DICTIONARY) is checked first (speech/dictionary-folder.ts),
// and every file, wherever it comes from, is read within a bound: a compressed file that expanded
// without one took serve from 63 to 1,297 MiB and was reported loaded (fourth review, #51).
import { createRequire } from 'node:module';
import path from 'node:path';
import sea from 'node:sea';
import fs from 'node:fs/promises';
import { gunzip } from 'node:zlib';
import type { JapaneseReader } from '../core/speech/speakable.js';
import type { Logger } from '../lib/log.js';
import { checkDictionaryFolder } from './dictionary-folder.js';

/** Where scripts/build-binary.sh puts the dictionary's files among the executable's assets. */
export const DICTIONARY_ASSETS = 'kuromoji-dict';
const FROM_ASSETS = `sea-asset:${DICTIONARY_ASSETS}`;
/**
 * The most one dictionary file may hold, compressed or expanded, and all of them expanded: IPADIC's
 * largest (tid_pos.dat) expands to 40 MiB; its 12 files together to 96 MiB.
 */
export const DICTIONARY_FILE_MAX_BYTES = 64 * 1024 * 1024;
export const DICTIONARY_MAX_BYTES = 128 * 1024 * 1024;

export interface JapaneseDictionary {
  /** The reader, the dictionary loaded the first time (once, however many ask); undefined when it cannot be. */
  load(): Promise<JapaneseReader | undefined>;
  /** The reader if loaded already, without waiting; asks for the load otherwise. */
  loadedOrLoad(): JapaneseReader | undefined;
}

export interface JapaneseDictionaryDeps {
  /** RINGHOOK_JA_DICTIONARY: `auto` (node_modules, or the executable's assets), `off`, or a folder of kuromoji's .dat.gz files. */
  setting: string;
  logger: Pick<Logger, 'info' | 'warn'>;
  now?: () => number;
}

/** Where the dictionary is read from for this setting, or why there is none. */
export function dictionaryPath(setting: string): { path: string } | { none: string } {
  if (setting === 'off') return { none: 'RINGHOOK_JA_DICTIONARY is off' };
  if (setting !== 'auto') {
    try {
      return { path: checkDictionaryFolder(setting) };
    } catch (error) {
      return { none: (error as Error).message };
    }
  }
  if (sea.isSea()) {
    try {
      sea.getRawAsset(`${DICTIONARY_ASSETS}/base.dat.gz`);
      return { path: FROM_ASSETS };
    } catch {
      return { none: 'this executable was built without it (set RINGHOOK_JA_DICTIONARY to a folder of its files)' };
    }
  }
  try {
    const pkg = createRequire(import.meta.url).resolve('kuromoji/package.json');
    return { path: path.join(path.dirname(pkg), 'dict') };
  } catch {
    return { none: 'the kuromoji package is not installed' };
  }
}

export function japaneseDictionary(deps: JapaneseDictionaryDeps): JapaneseDictionary {
  const now = deps.now ?? (() => performance.now());
  let loading: Promise<JapaneseReader | undefined> | undefined;
  let reader: JapaneseReader | undefined;
  const fallback = 'kanji are read from the built-in table of market words, any other said "かんじ" and noted';
  const build = async (dicPath: string): Promise<JapaneseReader | undefined> => {
    const started = now();
    let kuromoji: typeof import('kuromoji');
    try {
      kuromoji = (await import('kuromoji')).default;
      await boundLoader();
    } catch (error) {
      deps.logger.warn(`the Japanese dictionary could not be loaded: ${(error as Error).message}; ${fallback}`);
      return undefined;
    }
    return new Promise((resolve) => {
      kuromoji.builder({ dicPath }).build((error, tokenizer) => {
        if (error) {
          deps.logger.warn(
            `the Japanese dictionary could not be loaded from ${dicPath}: ${error.message}; ${fallback}`,
          );
          resolve(undefined);
          return;
        }
        reader = (text) => tokenizer.tokenize(text).map((t) => ({ surface: t.surface_form, reading: t.reading }));
        deps.logger.info('Japanese dictionary loaded', { ms: Math.round(now() - started), from: dicPath });
        resolve(reader);
      });
    });
  };
  const load = () => {
    loading ??= (async () => {
      const where = dictionaryPath(deps.setting);
      if ('none' in where) {
        deps.logger.warn(`no Japanese dictionary: ${where.none}; ${fallback}`);
        return undefined;
      }
      return build(where.path);
    })();
    return loading;
  };
  return {
    load,
    loadedOrLoad: () => {
      if (!reader) void load();
      return reader;
    },
  };
}

let loaderBound = false;
/** The files are expanded one at a time (kuromoji asks for all at once), within what is left of the total. */
let expanding: Promise<unknown> = Promise.resolve();
let expandedBytes = 0;
/**
 * kuromoji's file loader, replaced: each file read and expanded within DICTIONARY_FILE_MAX_BYTES and
 * the whole within DICTIONARY_MAX_BYTES (kuromoji's own reads the whole file and gunzips it without a
 * bound), from the folder or, inside the single executable, from its assets. Called once per load.
 */
async function boundLoader(): Promise<void> {
  const NodeDictionaryLoader = (await import('kuromoji/src/loader/NodeDictionaryLoader.js')).default;
  expandedBytes = 0;
  if (loaderBound) return;
  loaderBound = true;
  NodeDictionaryLoader.prototype.loadArrayBuffer = (file, callback) => {
    const name = path.basename(file);
    const expand = () =>
      readCompressed(file)
        .then((raw) => {
          const left = DICTIONARY_MAX_BYTES - expandedBytes;
          const bound = Math.min(DICTIONARY_FILE_MAX_BYTES, left);
          return new Promise<ArrayBuffer>((resolve, reject) =>
            gunzip(raw, { maxOutputLength: Math.max(bound, 1) }, (error, unzipped) => {
              if ((error as NodeJS.ErrnoException | null)?.code === 'ERR_BUFFER_TOO_LARGE')
                return reject(
                  bound < DICTIONARY_FILE_MAX_BYTES
                    ? new Error(
                        `the dictionary's files expand to more than ${DICTIONARY_MAX_BYTES / 1024 / 1024} MiB together (at ${name}), more than any dictionary`,
                      )
                    : tooLarge(name, 'expands to'),
                );
              if (error) return reject(error);
              expandedBytes += unzipped.byteLength;
              resolve(unzipped.buffer.slice(unzipped.byteOffset, unzipped.byteOffset + unzipped.byteLength));
            }),
          );
        })
        .then(
          (buffer) => callback(null, buffer),
          (error: Error) => callback(error),
        );
    // After the one before, however it ended.
    expanding = expanding.then(expand, expand);
  };
}

const tooLarge = (name: string, how: string) =>
  new Error(
    `${name} ${how} more than ${DICTIONARY_FILE_MAX_BYTES / 1024 / 1024} MiB, more than any dictionary file (a compressed file that expands without bound is refused)`,
  );

async function readCompressed(file: string): Promise<Uint8Array> {
  if (file.startsWith(`${FROM_ASSETS}/`))
    return new Uint8Array(sea.getRawAsset(file.slice('sea-asset:'.length)) as ArrayBuffer);
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > DICTIONARY_FILE_MAX_BYTES) throw tooLarge(path.basename(file), 'holds');
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
