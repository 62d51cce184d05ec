// The calling side's writes while another process holds the database's write lock: on real SQLite
// files, the lock taken by a second connection (what the CLI or a backup tool does).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/store/sqlite/connect.js';
import { SqliteCallWrites } from '../../src/store/sqlite/writes.js';
import { silentLogger } from '../../src/lib/log.js';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function setup(): { db: Db; file: string; rows: () => string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-writes-'));
  const file = path.join(dir, 'ringhook.db');
  const db = openDatabase(file, { sync: 'normal' });
  db.exec('CREATE TABLE steps (id INTEGER PRIMARY KEY, what TEXT NOT NULL)');
  open.push(db);
  return {
    db,
    file,
    rows: () => (db.prepare('SELECT what FROM steps ORDER BY id').all() as Array<{ what: string }>).map((r) => r.what),
  };
}

/** A second connection that takes the write lock, as `sqlite3 ringhook.db 'BEGIN IMMEDIATE'` would. */
function lockFrom(file: string): { release(): void } {
  const other = new Database(file);
  open.push(other);
  other.exec('BEGIN IMMEDIATE');
  return { release: () => other.exec('COMMIT') };
}

const insert = (db: Db, what: string) => () => db.prepare('INSERT INTO steps (what) VALUES (?)').run(what).changes;

describe('SqliteCallWrites', () => {
  it('the writes of one turn land together, in order, in one commit, before any of them is answered', async () => {
    const { db, rows, file } = setup();
    // A turn's budget the three writes always fit (10 ms, the default, was passed by their statements'
    // first compilation beside a loaded suite: two commits, #53).
    const writes = new SqliteCallWrites(db, silentLogger, { turnBudgetMs: 1_000 });
    // Another connection sees the database's version move once per commit.
    const other = new Database(file, { readonly: true });
    open.push(other);
    const version = () => other.pragma('data_version', { simple: true }) as number;
    const before = version();
    const seen: string[][] = [];
    const done = ['a', 'b', 'c'].map((what) =>
      writes.write(what, insert(db, what)).then((n) => (seen.push(rows()), n)),
    );
    expect(rows()).toEqual([]);
    expect(writes.waiting).toBe(3);
    await expect(Promise.all(done)).resolves.toEqual([1, 1, 1]);
    expect(seen).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
    ]);
    expect(version()).toBe(before + 1);
    expect(writes.waiting).toBe(0);
  });

  it('right after a commit, writes nothing waits for wait for the spacing and land in one commit; one waited for takes them along at once', async () => {
    const { db, rows, file } = setup();
    const writes = new SqliteCallWrites(db, silentLogger, { spacingMs: 300 });
    const other = new Database(file, { readonly: true });
    open.push(other);
    const version = () => other.pragma('data_version', { simple: true }) as number;
    // A turn as the writes count one: a timer's (a write lands after the loop's timers, #51).
    const nextTurn = () => new Promise((r) => setTimeout(r, 0));
    await writes.write('a', insert(db, 'a'));
    const afterFirst = version();
    const lazy: Array<Promise<number>> = [];
    for (const what of ['b', 'c', 'd']) {
      lazy.push(writes.write(what, insert(db, what), { lazy: true }));
      await nextTurn();
    }
    expect(rows()).toEqual(['a']);
    await Promise.all(lazy);
    expect(rows()).toEqual(['a', 'b', 'c', 'd']);
    expect(version()).toBe(afterFirst + 1);
    // Right after that commit: a lazy write waits, and one waited for takes it along in the next turn.
    const waiting = writes.write('e', insert(db, 'e'), { lazy: true });
    await nextTurn();
    expect(rows()).toEqual(['a', 'b', 'c', 'd']);
    let landed = false;
    const urgent = writes.write('f', insert(db, 'f')).then(() => (landed = true));
    await nextTurn();
    await nextTurn();
    expect(landed).toBe(true);
    expect(rows()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(version()).toBe(afterFirst + 2);
    await Promise.all([waiting, urgent]);
  });

  it('a write that fills the disk fails alone: the others of its group land, and each is told what the database holds', async () => {
    const { db, rows } = setup();
    const writes = new SqliteCallWrites(db, silentLogger);
    // A real SQLITE_FULL: the file may not grow past its present size.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const big = 'x'.repeat(64 * 1024);
    const told = await Promise.allSettled(
      ['a', big, 'c'].map((what) => writes.write(what.slice(0, 1), insert(db, what))),
    );
    const landed = rows().map((what) => what.slice(0, 1));
    const ok = told.flatMap((outcome, i) => (outcome.status === 'fulfilled' ? [['a', 'x', 'c'][i]] : []));
    expect(told.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(landed).toEqual(ok);
  });

  it('does not block while another connection holds the lock, and lands every write in order once it is released', async () => {
    const { db, file, rows } = setup();
    const lock = lockFrom(file);
    const writes = new SqliteCallWrites(db, silentLogger, { tryMs: 10, retryMs: 30 });
    const started = performance.now();
    const all = ['dialing', 'ringing', 'busy'].map((what) => writes.write(what, insert(db, what)));
    // The connection's own busy timeout is 5 s: a blocking write would have taken that long.
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(writes.waiting).toBe(3);
    await new Promise((r) => setTimeout(r, 200));
    expect(rows()).toEqual([]);
    lock.release();
    await expect(Promise.all(all)).resolves.toEqual([1, 1, 1]);
    expect(rows()).toEqual(['dialing', 'ringing', 'busy']);
    // The connection's own busy timeout is back.
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('a write that fails for another reason is reported to its caller and undoes only itself', async () => {
    const { db, rows } = setup();
    const writes = new SqliteCallWrites(db, silentLogger);
    const first = writes.write('first', insert(db, 'first'));
    const bad = writes.write('bad', () => {
      insert(db, 'half of bad')();
      return db.prepare('INSERT INTO nowhere VALUES (1)').run();
    });
    const good = writes.write('good', insert(db, 'good'));
    await expect(bad).rejects.toThrow(/no such table: nowhere/);
    await expect(first).resolves.toBe(1);
    await expect(good).resolves.toBe(1);
    expect(rows()).toEqual(['first', 'good']);
  });

  it('at shutdown, drain waits for the lock a while; what is still waiting is given up and reported', async () => {
    const { db, file, rows } = setup();
    const lock = lockFrom(file);
    const writes = new SqliteCallWrites(db, silentLogger, { tryMs: 5, retryMs: 20 });
    const left = writes.write('late', insert(db, 'late'));
    expect(await writes.drain(100)).toBe(false);
    expect(writes.abandon()).toBe(1);
    await expect(left).rejects.toThrow(/still locked at shutdown \(late\)/);
    lock.release();
    await new Promise((r) => setTimeout(r, 60));
    expect(rows()).toEqual([]);
  });
});
