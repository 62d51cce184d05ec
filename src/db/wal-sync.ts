// The group commit's fsync off the event loop. With synchronous=FULL SQLite fsyncs the WAL inside
// COMMIT, and better-sqlite3 blocks the event loop meanwhile: no request is read during the flush.
// Instead the group's transaction commits with synchronous=NORMAL (its WAL frames written, not yet
// synced) and the WAL is fdatasync'ed on libuv's thread pool before any of its callers is answered:
// the same durability for every accepted alert, while the event loop reads the next requests.
// Checkpoints stay safe: with NORMAL, SQLite syncs the WAL before and the database after each one.
import fs from 'node:fs';
import type { Db } from './database.js';

export interface WalSync {
  /** Runs a write transaction whose commit is made durable by `flush`, not inside it. */
  deferring<T>(work: () => T): T;
  /** Resolves once everything committed so far is on disk. */
  flush(): Promise<void>;
}

const FULL = 2;

/** null when there is nothing to defer: an in-memory database, or synchronous other than FULL. */
export function walSyncFor(db: Db): WalSync | null {
  if (db.memory || db.pragma('synchronous', { simple: true }) !== FULL) return null;
  if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') return null;
  let fd: number | undefined;
  return {
    deferring(work) {
      db.pragma('synchronous = NORMAL');
      try {
        return work();
      } finally {
        db.pragma('synchronous = FULL');
      }
    },
    flush() {
      // The WAL file lives as long as a connection is open (this one), so one descriptor serves.
      fd ??= fs.openSync(`${db.name}-wal`, 'r');
      const wal = fd;
      return new Promise((resolve, reject) => fs.fdatasync(wal, (error) => (error ? reject(error) : resolve())));
    },
  };
}
