// Alerts held for quiet hours (#41) in SQLite: one process writes at a time, so a release is one
// IMMEDIATE transaction; an account's held alerts are released together, once.
import { type Db, withBusyTimeout } from './connect.js';
import { isBusyError } from '../unavailable.js';
import type { CallForDialing } from '../../core/records.js';
import { HELD } from '../../core/call-state.js';
import type { HeldCallRepo } from '../contract/index.js';
import { SELECT_CALL } from './progress.js';

const SQL = {
  hold: `UPDATE calls SET status = '${HELD}', held_until = @until, updated_at = @now
         WHERE call_id = @call_id AND accepted = 1 AND status = 'queued'`,
  event: 'INSERT INTO call_events (call_id, at, event, detail) VALUES (?, ?, ?, ?)',
  // Every held alert of an account with one due: a batch is never split, whatever its alerts' ends.
  due: `${SELECT_CALL} WHERE status = '${HELD}' AND user_id IN (
          SELECT user_id FROM calls WHERE status = '${HELD}' AND held_until <= ?) ORDER BY id`,
  release: `UPDATE calls SET status = 'queued', updated_at = ? WHERE call_id = ? AND status = '${HELD}'`,
  heldFor: `SELECT count(*) AS count, min(held_until) AS until FROM calls WHERE user_id = ? AND status = '${HELD}'`,
} as const;

export class SqliteHeldCallStore implements HeldCallRepo {
  private readonly stmt;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.stmt = {
      hold: db.prepare(SQL.hold),
      event: db.prepare(SQL.event),
      due: db.prepare<[number], CallForDialing>(SQL.due),
      release: db.prepare(SQL.release),
      heldFor: db.prepare<[string], { count: number; until: number | null }>(SQL.heldFor),
    };
  }

  hold(callIds: readonly string[], until: number, detail: string): string[] {
    return this.db
      .transaction(() => {
        const at = this.now();
        const held: string[] = [];
        for (const callId of callIds) {
          if (this.stmt.hold.run({ call_id: callId, until, now: at }).changes === 0) continue;
          this.stmt.event.run(callId, at, HELD, detail);
          held.push(callId);
        }
        return held;
      })
      .immediate();
  }

  releaseDue(now: number): CallForDialing[] {
    // Looked at every second: a read first (no lock); when something is due, the release does not wait
    // for a write lock another process holds (better-sqlite3 would stop the event loop for the busy
    // timeout): busy, nothing is released now and the next look tries again.
    if (this.stmt.due.all(now).length === 0) return [];
    try {
      return withBusyTimeout(this.db, 0, () => this.release(now));
    } catch (error) {
      if (isBusyError(error)) return [];
      throw error;
    }
  }

  private release(now: number): CallForDialing[] {
    return this.db
      .transaction(() => {
        const due = this.stmt.due.all(now);
        const at = this.now();
        for (const call of due) {
          this.stmt.release.run(at, call.callId);
          this.stmt.event.run(call.callId, at, 'released', 'quiet hours ended: queued for one call');
        }
        return due.map((call) => ({ ...call, status: 'queued' }));
      })
      .immediate();
  }

  heldFor(userId: string): { count: number; until: number | null } {
    const row = this.stmt.heldFor.get(userId);
    return { count: row?.count ?? 0, until: row?.until ?? null };
  }
}
