// SQLite copies its write-ahead log back into the database file (a checkpoint) in the connection
// whose commit filled the log past 1,000 pages: serve's, on the event loop, in the middle of an
// alert's answer (thousands of page reads and writes and two fsyncs: the p99 of the webhook).
// serve moves that work to a thread of its own with its own connection; its connection keeps an
// auto-checkpoint far above what the thread leaves, as a backstop (the thread stopped, or the log
// never quite caught up under a steady stream of commits: then one short catch-up lets the log
// start over). Inside the single executable (no addon file for a thread) and from the TypeScript
// sources (tests: no compiled thread), SQLite's own stays.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { inSingleExecutable } from '../../lib/assets.js';
import type { Db } from './connect.js';

/** How often the thread checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 100;
/** serve's own auto-checkpoint (pages of the log) while the thread runs: the backstop. */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 8000;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(db: Db, sync: 'normal' | 'full'): Checkpointer | null {
  const script = new URL('./checkpoint-worker.js', import.meta.url);
  if (inSingleExecutable() || db.memory || !fs.existsSync(fileURLToPath(script))) return null;
  const worker = new Worker(script, {
    workerData: { file: db.name, sync: sync === 'normal' ? 'NORMAL' : 'FULL', intervalMs: CHECKPOINT_INTERVAL_MS },
  });
  // Never keeps the process alive; a thread that dies leaves the backstop below (and SQLite's own default once stopped).
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', () => db.open && db.pragma('wal_autocheckpoint = 1000'));
  db.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
  return {
    async stop() {
      // Waited for, the thread must keep the process alive: with nothing else left to do, Node
      // would otherwise end the process while serve still awaits its stop (exit code 13).
      worker.ref();
      worker.postMessage('stop');
      await exited;
      if (db.open) db.pragma('wal_autocheckpoint = 1000');
    },
  };
}
