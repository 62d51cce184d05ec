// Writes of the calling side (the dialer's call steps, the SMS backup's records) that must not hold
// the event loop while another process has the database's write lock. better-sqlite3 waits for a
// lock synchronously, and the webhook shares the loop: a dialer write waiting 5 s would hold every
// webhook answer for 5 s. Here each write is tried with a short wait; while the lock stays taken,
// it waits in a queue without blocking and is tried again, in order, until it lands.
import { isBusyError, withBusyTimeout, type Db } from './database.js';
import type { Logger } from '../log.js';

export interface PatientWriterOptions {
  /** How long one try may block waiting for the lock, ms. */
  tryMs?: number;
  /** The pause between two tries while the lock is held, ms. */
  retryMs?: number;
}

interface Job {
  label: string;
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  queuedAt: number;
}

export class PatientWriter {
  private readonly queue: Job[] = [];
  private readonly tryMs: number;
  private readonly retryMs: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private waitingSince: number | undefined;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    options: PatientWriterOptions = {},
  ) {
    this.tryMs = options.tryMs ?? 20;
    this.retryMs = options.retryMs ?? 100;
  }

  /** Writes that are waiting for the lock. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Runs `work` now when nothing waits and the lock is free (then it has landed before this
   * returns); otherwise after the writes queued before it. Resolves with what `work` returned.
   */
  write<T>(label: string, work: () => T | Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ label, work, resolve: resolve as (value: unknown) => void, reject, queuedAt: Date.now() });
      if (this.queue.length === 1) this.flush();
    });
  }

  /** Waits until every queued write has landed, up to `timeoutMs`; true when none is left. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, Math.min(this.retryMs, 50)));
    return this.queue.length === 0;
  }

  /** At shutdown, after drain: the writes still waiting are given up (reported to their callers). */
  abandon(): number {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const left = this.queue.splice(0);
    for (const job of left) job.reject(new Error(`not written: the database was still locked at shutdown (${job.label})`));
    return left.length;
  }

  private flush(): void {
    this.retryTimer = undefined;
    while (this.queue.length > 0) {
      const job = this.queue[0]!;
      let result: unknown;
      try {
        result = withBusyTimeout(this.db, this.tryMs, job.work);
      } catch (error) {
        if (isBusyError(error)) {
          this.waitForLock(job);
          return;
        }
        this.queue.shift();
        job.reject(error);
        continue;
      }
      this.queue.shift();
      if (this.waitingSince !== undefined) {
        this.logger.info('database lock released: queued call records written', { waited_ms: Date.now() - this.waitingSince, label: job.label });
        this.waitingSince = undefined;
      }
      job.resolve(result);
    }
  }

  private waitForLock(job: Job): void {
    if (this.waitingSince === undefined) {
      this.waitingSince = job.queuedAt;
      this.logger.warn('database locked by another process: call records wait in memory until it is released', { label: job.label });
    }
    this.retryTimer ??= setTimeout(() => this.flush(), this.retryMs);
  }
}
