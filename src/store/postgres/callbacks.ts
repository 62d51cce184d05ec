// Status callbacks in PostgreSQL, shared by every node: the claim skips rows another node is
// claiming at the same moment, so each delivery is sent by one node (until its lease ends).
import { CallbackStore, DELIVERY_COLUMNS, DUE_BY_ACCOUNT, type StatementRunner } from '../callbacks.js';
import type { SecretBox } from '../secret-box.js';
import { query, type Sql } from './connect.js';

/** Due now, on the row itself: what PostgreSQL checks again on a row another node changed meanwhile. */
const DUE_ROW = (t: string) =>
  `((${t}.status = 'pending' AND ${t}.next_attempt_at <= $2) OR (${t}.status = 'sending' AND ${t}.claimed_until <= $2))`;

// The rows are chosen and locked once, in a materialized step: inside `WHERE id IN (…)` the planner may
// run the locking subquery again, and with SKIP LOCKED each run picks other rows (more than the limit
// were claimed). Read committed: a row another node claimed and committed after this statement's
// snapshot is locked here once that node is done, and only the conditions on the locked table itself
// are checked again on its new version, not the ranking it was joined with: so the row's own due
// condition is repeated on it, or both nodes would send it (seen: two nodes claiming at once in
// test/store/callbacks.test.ts, in a fresh-clone run).
const CLAIM = `WITH picked AS MATERIALIZED (
    SELECT claimed.id AS picked_id FROM callback_outbox claimed JOIN ${DUE_BY_ACCOUNT} ranked ON ranked.id = claimed.id
    WHERE ranked.place + ranked.busy <= $5 AND ${DUE_ROW('claimed')}
    ORDER BY ranked.place, claimed.id LIMIT $4
    FOR UPDATE OF claimed SKIP LOCKED)
  UPDATE callback_outbox SET status = 'sending', claim = $1, claimed_until = $3
  FROM picked WHERE callback_outbox.id = picked.picked_id AND ${DUE_ROW('callback_outbox')}
  RETURNING ${DELIVERY_COLUMNS}`;

function runner(sql: Sql): StatementRunner {
  const all = async <Row>(text: string, values: unknown[]) => [...(await query<Row>(sql, text, values))];
  return {
    all,
    async run(text: string, values: unknown[]) {
      return (await query(sql, text, values)).count;
    },
    claim: (values) => all(CLAIM, values),
  };
}

export function pgCallbackStore(sql: Sql, secrets: SecretBox, now: () => number): CallbackStore {
  return new CallbackStore(runner(sql), secrets, now);
}
