// Alerts held for quiet hours (#41) in PostgreSQL, shared by the nodes: a release runs under a
// transaction-scoped advisory lock, so of two nodes looking at once exactly one releases a batch
// (the other finds the lock taken and releases nothing); the released alerts are queued as the
// releasing node's, so it alone dials them, in one call.
import type { CallForDialing } from '../../core/records.js';
import { HELD } from '../../core/call-state.js';
import type { HeldCallRepo } from '../contract/index.js';
import { query, type Sql } from './connect.js';
import { SELECT_CALL } from './progress.js';

/** The advisory lock of a release ('QUIE'). */
const RELEASE_LOCK = 0x51554945;

const SQL = {
  hold: `WITH moved AS (UPDATE calls SET status = '${HELD}', held_until = $2, updated_at = $3
                        WHERE call_id = ANY($1::text[]) AND accepted = 1 AND status = 'queued' RETURNING call_id)
         INSERT INTO call_events (call_id, at, event, detail) SELECT call_id, $3, '${HELD}', $4 FROM moved RETURNING call_id`,
  tryLock: 'SELECT pg_try_advisory_xact_lock($1) AS locked',
  // Every held alert of an account with one due: a batch is never split, whatever its alerts' ends.
  due: `${SELECT_CALL} WHERE status = '${HELD}' AND user_id IN (
          SELECT user_id FROM calls WHERE status = '${HELD}' AND held_until <= $1) ORDER BY id FOR UPDATE`,
  release: `WITH moved AS (UPDATE calls SET status = 'queued', accepted_by = $2, updated_at = $3
                           WHERE call_id = ANY($1::text[]) AND status = '${HELD}' RETURNING call_id)
            INSERT INTO call_events (call_id, at, event, detail)
            SELECT call_id, $3, 'released', 'quiet hours ended: queued for one call' FROM moved`,
  heldFor: `SELECT count(*)::int AS count, min(held_until) AS until FROM calls WHERE user_id = $1 AND status = '${HELD}'`,
} as const;

export class PgHeldCallStore implements HeldCallRepo {
  constructor(
    private readonly sql: Sql,
    private readonly nodeId: string,
    private readonly now: () => number = Date.now,
  ) {}

  async hold(callIds: readonly string[], until: number, detail: string): Promise<string[]> {
    const rows = await query<{ call_id: string }>(this.sql, SQL.hold, [callIds, until, this.now(), detail]);
    return rows.map((r) => r.call_id);
  }

  releaseDue(now: number): Promise<CallForDialing[]> {
    return this.sql.begin(async (tx) => {
      const [lock] = await query<{ locked: boolean }>(tx, SQL.tryLock, [RELEASE_LOCK]);
      if (!lock?.locked) return [];
      const due = await query<CallForDialing>(tx, SQL.due, [now]);
      if (due.length === 0) return [];
      await query(tx, SQL.release, [due.map((c) => c.callId), this.nodeId, this.now()]);
      return due.map((call) => ({ ...call, status: 'queued' }));
    }) as Promise<CallForDialing[]>;
  }

  async heldFor(userId: string): Promise<{ count: number; until: number | null }> {
    const [row] = await query<{ count: number; until: number | null }>(this.sql, SQL.heldFor, [userId]);
    return { count: row?.count ?? 0, until: row?.until ?? null };
  }
}
