// The resident flite (native/flite-resident.c): built from its source with the machine's C
// compiler when the speech workers start, into RINGHOOK_CACHE_DIR under a name that holds the
// source's hash (a changed source is built again), and tried once before it is used. Without a
// compiler, or where it cannot be built or run, flite runs as a new process per message: the same
// speech for more CPU.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { access, constants, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readAsset } from '../lib/assets.js';
import { FLITE_VOICES } from '../core/speech/flite-voices.js';

/** flite's built-in voices, each a library of its own (libflite_cmu_us_<voice>.so.1). */
export const RESIDENT_FLITE_VOICES: ReadonlySet<string> = new Set(FLITE_VOICES);

const BUILD_TIMEOUT_MS = 60_000;
const TRY_TIMEOUT_MS = 10_000;

export interface ResidentFliteBuild {
  /** The C source; the repository's (or the executable's) native/flite-resident.c by default. */
  source?: string;
  /** The C compiler. */
  compiler?: string;
}

/** The path of the program, built if need be and tried; rejects saying why it cannot be used. */
export async function buildResidentFlite(cacheDir: string, build: ResidentFliteBuild = {}): Promise<string> {
  const source = build.source ?? readAsset('native/flite-resident.c');
  const target = join(cacheDir, `flite-resident-${createHash('sha256').update(source).digest('hex').slice(0, 16)}`);
  const built = await access(target, constants.X_OK).then(
    () => true,
    () => false,
  );
  if (!built) await compile(source, target, build.compiler ?? 'cc');
  // With no job on its stdin it only opens libflite: a cache dir mounted noexec, or no libflite, shows here.
  await run(target, [], TRY_TIMEOUT_MS, 'it could not be run');
  return target;
}

async function compile(source: string, target: string, compiler: string): Promise<void> {
  const dir = join(target, '..');
  const scratch = join(dir, `.tmp-${randomBytes(6).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  try {
    await writeFile(`${scratch}.c`, source);
    // -ldl: dlopen is in libdl before glibc 2.34 (Debian 11, Ubuntu 20.04).
    await run(
      compiler,
      ['-O2', '-o', scratch, `${scratch}.c`, '-ldl'],
      BUILD_TIMEOUT_MS,
      `${compiler} failed`,
      `no C compiler (${compiler}) to build it`,
    );
    await rename(scratch, target);
  } finally {
    await rm(`${scratch}.c`, { force: true });
    await rm(scratch, { force: true });
  }
}

function run(file: string, args: string[], timeoutMs: number, failed: string, missing = failed): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { timeout: timeoutMs }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return reject(new Error(missing));
      reject(new Error(`${failed}: ${stderr.trim().slice(0, 300) || error.message}`));
    });
    child.stdin?.end();
  });
}
