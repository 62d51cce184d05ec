// Bounds slow work that runs in libuv's thread pool (scrypt: ~32 MiB and tens of milliseconds each).
// The pool has 4 threads shared with file writes (the speech files of calls being answered): a
// burst of sign-ins must not take them all, so at most `concurrency` run, a few wait, and the rest
// are refused at once.

export interface GateLimits {
  concurrency: number;
  queue: number;
}

/** One scrypt at a time, 8 waiting: an honest sign-in waits well under a second. */
export const HASHING_LIMITS: GateLimits = { concurrency: 1, queue: 8 };

export class WorkGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limits: GateLimits = HASHING_LIMITS) {}

  /** Runs `work` now or when a slot frees; undefined, without running it, when the queue is full. */
  tryRun<T>(work: () => Promise<T>): Promise<T> | undefined {
    if (this.running < this.limits.concurrency) {
      this.running++;
      return this.run(work);
    }
    if (this.waiting.length >= this.limits.queue) return undefined;
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.run(work));
  }

  get busy(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private async run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, so a newcomer cannot slip in between.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
