// Where the data dir is, whatever folder a command is typed in. Before #38 the default was
// ./data of the current folder: a command run elsewhere found nothing (and made an empty one).
// Now: RINGHOOK_DATA_DIR when set; else a ./data that an earlier install left (with its database)
// in the current folder or beside the checkout where `npm start` ran, so that no install loses
// its accounts; else /var/lib/ringhook for root and for a system install (the systemd unit's),
// else the XDG data dir of the user.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inSingleExecutable, repoRoot } from './assets.js';

/** Where the data dir came from: said in --help, doctor, and when an earlier install's is used. */
export type DataDirOrigin = 'variable' | 'current-folder' | 'checkout' | 'system' | 'user';

export interface DataDirPlace {
  dir: string;
  origin: DataDirOrigin;
}

export const SYSTEM_DATA_DIR = '/var/lib/ringhook';
const DB_FILE = 'ringhook.db';

export interface DataDirLookup {
  env: { RINGHOOK_DATA_DIR?: string | undefined; XDG_DATA_HOME?: string | undefined; HOME?: string | undefined };
  cwd: string;
  /** This process's user id; root's default is the system's folder. */
  uid: number;
  /** The user's home when HOME is unset. */
  homedir: string;
  /** The repository's root when run from a checkout (npm start ran there); null in the single executable. */
  checkoutDir: string | null;
  /** Whether a file exists (and this user can see it). */
  exists: (file: string) => boolean;
}

/** The data dir a command opens, and why that one. */
export function findDataDir(lookup: DataDirLookup): DataDirPlace {
  const { env, cwd } = lookup;
  if (env.RINGHOOK_DATA_DIR) return { dir: path.resolve(cwd, env.RINGHOOK_DATA_DIR), origin: 'variable' };
  const here = path.resolve(cwd, 'data');
  if (lookup.exists(path.join(here, DB_FILE))) return { dir: here, origin: 'current-folder' };
  if (lookup.checkoutDir) {
    const beside = path.resolve(lookup.checkoutDir, 'data');
    if (lookup.exists(path.join(beside, DB_FILE))) return { dir: beside, origin: 'checkout' };
  }
  if (lookup.uid === 0 || lookup.exists(path.join(SYSTEM_DATA_DIR, DB_FILE)))
    return { dir: SYSTEM_DATA_DIR, origin: 'system' };
  const xdg = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : null;
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : lookup.homedir;
  return { dir: path.join(xdg ?? path.join(home, '.local', 'share'), 'ringhook'), origin: 'user' };
}

/** Why this data dir, in a few words: "RINGHOOK_DATA_DIR", "the default for root", … */
export function dataDirOriginText(origin: DataDirOrigin): string {
  switch (origin) {
    case 'variable':
      return 'from RINGHOOK_DATA_DIR';
    case 'current-folder':
      return "an earlier install's ./data in the current folder";
    case 'checkout':
      return "an earlier install's ./data beside the checkout, where npm start ran";
    case 'system':
      return 'the default for root and the systemd unit; RINGHOOK_DATA_DIR chooses another';
    case 'user':
      return 'the default for this user, under $XDG_DATA_HOME or ~/.local/share; RINGHOOK_DATA_DIR chooses another';
  }
}

/** Whether the data dir is an earlier install's ./data, found rather than chosen (said once on stderr). */
export function isEarlierInstall(origin: DataDirOrigin): boolean {
  return origin === 'current-folder' || origin === 'checkout';
}

/** The data dir for these variables and this folder, looked up on this machine (here and not in config/index.ts: --help says it without loading the configuration's schema). */
export function dataDirOf(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): { dir: string; origin: DataDirOrigin } {
  return findDataDir({
    env: { RINGHOOK_DATA_DIR: env.RINGHOOK_DATA_DIR?.trim(), XDG_DATA_HOME: env.XDG_DATA_HOME, HOME: env.HOME },
    cwd,
    uid: process.getuid?.() ?? -1,
    homedir: os.homedir(),
    checkoutDir: inSingleExecutable() ? null : repoRoot(),
    exists: (file) => fs.existsSync(file),
  });
}
