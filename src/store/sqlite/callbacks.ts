// Status callbacks in SQLite: the shared logic (../callbacks.ts) over better-sqlite3. One process
// writes the file, so the claim is one UPDATE … RETURNING.
import { CallbackStore, DELIVERY_COLUMNS, DUE_BY_ACCOUNT, DUE_CONDITION, type StatementRunner } from '../callbacks.js';
import type { SecretBox } from '../secret-box.js';
import { isBusyError } from '../unavailable.js';
import { type Db, withBusyTimeout } from './connect.js';
import { prepared, valuesOf } from './named.js';

const CLAIM = `UPDATE callback_outbox SET status = 'sending', claim = $1, claimed_until = $3
  WHERE id IN (SELECT id FROM ${DUE_BY_ACCOUNT} ranked WHERE place + busy <= $5 ORDER BY place, id LIMIT $4)
  RETURNING ${DELIVERY_COLUMNS}`;

const ANY_DUE = `SELECT 1 FROM callback_outbox WHERE ${DUE_CONDITION} LIMIT 1`;

function runner(db: Db): StatementRunner {
  const statement = (sql: string) => prepared(db, sql);
  return {
    async all<Row>(sql: string, values: unknown[]) {
      return statement(sql).all(valuesOf(values)) as Row[];
    },
    async run(sql: string, values: unknown[]) {
      return statement(sql).run(valuesOf(values)).changes;
    },
    // The claim (an UPDATE) looks first whether anything is due: a read takes no lock. When something is,
    // it does not wait for a write lock another process holds (better-sqlite3 would stop the event loop
    // for the busy timeout): busy, it claims nothing now and the sender looks again in a second.
    async claim<Row>(values: unknown[]) {
      if (!statement(ANY_DUE).get({ p2: values[1] })) return [];
      try {
        return withBusyTimeout(db, 0, () => statement(CLAIM).all(valuesOf(values))) as Row[];
      } catch (error) {
        if (isBusyError(error)) return [];
        throw error;
      }
    },
  };
}

export function sqliteCallbackStore(db: Db, secrets: SecretBox, now: () => number): CallbackStore {
  return new CallbackStore(runner(db), secrets, now);
}
