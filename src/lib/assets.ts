// Files ringhook reads at run time: from the repository (npm start, tests) or, inside the single
// executable (scripts/build-binary.sh), from the assets that Node's SEA support carries in it.
// Nothing here runs at import time.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sea from 'node:sea';
import { fileURLToPath } from 'node:url';

/** The asset key of the better-sqlite3 addon inside the executable. */
export const SQLITE_ADDON_ASSET = 'better_sqlite3.node';

/** True inside the single executable. */
export function inSingleExecutable(): boolean {
  return sea.isSea();
}

/** The repository root: two levels above src/lib/ and dist/lib/. Not used inside the executable. */
export function repoRoot(): string {
  return fileURLToPath(new URL('../..', import.meta.url));
}

/** A text file by its path relative to the repository root, e.g. "asterisk/pjsip.conf". */
export function readAsset(relativePath: string): string {
  if (sea.isSea()) {
    try {
      return sea.getAsset(relativePath, 'utf8');
    } catch {
      throw new Error(
        `the file ${relativePath} is not inside this ringhook executable (rebuild it with npm run build:binary)`,
      );
    }
  }
  return fs.readFileSync(path.join(repoRoot(), relativePath), 'utf8');
}

let sqliteAddon: object | undefined;

/**
 * better-sqlite3's options for the native addon: none from the repository (the package finds its
 * own build), inside the executable the addon object itself (better-sqlite3 accepts it, though
 * its type declarations only mention a path).
 */
export function sqliteNativeBindingOptions(): { nativeBinding?: string } {
  if (!sea.isSea()) return {};
  return { nativeBinding: loadSqliteAddon() as unknown as string };
}

/**
 * The addon carried as an asset, written once to a cache folder named by its SHA-256 and loaded
 * with process.dlopen (a shared object must be a file to be loaded).
 */
function loadSqliteAddon(): object {
  if (sqliteAddon) return sqliteAddon;
  const bytes = Buffer.from(sea.getRawAsset(SQLITE_ADDON_ASSET) as ArrayBuffer);
  const hash = createHash('sha256').update(bytes).digest('hex');
  const errors: string[] = [];
  for (const dir of addonDirs()) {
    try {
      const file = writeAddon(path.join(dir, 'native', hash.slice(0, 16)), bytes, hash);
      const module = { exports: {} as object };
      process.dlopen(module, file);
      sqliteAddon = module.exports;
      return sqliteAddon;
    } catch (error) {
      errors.push(`${dir}: ${(error as Error).message}`);
    }
  }
  throw new Error(
    `cannot load the SQLite addon carried in this executable (set RINGHOOK_CACHE_DIR to a writable folder): ${errors.join('; ')}`,
  );
}

/** Where the addon may be written, best first. */
function addonDirs(): string[] {
  const env = process.env;
  const dirs: string[] = [];
  if (env.RINGHOOK_CACHE_DIR) dirs.push(path.resolve(env.RINGHOOK_CACHE_DIR));
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) dirs.push(path.join(env.XDG_CACHE_HOME, 'ringhook'));
  try {
    dirs.push(path.join(env.HOME || os.homedir(), '.cache', 'ringhook'));
  } catch {
    // No home directory for this user (os.homedir throws): the temporary folder below.
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  dirs.push(path.join(os.tmpdir(), `ringhook-${uid}`));
  return [...new Set(dirs)];
}

/**
 * Writes the addon to dir/better_sqlite3.node unless a file with the same hash is there. The
 * folder must be ours and closed to others, so that nobody can swap the file before dlopen.
 */
function writeAddon(dir: string, bytes: Buffer, hash: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The folder and its two parents of ours (…/ringhook/native/<hash>) must be closed to others.
  for (const d of [dir, path.dirname(dir), path.dirname(path.dirname(dir))]) {
    const st = fs.lstatSync(d);
    const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0) {
      throw new Error(`${d} must be a folder of this user that others cannot write to`);
    }
  }
  const file = path.join(dir, 'better_sqlite3.node');
  try {
    if (createHash('sha256').update(fs.readFileSync(file)).digest('hex') === hash) return file;
  } catch {
    // Not written yet.
  }
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, bytes, { mode: 0o700 });
  fs.renameSync(tmp, file);
  return file;
}
