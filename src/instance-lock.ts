// One `serve` per data dir. Two would both dial the same queued calls, and the second's managed
// Asterisk would take over the first's. The lock is a file holding the pid: a file left by a process
// that died (kill -9, power cut) is taken over, a live one refuses the start with a clear message.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from './errors.js';

const LOCK_FILE = 'serve.pid';

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the data dir for this process; returns the function that gives it back. */
export function lockDataDir(dataDir: string): () => void {
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return () => {
        try {
          if (Number(fs.readFileSync(file, 'utf8').trim()) === process.pid) fs.rmSync(file, { force: true });
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new UserError(`cannot write ${file}: ${(error as Error).message}`);
    }
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
      throw new UserError(`another ringhook serve (pid ${pid}) is using the data dir ${dataDir}: stop it first, or give this one its own RINGHOOK_DATA_DIR`);
    }
    // Left by a process that is gone: take it over.
    fs.rmSync(file, { force: true });
  }
  throw new UserError(`could not take ${file}: another ringhook serve is starting at the same time`);
}
