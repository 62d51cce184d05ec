// A second process holding SQLite's write lock (BEGIN IMMEDIATE) for a while, as a long CLI
// command would: the contention a real deployment meets.
import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT } from './cli.js';

export async function holdWriteLock(
  dbFile: string,
  holdMs: number,
): Promise<{ child: ChildProcess; released: Promise<void> }> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(${JSON.stringify(dbFile)});
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); process.stdout.write('released\\n'); }, ${holdMs});
  `;
  const child = spawn(process.execPath, ['-e', script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const released = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('locked')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`lock holder exited ${code}`)));
  });
  return { child, released };
}
