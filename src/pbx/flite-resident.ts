// The resident flite (native/flite-resident.c): built from its source with the machine's C
// compiler the first time speech asks for it, into the speech cache dir under a name that holds
// the source's hash (a changed source is built again). Without a compiler, or where the build
// fails, flite runs as a new process per message, as before: slower, the same speech.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { access, constants, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readAsset } from '../assets.js';

/** flite's built-in voices, each a library of its own (libflite_cmu_us_<voice>.so.1). */
export const RESIDENT_FLITE_VOICES: ReadonlySet<string> = new Set(['kal', 'kal16', 'awb', 'rms', 'slt']);

const BUILD_TIMEOUT_MS = 60_000;

export interface ResidentFliteBuild {
  /** The C source; the repository's (or the executable's) native/flite-resident.c by default. */
  source?: string;
  /** The C compiler. */
  compiler?: string;
}

/** The path of the built program; rejects with the compiler's words when it cannot be built. */
export async function buildResidentFlite(cacheDir: string, build: ResidentFliteBuild = {}): Promise<string> {
  const source = build.source ?? readAsset('native/flite-resident.c');
  const target = join(cacheDir, `flite-resident-${createHash('sha256').update(source).digest('hex').slice(0, 16)}`);
  try {
    await access(target, constants.X_OK);
    return target;
  } catch {
    // not built yet
  }
  const scratch = join(cacheDir, `.tmp-${randomBytes(6).toString('hex')}`);
  await mkdir(cacheDir, { recursive: true });
  try {
    await writeFile(`${scratch}.c`, source);
    await compile(build.compiler ?? 'cc', ['-O2', '-o', scratch, `${scratch}.c`]);
    await rename(scratch, target);
    return target;
  } finally {
    await rm(`${scratch}.c`, { force: true });
    await rm(scratch, { force: true });
  }
}

function compile(compiler: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(compiler, args, { timeout: BUILD_TIMEOUT_MS }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      reject(new Error(missing ? `no C compiler (${compiler}) to build it` : `${compiler} failed: ${stderr.trim().slice(0, 300) || error.message}`));
    });
  });
}
