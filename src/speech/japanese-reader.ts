// The Japanese dictionary (kuromoji 0.1.2 and the IPADIC it ships) that gives each kanji word its
// reading for espeak-ng's Japanese voice (core/speech-text/kanji.ts). Loaded once, on the first
// Japanese speech, and kept: about 1.5 s and 270 MB of memory (README, "Languages and voices"),
// which a server without Japanese accounts never pays. From node_modules (npm, the image) or from
// the single executable's assets; when it cannot be loaded, one log line says so and kanji are
// read from the built-in table of market words, any other said "かんじ" and noted in the history.
// kuromoji itself (~0.1 s of CPU to import) is imported on the first load too, not at serve's start.
import { createRequire } from 'node:module';
import path from 'node:path';
import sea from 'node:sea';
import { gunzip } from 'node:zlib';
import type { JapaneseReader } from '../core/speakable.js';
import type { Logger } from '../lib/log.js';

/** Where scripts/build-binary.sh puts the dictionary's files among the executable's assets. */
export const DICTIONARY_ASSETS = 'kuromoji-dict';
const FROM_ASSETS = `sea-asset:${DICTIONARY_ASSETS}`;

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
  if (setting !== 'auto') return { path: path.resolve(setting) };
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
      if (dicPath === FROM_ASSETS) await readFromAssets();
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

let assetsPatched = false;
/** Inside the single executable the files are assets, not files: kuromoji's loader reads those. */
async function readFromAssets(): Promise<void> {
  const NodeDictionaryLoader = (await import('kuromoji/src/loader/NodeDictionaryLoader.js')).default;
  if (assetsPatched) return;
  assetsPatched = true;
  const fromFiles = NodeDictionaryLoader.prototype.loadArrayBuffer;
  NodeDictionaryLoader.prototype.loadArrayBuffer = (file, callback) => {
    if (!file.startsWith(`${FROM_ASSETS}/`)) return fromFiles(file, callback);
    let raw: ArrayBuffer;
    try {
      raw = sea.getRawAsset(file.slice('sea-asset:'.length)) as ArrayBuffer;
    } catch (error) {
      return callback(error as Error);
    }
    gunzip(new Uint8Array(raw), (error, unzipped) => {
      if (error) return callback(error);
      callback(null, unzipped.buffer.slice(unzipped.byteOffset, unzipped.byteOffset + unzipped.byteLength));
    });
  };
}
