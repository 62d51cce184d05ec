// What a command says about its data dir: which one (in --help and doctor), that it is an earlier
// install's ./data (once), that it made a new one; and a command that only reads refuses a data dir
// that is not there instead of making an empty one.
import fs from 'node:fs';
import type { Config } from '../config/index.js';
import { dataDirOf, dataDirOriginText, isEarlierInstall } from '../lib/data-dir.js';
import { UserError } from '../lib/errors.js';

type DataDirConfig = Pick<Config, 'dataDir' | 'dataDirOrigin' | 'dbFile' | 'databaseUrl'>;

let earlierInstallSaid = false;

/** "the data dir /x (why this one)". */
export function dataDirText(config: Pick<Config, 'dataDir' | 'dataDirOrigin'>): string {
  return `${config.dataDir} (${dataDirOriginText(config.dataDirOrigin)})`;
}

/** An earlier install's ./data is used: said once on stderr, with how to keep it or move it. */
export function noteEarlierInstall(config: Pick<Config, 'dataDir' | 'dataDirOrigin'>): void {
  if (earlierInstallSaid || !isEarlierInstall(config.dataDirOrigin)) return;
  earlierInstallSaid = true;
  process.stderr.write(
    `ringhook: using the data dir of an earlier install, ${config.dataDir} (${dataDirOriginText(config.dataDirOrigin)}); set RINGHOOK_DATA_DIR=${config.dataDir} to keep it wherever you run ringhook\n`,
  );
}

/** Whether the data dir holds a database (SQLite), or needs none here (PostgreSQL). */
export function dataDirReady(config: DataDirConfig): boolean {
  return config.databaseUrl ? true : fs.existsSync(config.dbFile);
}

/** The refusal of a command that reads a data dir that is not there (nothing is made). */
export function missingDataDir(config: DataDirConfig): UserError {
  if (fs.existsSync(config.dataDir) && !fs.statSync(config.dataDir).isDirectory())
    return new UserError(
      `the data dir ${config.dataDir} (${dataDirOriginText(config.dataDirOrigin)}) is a file, not a folder: set RINGHOOK_DATA_DIR to serve's data dir`,
    );
  const what = fs.existsSync(config.dataDir)
    ? `no database in the data dir ${config.dataDir}`
    : `no data dir at ${config.dataDir}`;
  return new UserError(
    `${what} (${dataDirOriginText(config.dataDirOrigin)}): nothing made, nothing to read. Set RINGHOOK_DATA_DIR to serve's data dir, or make this one with ringhook account create`,
  );
}

/** Before a command that may make the data dir opens it: the line to say once it is made, or null. */
export function creationNotice(config: DataDirConfig): string | null {
  if (dataDirReady(config) && fs.existsSync(config.dataDir)) return null;
  return `ringhook: made the data dir ${dataDirText(config)}\n`;
}

/** Commands that open no data dir: their --help names none. */
const WITHOUT_DATA_DIR = new Set(['say', 'provision', 'sms-test', 'install-cli']);

/** The line --help ends with, for a command that opens a data dir (`names`: the command's path). */
export function helpDataDirLine(names: readonly string[]): string | null {
  if (names[0] && WITHOUT_DATA_DIR.has(names[0])) return null;
  const { dir, origin } = dataDirOf();
  return `Data dir: ${dir} (${dataDirOriginText(origin)})\n`;
}
