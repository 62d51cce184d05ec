// Alerts held for quiet hours (#41) in SQLite: one process writes at a time, so a release is an
// IMMEDIATE transaction of at most `limit` alerts (the caller takes the next slice in a later turn
// of the event loop: 10,000 held alerts must not stop it); each alert is released at the end it
// was held until, once.
import { withBusyTimeout } from './connect.js';
import { SqliteRepo } from './repo.js';
import { isBusyError } from '../unavailable.js';
import { HELD } from '../../core/calls/call-state.js';
import { heldAlerts, type HeldAlerts, type HeldCallRepo, type HeldEnd, type ReleasedAlert } from '../contract/index.js';

const SQL = {
  hold: `UPDATE calls SET status = '${HELD}', held_until = @until, updated_at = @now
         WHERE call_id = @call_id AND accepted = 1 AND status = 'queued'`,
  event: 'INSERT INTO call_events (call_id, at, event, detail) VALUES (?, ?, ?, ?)',
  anyDue: `SELECT 1 FROM calls WHERE status = '${HELD}' AND held_until <= ? LIMIT 1`,
  // Each alert at its own end: one held until 20:00 is not called with those of a window ending sooner.
  due: `SELECT call_id AS callId, user_id AS userId, kind, message FROM calls
        WHERE status = '${HELD}' AND held_until <= ? ORDER BY id LIMIT ?`,
  release: `UPDATE calls SET status = 'queued', updated_at = ? WHERE call_id = ? AND status = '${HELD}'`,
  heldFor: `SELECT held_until AS until, count(*) AS count FROM calls WHERE user_id = ? AND status = '${HELD}'
            GROUP BY held_until ORDER BY held_until`,
} as const;

export class SqliteHeldCallStore extends SqliteRepo implements HeldCallRepo {
  private readonly stmt = {
    hold: this.db.prepare(SQL.hold),
    event: this.db.prepare(SQL.event),
    anyDue: this.db.prepare<[number], unknown>(SQL.anyDue),
    due: this.db.prepare<[number, number], ReleasedAlert>(SQL.due),
    release: this.db.prepare(SQL.release),
    heldFor: this.db.prepare<[string], HeldEnd>(SQL.heldFor),
  };

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

  releaseDue(now: number, limit: number): ReleasedAlert[] {
    // Looked at every second: a read first (no lock); when something is due, the release does not wait
    // for a write lock another process holds (better-sqlite3 would stop the event loop for the busy
    // timeout): busy, nothing is released now and the next look tries again.
    if (this.stmt.anyDue.get(now) === undefined) return [];
    try {
      return withBusyTimeout(this.db, 0, () => this.release(now, limit));
    } catch (error) {
      if (isBusyError(error)) return [];
      throw error;
    }
  }

  private release(now: number, limit: number): ReleasedAlert[] {
    return this.db
      .transaction(() => {
        const due = this.stmt.due.all(now, limit);
        const at = this.now();
        for (const call of due) {
          this.stmt.release.run(at, call.callId);
          this.stmt.event.run(call.callId, at, 'released', 'quiet hours ended: queued for one call');
        }
        return due;
      })
      .immediate();
  }

  heldFor(userId: string): HeldAlerts {
    return heldAlerts(this.stmt.heldFor.all(userId));
  }
}
