// The calling side's writes, in order: each starts when the one before it has settled, so the
// steps of a call land in the order they happened. PostgreSQL waits without blocking the event
// loop, so unlike SQLite's SqliteCallWrites there is nothing to retry here.
import type { Awaitable, CallWrites } from '../contract.js';
import { settledOrAfter } from '../../lib/sleep.js';

interface Job {
  label: string;
  work: () => Awaitable<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class PgCallWrites implements CallWrites {
  /** The first job is the one running. */
  private readonly queue: Job[] = [];
  private idle: Array<() => void> = [];

  /** Writes not settled yet (the one running and those waiting for it). */
  get waiting(): number {
    return this.queue.length;
  }

  write<T>(label: string, work: () => Awaitable<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ label, work, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1) void this.run();
    });
  }

  private async run(): Promise<void> {
    while (this.queue.length > 0) {
      const job = this.queue[0]!;
      try {
        job.resolve(await job.work());
      } catch (error) {
        job.reject(error);
      }
      this.queue.shift();
    }
    for (const wake of this.idle.splice(0)) wake();
  }

  /** Waits until every queued write has settled, up to `timeoutMs`; true when none is left. */
  async drain(timeoutMs: number): Promise<boolean> {
    if (this.queue.length === 0) return true;
    await settledOrAfter(new Promise<void>((resolve) => this.idle.push(resolve)), timeoutMs);
    return this.queue.length === 0;
  }

  /** At shutdown, after drain: the writes not started yet are given up (reported to their callers). */
  abandon(): number {
    const left = this.queue.splice(1);
    for (const job of left)
      job.reject(new Error(`not written: the database did not answer before shutdown (${job.label})`));
    return left.length;
  }
}
