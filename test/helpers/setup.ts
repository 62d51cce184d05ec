// Any unhandled error or rejection during a test fails the run (as in h3's own test setup).
import { afterEach } from 'vitest';

const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));
process.on('uncaughtException', (error) => unhandled.push(error));

afterEach(() => {
  if (unhandled.length > 0) {
    const errors = unhandled.splice(0);
    throw new Error(`unhandled error(s) during the test: ${errors.map(String).join('; ')}`);
  }
});
