// One `serve` per data dir. Two would both dial the same queued calls, and the second's managed
// Asterisk would take over the first's.
//
// The lock is a write lock that SQLite takes on `serve.lock` (a POSIX fcntl lock): the kernel
// releases it the moment its holder dies, however it died (kill -9, the OOM killer, a power cut),
// and whatever pid the next holder gets. A pid file alone cannot tell a dead holder from a new
// process that got the same pid, which in a container (its own PID namespace) is the rule: every
// start is pid 1. An flock(2) would do the same but Node has no binding for it; a listening Unix
// socket leaves its file behind after a crash. `serve.pid` is only informative: the holder's pid,
// for the message a second start prints.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sqliteNativeBindingOptions } from './assets.js';
import { UserError } from './errors.js';

const LOCK_FILE = 'serve.lock';
const PID_FILE = 'serve.pid';

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

function holderPid(dataDir: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(path.join(dataDir, PID_FILE), 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Whether a `serve` holds the data dir now (the lock is taken for an instant and given back when none does). */
export function serveHolds(dataDir: string): boolean {
  const lockPath = path.join(dataDir, LOCK_FILE);
  if (!fs.existsSync(lockPath)) return false;
  let lock: Database.Database | undefined;
  try {
    lock = new Database(lockPath, { ...sqliteNativeBindingOptions(), timeout: 0 });
    lock.exec('BEGIN IMMEDIATE');
    lock.exec('ROLLBACK');
    return false;
  } catch (error) {
    return isBusy(error);
  } finally {
    lock?.close();
  }
}

/** Takes the data dir for this process; returns the function that gives it back. */
export function lockDataDir(dataDir: string): () => void {
  const lockPath = path.join(dataDir, LOCK_FILE);
  let lock: Database.Database;
  try {
    // A moment's wait: `serveHolds` (ringhook test-call) takes the lock for an instant to look.
    lock = new Database(lockPath, { ...sqliteNativeBindingOptions(), timeout: 250 });
    fs.chmodSync(lockPath, 0o600);
  } catch (error) {
    throw new UserError(`cannot open ${lockPath}: ${(error as Error).message}`);
  }
  try {
    // A RESERVED lock, held until this process closes the file or dies: a second BEGIN IMMEDIATE,
    // from any process, answers SQLITE_BUSY. No write happens, so no journal is ever left behind.
    lock.exec('BEGIN IMMEDIATE');
  } catch (error) {
    lock.close();
    if (!isBusy(error)) throw new UserError(`cannot lock ${lockPath}: ${(error as Error).message}`);
    const pid = holderPid(dataDir);
    const holder = pid === null ? 'another ringhook serve' : `another ringhook serve (pid ${pid})`;
    throw new UserError(`${holder} is using the data dir ${dataDir}: stop it first, or give this one its own RINGHOOK_DATA_DIR`);
  }
  const pidFile = path.join(dataDir, PID_FILE);
  fs.writeFileSync(`${pidFile}.tmp`, `${process.pid}\n`, { mode: 0o600 });
  fs.renameSync(`${pidFile}.tmp`, pidFile);
  return () => {
    fs.rmSync(pidFile, { force: true });
    lock.close();
  };
}
