// One `serve` per data dir. Two would both dial the same queued calls, and the second's managed
// Asterisk would take over the first's.
//
// The lock is a write lock that SQLite takes on `serve.lock` (a POSIX fcntl lock): the kernel
// releases it the moment its holder dies, however it died (kill -9, the OOM killer, a power cut),
// and whatever pid the next holder gets. A pid file alone cannot tell a dead holder from a new
// process that got the same pid, which in a container (its own PID namespace) is the rule: every
// start is pid 1. An flock(2) would do the same but Node has no binding for it; a listening Unix
// socket leaves its file behind after a crash. `serve.pid` is only informative: the holder's pid,
// version and the schema its code knows (one a line; an older serve wrote only its pid), for the
// message a second start, or a newer CLI that would have migrated the database, prints.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sqliteNativeBindingOptions } from '../lib/assets.js';
import { type ServeHolder, serveHeldRefusal } from '../core/server/schema-upgrade.js';
import { UserError } from '../lib/errors.js';

const LOCK_FILE = 'serve.lock';
const PID_FILE = 'serve.pid';

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** What the serve holding the data dir recorded of itself. */
export function recordedHolder(dataDir: string): ServeHolder {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dataDir, PID_FILE), 'utf8').split('\n');
  } catch {
    return { pid: null, version: null, schema: null };
  }
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const schema = Number.parseInt(lines[2] ?? '', 10);
  return {
    pid: Number.isInteger(pid) && pid > 0 ? pid : null,
    version: lines[1]?.trim() || null,
    schema: Number.isInteger(schema) && schema > 0 ? schema : null,
  };
}

/**
 * Opens the lock file and takes its lock, waiting up to `waitMs`; 'busy' when a serve holds it.
 * A RESERVED lock, held until this process closes the file or dies: a second BEGIN IMMEDIATE, from
 * any process, answers SQLITE_BUSY. No write happens, so no journal is ever left behind.
 */
function takeLock(lockPath: string, waitMs: number): Database.Database | 'busy' {
  let lock: Database.Database;
  try {
    lock = new Database(lockPath, { ...sqliteNativeBindingOptions(), timeout: waitMs });
  } catch (error) {
    throw new UserError(`cannot open ${lockPath}: ${(error as Error).message}`);
  }
  try {
    lock.exec('BEGIN IMMEDIATE');
    return lock;
  } catch (error) {
    lock.close();
    if (isBusy(error)) return 'busy';
    throw new UserError(`cannot lock ${lockPath}: ${(error as Error).message}`);
  }
}

/**
 * The serve of a release older than the lock (v0.0.1) holds its data dir by `serve.pid` alone, a file
 * with its pid: it is there while the pid lives and is a ringhook serve (its command line says so;
 * not this process, which may have been given the pid of a serve that died in a container). A file
 * whose serve records its version is a newer serve's, which the lock speaks for.
 */
function olderServeHolds(dataDir: string): boolean {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dataDir, PID_FILE), 'utf8');
  } catch {
    return false;
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length !== 1) return false;
  const pid = Number.parseInt(lines[0]!, 10);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  let commandLine: string[];
  try {
    commandLine = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return false;
  }
  return isRinghookServe(commandLine);
}

/** `node …/bin/ringhook.js serve`, `ringhook serve` (the executable): a ringhook command whose command is serve. */
export function isRinghookServe(commandLine: readonly string[]): boolean {
  const at = commandLine.findIndex((arg) => /^ringhook(\.js)?$/.test(path.basename(arg)));
  return at >= 0 && commandLine.slice(at + 1).find((arg) => !arg.startsWith('-')) === 'serve';
}

/** Whether a `serve` holds the data dir now (the lock is taken for an instant and given back when none does). */
export function serveHolds(dataDir: string): boolean {
  if (olderServeHolds(dataDir)) return true;
  const lockPath = path.join(dataDir, LOCK_FILE);
  if (!fs.existsSync(lockPath)) return false;
  let lock: Database.Database | 'busy';
  try {
    lock = takeLock(lockPath, 0);
  } catch {
    return false;
  }
  if (lock === 'busy') return true;
  lock.close();
  return false;
}

/** The serve holding the data dir now, or null. */
export function serveHolder(dataDir: string): ServeHolder | null {
  return serveHolds(dataDir) ? recordedHolder(dataDir) : null;
}

export interface LockOwner {
  version: string;
  /** The schema version this process's code knows. */
  schema: number;
  /** The schema of the database now, when known: a refusal says the upgrade it did not do. */
  databaseSchema?: () => number | null;
}

/** Takes the data dir for this process; returns the function that gives it back. */
export function lockDataDir(dataDir: string, owner: LockOwner): () => void {
  const lockPath = path.join(dataDir, LOCK_FILE);
  // A moment's wait: `serveHolds` (ringhook test-call) takes the lock for an instant to look.
  const lock = takeLock(lockPath, 250);
  // An older serve that takes no lock (v0.0.1): its serve.pid is not to be written over.
  const olderServe = lock !== 'busy' && olderServeHolds(dataDir);
  if (olderServe) lock.close();
  if (lock === 'busy' || olderServe) {
    const current = owner.databaseSchema?.() ?? null;
    throw new UserError(
      serveHeldRefusal(dataDir, recordedHolder(dataDir), current === null ? null : { current, known: owner.schema }),
    );
  }
  try {
    fs.chmodSync(lockPath, 0o600);
  } catch (error) {
    lock.close();
    throw new UserError(`cannot open ${lockPath}: ${(error as Error).message}`);
  }
  const pidFile = path.join(dataDir, PID_FILE);
  fs.writeFileSync(`${pidFile}.tmp`, `${process.pid}\n${owner.version}\n${owner.schema}\n`, { mode: 0o600 });
  fs.renameSync(`${pidFile}.tmp`, pidFile);
  return () => {
    fs.rmSync(pidFile, { force: true });
    lock.close();
  };
}
