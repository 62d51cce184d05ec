// Alerts held for quiet hours (#41) in PostgreSQL, shared by the nodes: a release runs under a
// transaction-scoped advisory lock, so of two nodes looking at once exactly one releases a batch
// (the other finds the lock taken and releases nothing); the released alerts are queued as the
// releasing node's, so it alone dials them, in one call.
import { HELD } from '../../core/calls/call-state.js';
import { heldAlerts, type HeldAlerts, type HeldCallRepo, type HeldEnd, type ReleasedAlert } from '../contract/index.js';
import { query, type Sql } from './connect.js';

/** Released rows read from the database at a time. */
const CURSOR_ROWS = 200;

/** The advisory lock of a release ('QUIE'). */
const RELEASE_LOCK = 0x51554945;

const SQL = {
  hold: `WITH moved AS (UPDATE calls SET status = '${HELD}', held_until = $2, updated_at = $3
                        WHERE call_id = ANY($1::text[]) AND accepted = 1 AND status = 'queued' RETURNING call_id)
         INSERT INTO call_events (call_id, at, event, detail) SELECT call_id, $3, '${HELD}', $4 FROM moved RETURNING call_id`,
  tryLock: 'SELECT pg_try_advisory_xact_lock($1) AS locked',
  // Each alert at its own end: one held until 20:00 is not called with those of a window ending
  // sooner. Released in the statement that finds them (the rows cross to the node once).
  release: `WITH moved AS (UPDATE calls SET status = 'queued', accepted_by = $2, updated_at = $3
                           WHERE status = '${HELD}' AND held_until <= $1
                           RETURNING call_id, user_id, kind, message, id),
                 noted AS (INSERT INTO call_events (call_id, at, event, detail)
                           SELECT call_id, $3, 'released', 'quiet hours ended: queued for one call' FROM moved)
            SELECT call_id AS "callId", user_id AS "userId", kind, message FROM moved ORDER BY id`,
  heldFor: `SELECT held_until AS until, count(*)::int AS count FROM calls WHERE user_id = $1 AND status = '${HELD}'
            GROUP BY held_until ORDER BY held_until`,
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

  releaseDue(now: number, _limit: number): Promise<ReleasedAlert[]> {
    // Every due alert in the one statement, whatever the limit: of two nodes one takes them all (one call).
    return this.sql.begin(async (tx) => {
      const [lock] = await query<{ locked: boolean }>(tx, SQL.tryLock, [RELEASE_LOCK]);
      if (!lock?.locked) return [];
      // Read in slices (a cursor in the one transaction): 10,000 rows parsed in one go held the event loop.
      const released: ReleasedAlert[] = [];
      await tx
        .unsafe(SQL.release, [now, this.nodeId, this.now()] as never[], { prepare: true })
        .cursor(CURSOR_ROWS, (rows) => {
          for (const row of rows) released.push(row as unknown as ReleasedAlert);
        });
      return released;
    }) as Promise<ReleasedAlert[]>;
  }

  async heldFor(userId: string): Promise<HeldAlerts> {
    return heldAlerts(await query<HeldEnd>(this.sql, SQL.heldFor, [userId]));
  }
}
