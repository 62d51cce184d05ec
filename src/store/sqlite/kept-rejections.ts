// The trims of each account's oldest refusals on SQLite, when core/webhook/kept-rejections says: at
// once for a refusal written alone, once at the end of a group commit for the accounts it wrote.
import { KEPT_AFTER_TRIM, RejectionTrims } from '../../core/webhook/kept-rejections.js';
import { CALL_SQL } from '../sql/calls.js';
import type { Db } from './connect.js';
import { positional } from './named.js';

export class SqliteRejectionTrims {
  private readonly due = new RejectionTrims();
  private readonly trim;
  /** Inside a group commit's writes: the trims made due wait for its end. */
  private grouping = false;
  /** The accounts whose trim the transaction in progress made due. */
  private readonly madeDue = new Set<string>();

  constructor(db: Db) {
    this.trim = positional(db, CALL_SQL.trimRejections);
  }

  /** A refusal of `userId` written in the transaction in progress. */
  written(userId: string): void {
    if (!this.due.written(userId)) return;
    this.madeDue.add(userId);
    if (!this.grouping) this.trim.run(userId, KEPT_AFTER_TRIM);
  }

  /** Runs a group's writes (inside its `transaction`), then the trims they made due, once each. */
  inGroup<T>(writes: () => T): T {
    this.grouping = true;
    try {
      const result = writes();
      for (const userId of this.madeDue) this.trim.run(userId, KEPT_AFTER_TRIM);
      return result;
    } finally {
      this.grouping = false;
    }
  }

  /**
   * Runs a transaction that may write refusals. If it fails, its trims were rolled back with it:
   * those accounts are trimmed at their next refusal.
   */
  transaction<T>(run: () => T): T {
    this.madeDue.clear();
    try {
      return run();
    } catch (error) {
      this.due.forget(this.madeDue);
      throw error;
    } finally {
      this.madeDue.clear();
    }
  }
}
