// ringhook backup FILE: a consistent copy of the database, safe while serve runs. SQLite's online
// backup is asked for every page in one step: between steps a commit by serve would restart it
// from the first page, for ever on a busy large database; one step reads one snapshot of the WAL,
// which blocks no writer.
import { defineCommand } from 'citty';
import { commandMeta } from './commands.js';
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../lib/errors.js';
import { serveHolds } from '../app/instance-lock.js';
import Database from 'better-sqlite3';
import { loadConfig } from '../config/index.js';
import { dataDirReady, missingDataDir, noteEarlierInstall } from './data-dir.js';
import { sqliteNativeBindingOptions } from '../lib/assets.js';
import { printJson } from './output.js';

export const backupCommand = defineCommand({
  meta: commandMeta('backup'),
  args: {
    file: { type: 'positional', description: 'Where the copy goes (a new file)', required: true },
    force: { type: 'boolean', description: 'Replace FILE if it exists', default: false },
    json: { type: 'boolean', description: 'Print machine-readable JSON', default: false },
  },
  run: async ({ args }) => {
    const config = loadConfig();
    if (config.databaseUrl) {
      const { redactUrl } = await (await import('../store/index.js')).loadPostgres();
      throw new UserError(
        `the database is PostgreSQL (${redactUrl(config.databaseUrl)}): back it up with its own tools, e.g. pg_dump --format=custom`,
      );
    }
    noteEarlierInstall(config);
    if (!dataDirReady(config)) throw missingDataDir(config);
    const target = path.resolve(args.file);
    if (realPath(target) === realPath(config.dbFile))
      throw new UserError('the backup must go to another file than the database itself');
    // A database whose write-ahead log holds pages is in use, or was left by a crash: SQLite
    // would replay that log onto the copy. (An empty one, left by a read-only look, is harmless.)
    // A restore goes over a stopped, clean one (README).
    if (serveHolds(path.dirname(target)) || walBytes(target) > 0)
      throw new UserError(
        `${target} is a database in use or left by a crash (its -wal holds pages); a backup never goes over one (to restore, see docs/operations.md)`,
      );
    if (fs.existsSync(target) && !args.force)
      throw new UserError(`${target} exists: choose a new file, or add --force to replace it`);
    if (!fs.existsSync(path.dirname(target))) throw new UserError(`the folder ${path.dirname(target)} does not exist`);
    // The file as it is, whatever its schema, never migrated: the copy made before an upgrade (even
    // beside a running older serve) is the database that version wrote. A copy needs no key (the
    // api_keys stay sealed in it): a database whose key is lost can be saved first.
    let db: Database.Database;
    try {
      db = new Database(config.dbFile, { ...sqliteNativeBindingOptions(), fileMustExist: true });
    } catch (error) {
      throw new UserError(`cannot open the database ${config.dbFile}: ${(error as Error).message}`);
    }
    const tmp = `${target}.${process.pid}.partial`;
    try {
      db.pragma('busy_timeout = 5000');
      // SQLite would create the copy with the umask's mode (0644 under 022) and it holds every
      // account: made here 0600 (and exclusively) before a byte goes into it.
      fs.closeSync(fs.openSync(tmp, 'wx', 0o600));
      await db.backup(tmp, {
        progress: () => ALL_PAGES,
      });
      fs.renameSync(tmp, target);
    } catch (error) {
      fs.rmSync(tmp, { force: true });
      throw new UserError(`backup failed: ${(error as Error).message}`);
    } finally {
      db.close();
    }
    const bytes = fs.statSync(target).size;
    if (args.json) printJson({ file: target, bytes });
    else process.stdout.write(`Backed up ${config.dbFile} to ${target} (${bytes} bytes).\n`);
  },
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
