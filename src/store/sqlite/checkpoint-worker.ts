// The checkpointer's thread (see checkpointer.ts): its own connection to the database, copying
// the write-ahead log back into the database file every few milliseconds, PASSIVE (it never
// waits for nor blocks a writer). Told "stop", it checkpoints once more and closes.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, sync, intervalMs } = workerData as { file: string; sync: 'FULL' | 'NORMAL'; intervalMs: number };
const db = new Database(file, { fileMustExist: true });
// The checkpoint syncs the log before copying it and the database after, as serve's own would.
db.pragma(`synchronous = ${sync}`);
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

function run(): void {
  try {
    checkpoint.get();
  } catch {
    // Busy or failed: the next round tries again, and serve's own auto-checkpoint is the backstop.
  }
}

const timer = setInterval(run, intervalMs);
parentPort!.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  run();
  db.close();
  parentPort!.close();
});
