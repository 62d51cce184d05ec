// Secrets kept in the data dir (`<name>.secret`, 0600): made once, then the same at every start.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The secret's text (base64url of `bytes` random bytes) and whether this call made it. */
export function readOrCreateSecret(
  dataDir: string,
  name: string,
  bytes = 12,
): { value: string; file: string; created: boolean } {
  const file = path.join(dataDir, `${name}.secret`);
  try {
    return { value: fs.readFileSync(file, 'utf8').trim(), file, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const value = randomBytes(bytes).toString('base64url');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Written whole under another name, then linked in place: a process starting at the same time
  // (serve and a CLI command) never reads a half-written file, and the first one to link wins.
  const tmp = `${file}.${process.pid}.tmp`;
  // On disk before anything is sealed with it: a power cut must not leave an empty key beside it.
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeFileSync(fd, `${value}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(tmp, file);
    syncDir(dataDir);
    return { value, file, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { value: fs.readFileSync(file, 'utf8').trim(), file, created: false };
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** A secret kept in the data dir: made once, then the same at every start. */
export function persistentSecret(dataDir: string, name: string, bytes = 12): string {
  return readOrCreateSecret(dataDir, name, bytes).value;
}

function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A secret kept in the data dir if it was made, else null: for a command that makes nothing. */
export function existingSecret(dataDir: string, name: string): string | null {
  try {
    return fs.readFileSync(path.join(dataDir, `${name}.secret`), 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
