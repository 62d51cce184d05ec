// Any unhandled error or rejection during a test fails the run (as in h3's own test setup).
import { afterEach, beforeAll } from 'vitest';
import { chargeCpuTo } from './cpu-account.js';

// Once per process: where files share one (the unit project runs without isolation, vitest.config.ts),
// this file runs again before each of them, and each run would add two more listeners.
const UNHANDLED = Symbol.for('ringhook.test.unhandled');
type WithUnhandled = typeof globalThis & { [UNHANDLED]?: unknown[] };
const unhandled = ((globalThis as WithUnhandled)[UNHANDLED] ??= (() => {
  const errors: unknown[] = [];
  process.on('unhandledRejection', (reason) => errors.push(reason));
  process.on('uncaughtException', (error) => errors.push(error));
  return errors;
})());

// Before the file's own hooks start its peers, so that they are charged to it too.
// biome-ignore lint/correctness/noEmptyPattern: vitest hands the file as the second argument only after a destructured first
beforeAll(({}, file) => {
  if ('filepath' in file && typeof file.filepath === 'string') chargeCpuTo(file.filepath);
});

afterEach(() => {
  if (unhandled.length > 0) {
    const errors = unhandled.splice(0);
    throw new Error(`unhandled error(s) during the test: ${errors.map(String).join('; ')}`);
  }
});
