// serve's checkpoints run on a thread of their own (dist/store/sqlite/checkpointer.js): the log is copied into
// the database file without serve's connection doing it, and stopping the thread gives SQLite's own
// auto-checkpoint back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce, REPO_ROOT } from '../helpers/cli.js';

let tmp: string;

beforeAll(() => {
  buildOnce();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-checkpointer-'));
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('checkpointer thread', () => {
  it('copies the log into the database file off the event loop, and hands checkpoints back when stopped', async () => {
    const dist = (p: string) => path.join(REPO_ROOT, 'dist', p);
    const { openDatabase } = await import(dist('store/sqlite/connect.js'));
    const { startCheckpointer, BACKSTOP_AUTOCHECKPOINT_PAGES } = await import(dist('store/sqlite/checkpointer.js'));
    const file = path.join(tmp, 'ringhook.db');
    const db = openDatabase(file, { sync: 'full' });
    const checkpointer = startCheckpointer(db, 'full');
    expect(checkpointer).not.toBeNull();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_AUTOCHECKPOINT_PAGES);
    db.exec('CREATE TABLE filler (data BLOB)');
    const before = fs.statSync(file).size;
    // ~400 pages: far under serve's own (backstop) auto-checkpoint, so only the thread copies them.
    const insert = db.prepare('INSERT INTO filler VALUES (randomblob(4000))');
    for (let i = 0; i < 400; i++) insert.run();
    const deadline = Date.now() + 5_000;
    while (fs.statSync(file).size < before + 400 * 4096 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(fs.statSync(file).size).toBeGreaterThanOrEqual(before + 400 * 4096);
    await checkpointer!.stop();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    db.close();
  });
});
