// Bounds slow work that runs in libuv's thread pool (scrypt: ~32 MiB and tens of milliseconds each).
// The pool has 4 threads shared with file writes (the speech files of calls being answered): a
// burst of sign-ins must not take them all, so at most `concurrency` run, a few wait, and the rest
// are refused at once.
import type { GateLimits } from '../../lib/work-gate.js';

/** One scrypt at a time, 8 waiting: an honest sign-in waits well under a second. */
export const HASHING_LIMITS: GateLimits = { concurrency: 1, queue: 8 };
