// ringhook backup FILE: a consistent copy of the database, safe while serve runs. SQLite's online
// backup is asked for every page in one step: between steps a commit by serve would restart it
// from the first page, for ever on a busy large database; one step reads one snapshot of the WAL,
// which blocks no writer.
import { defineCommand } from 'citty';
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../lib/errors.js';
import { serveHolds } from '../app/instance-lock.js';
import { isSqlite } from '../store/sqlite/sqlite-store.js';
import { withStores } from './context.js';
import { printJson } from './output.js';

export const backupCommand = defineCommand({
  meta: { name: 'backup', description: 'Copy the database to FILE (safe while serve runs)' },
  args: {
    file: { type: 'positional', description: 'Where the copy goes (a new file)', required: true },
    force: { type: 'boolean', description: 'Replace FILE if it exists', default: false },
    json: { type: 'boolean', description: 'Print machine-readable JSON', default: false },
  },
  run: ({ args }) =>
    withStores(
      async (store, config) => {
        if (!isSqlite(store))
          throw new UserError(`the database is PostgreSQL (${store.location}): back it up with its own tools, e.g. pg_dump --format=custom`);
        const stores = store;
        const target = path.resolve(args.file);
        if (realPath(target) === realPath(config.dbFile)) throw new UserError('the backup must go to another file than the database itself');
        // A database whose write-ahead log holds pages is in use, or was left by a crash: SQLite
        // would replay that log onto the copy. (An empty one, left by a read-only look, is harmless.)
        // A restore goes over a stopped, clean one (README).
        if (serveHolds(path.dirname(target)) || walBytes(target) > 0)
          throw new UserError(
            `${target} is a database in use or left by a crash (its -wal holds pages); a backup never goes over one (to restore, see the README)`,
          );
        if (fs.existsSync(target) && !args.force) throw new UserError(`${target} exists: choose a new file, or add --force to replace it`);
        if (!fs.existsSync(path.dirname(target))) throw new UserError(`the folder ${path.dirname(target)} does not exist`);
        const tmp = `${target}.${process.pid}.partial`;
        try {
          // SQLite would create the copy with the umask's mode (0644 under 022) and it holds every
          // account: made here 0600 (and exclusively) before a byte goes into it.
          fs.closeSync(fs.openSync(tmp, 'wx', 0o600));
          await stores.db.backup(tmp, {
            progress: () => ALL_PAGES,
          });
          fs.renameSync(tmp, target);
        } catch (error) {
          fs.rmSync(tmp, { force: true });
          throw new UserError(`backup failed: ${(error as Error).message}`);
        }
        const bytes = fs.statSync(target).size;
        if (args.json) printJson({ file: target, bytes });
        else process.stdout.write(`Backed up ${config.dbFile} to ${target} (${bytes} bytes).\n`);
      },
      // A copy needs no key (the api_keys stay sealed in it): a database whose key is lost can be saved first.
      { lostSecretKey: true, mustExist: true },
    ),
});

function walBytes(database: string): number {
  try {
    return fs.statSync(`${database}-wal`).size;
  } catch {
    return 0;
  }
}

function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** The most pages SQLite's backup copies in one step: all of them. */
const ALL_PAGES = 0x7fffffff;
