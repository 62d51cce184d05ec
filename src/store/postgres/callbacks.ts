// Status callbacks in PostgreSQL, shared by every node: the claim skips rows another node is
// claiming at the same moment, so each delivery is sent by one node (until its lease ends).
import { CallbackStore, DELIVERY_COLUMNS, DUE_BY_ACCOUNT, type StatementRunner } from '../callbacks.js';
import type { SecretBox } from '../secret-box.js';
import { query, type Sql } from './connect.js';

const CLAIM = `UPDATE callback_outbox SET status = 'sending', claim = $1, claimed_until = $3
  WHERE id IN (SELECT claimed.id FROM callback_outbox claimed JOIN ${DUE_BY_ACCOUNT} ranked ON ranked.id = claimed.id
               WHERE ranked.place + ranked.busy <= $5 ORDER BY ranked.place, claimed.id LIMIT $4
               FOR UPDATE OF claimed SKIP LOCKED)
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
