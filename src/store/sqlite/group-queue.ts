// The group commit's queue on SQLite: the writes asked for in one turn of the event loop go in the
// next transaction together, at most core's MAX_GROUP a transaction. better-sqlite3 waits for
// another connection's write lock synchronously, holding the loop; so while the lock is held the
// group is tried for a few milliseconds at a time, a timer apart, and every other request, event
// and answer goes on between the tries. Each write waits until LOCK_WAIT_MS after it was asked for,
// whatever was queued before it, then fails busy (nothing of it was written).
import { byLockWait, LOCK_WAIT_MS, nextGroup } from '../../core/webhook/group-commit.js';
import { isBusyError } from '../unavailable.js';

/** A write waiting for the next group commit. */
export interface QueuedWrite {
  /** performance.now() when it was asked for. */
  askedAt: number;
  reject: (error: unknown) => void;
}

export interface GroupQueueOptions {
  /** How long one try may wait for the lock, ms: the longest the loop is held by a try. */
  tryMs?: number;
  /** The pause between two tries while the lock is held, ms. */
  retryMs?: number;
  /** How long a write waits for the lock from when it was asked for, ms. */
  waitMs?: number;
}

/**
 * `commitGroup(jobs, tryMs)` writes one group in one transaction, waiting at most `tryMs` for the
 * lock, and settles each job; it throws when the group as a whole could not be written (every job
 * then fails, or waits for another try when the lock was busy).
 */
export class GroupQueue<J extends QueuedWrite> {
  private readonly pending: J[] = [];
  private flushSet = false;
  private readonly tryMs: number;
  private readonly retryMs: number;
  private readonly waitMs: number;

  constructor(
    private readonly commitGroup: (jobs: J[], tryMs: number) => void,
    options: GroupQueueOptions = {},
  ) {
    this.tryMs = options.tryMs ?? 5;
    this.retryMs = options.retryMs ?? 20;
    this.waitMs = options.waitMs ?? LOCK_WAIT_MS;
  }

  add(job: J): void {
    this.pending.push(job);
    this.schedule();
  }

  /** The next flush: in the next turn, or after `delayMs` (waiting for the lock). */
  private schedule(delayMs?: number): void {
    if (this.flushSet) return;
    this.flushSet = true;
    const flush = () => {
      this.flushSet = false;
      this.flush();
    };
    if (delayMs === undefined) setImmediate(flush);
    else setTimeout(flush, delayMs);
  }

  private flush(): void {
    const jobs = this.pending.splice(0, nextGroup(this.pending.length).take);
    try {
      this.commitGroup(jobs, this.tryMs);
    } catch (error) {
      if (!isBusyError(error)) for (const job of jobs) job.reject(error);
      else {
        const { over, waiting } = byLockWait(jobs.concat(this.pending.splice(0)), performance.now(), this.waitMs);
        for (const job of over) job.reject(error);
        this.pending.push(...waiting);
        if (waiting.length > 0) {
          this.schedule(this.retryMs);
          return;
        }
      }
    }
    if (this.pending.length > 0) this.schedule();
  }
}
