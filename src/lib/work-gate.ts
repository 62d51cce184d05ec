// Bounds slow work: at most `concurrency` run at once, a few wait in order of arrival, and the
// rest are refused at once (a queue of Infinity refuses none).

export interface GateLimits {
  concurrency: number;
  queue: number;
}

export class WorkGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limits: GateLimits) {}

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
