// Status callbacks' settings and outbox, written once for both stores: each store passes the way it
// runs a statement (SQL written with $1, $2… as PostgreSQL spells them) and its claim query.
import type {
  CallbackDelivery,
  CallbackSettings,
  DeliveryAttempt,
  DeliveryStatus,
  NewDelivery,
} from '../core/callbacks/callback-records.js';
import type { CallbackEventType } from '../core/callbacks/callback-events.js';
import type { CallbackRepo } from './contract/index.js';
import type { SecretBox } from './secret-box.js';
import { enqueueValues, OUTBOX_SQL } from './outbox.js';

/** Runs one statement with positional values; resolves to the rows it returned (none for a write without RETURNING). */
export interface StatementRunner {
  all<Row>(sql: string, values: unknown[]): Promise<Row[]>;
  /** The number of rows changed. */
  run(sql: string, values: unknown[]): Promise<number>;
  /**
   * Each store's claim: $1 the claim, $2 now, $3 the lease's end, $4 the limit, $5 the most of one
   * account's being sent; the rows it claimed (each store claims its own way: PostgreSQL skips rows
   * another node is claiming, SQLite never waits for a lock).
   */
  claim<Row>(values: unknown[]): Promise<Row[]>;
}

const DELIVERY_COLUMNS =
  'id, message_id, event_key, user_id, call_id, type, body, status, attempts, created_at, next_attempt_at, last_attempt_at, last_http_status, last_error, delivered_at, claim';

/** Waiting: every earlier delivery of the same call must be settled first (delivered in order per call). */
export const DUE_CONDITION = `((status = 'pending' AND next_attempt_at <= $2) OR (status = 'sending' AND claimed_until <= $2))
  AND NOT EXISTS (SELECT 1 FROM callback_outbox earlier WHERE earlier.call_id = callback_outbox.call_id
                  AND earlier.id < callback_outbox.id AND earlier.status IN ('pending', 'sending'))`;

/**
 * The due deliveries with each one's place among its account's due ones (1 its oldest) and how many
 * of the account's are being sent now (by any node, lease not ended; counted once per account, not
 * per row: a backlog of thousands stays one pass): one is claimed when its place plus those is within
 * the account's share ($5), so a backlog or a stuck receiver takes no more.
 */
export const DUE_BY_ACCOUNT = `(SELECT callback_outbox.id,
    ROW_NUMBER() OVER (PARTITION BY callback_outbox.user_id ORDER BY callback_outbox.id) AS place,
    coalesce(sending.n, 0) AS busy
  FROM callback_outbox
  LEFT JOIN (SELECT user_id, count(*) AS n FROM callback_outbox WHERE status = 'sending' AND claimed_until > $2
             GROUP BY user_id) sending ON sending.user_id = callback_outbox.user_id
  WHERE ${DUE_CONDITION})`;

const SQL = {
  settings:
    'SELECT user_id, url, secret_sealed, previous_secret_sealed, previous_until, off_note FROM callback_settings WHERE user_id = $1',
  configure: `INSERT INTO callback_settings (user_id, url, secret_sealed, previous_secret_sealed, previous_until, off_note, off_at, updated_at)
              VALUES ($1, $2, $3, NULL, NULL, NULL, NULL, $4)
              ON CONFLICT (user_id) DO UPDATE SET url = excluded.url, off_note = NULL, off_at = NULL, updated_at = excluded.updated_at,
                secret_sealed = coalesce(excluded.secret_sealed, callback_settings.secret_sealed),
                previous_secret_sealed = CASE WHEN excluded.secret_sealed IS NULL THEN callback_settings.previous_secret_sealed END,
                previous_until = CASE WHEN excluded.secret_sealed IS NULL THEN callback_settings.previous_until END`,
  rotate: `UPDATE callback_settings SET previous_secret_sealed = secret_sealed, previous_until = $3, secret_sealed = $2, updated_at = $4
           WHERE user_id = $1 AND secret_sealed IS NOT NULL`,
  turnOff: 'UPDATE callback_settings SET url = NULL, off_note = $2, off_at = $3, updated_at = $3 WHERE user_id = $1',
  dropWaiting: `UPDATE callback_outbox SET status = 'gone', claim = NULL, claimed_until = NULL, last_error = $2
                WHERE user_id = $1 AND status IN ('pending', 'sending')`,
  keepSent: `INSERT INTO callback_outbox (message_id, event_key, user_id, call_id, type, body, status, attempts, created_at, next_attempt_at,
               last_attempt_at, last_http_status, last_error, delivered_at)
             VALUES ($1, $2, $3, $4, $5, $6, $8, 1, $7, $7, $9, $10, $11, $12)`,
  record: `UPDATE callback_outbox SET status = $3, attempts = attempts + 1, last_attempt_at = $4, next_attempt_at = $5,
             last_http_status = $6, last_error = $7, delivered_at = $8, claim = NULL, claimed_until = NULL
           WHERE id = $1 AND claim = $2 AND status = 'sending'`,
  holdAccount: `UPDATE callback_outbox SET next_attempt_at = $2
                WHERE user_id = $1 AND status = 'pending' AND next_attempt_at < $2`,
  recent: `SELECT ${DELIVERY_COLUMNS} FROM callback_outbox WHERE user_id = $1 ORDER BY id DESC LIMIT $2`,
} as const;

interface SettingsRow {
  user_id: string;
  url: string | null;
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_until: number | null;
  off_note: string | null;
}

export interface DeliveryRow {
  id: number;
  message_id: string;
  event_key: string;
  user_id: string;
  call_id: string | null;
  type: string;
  body: string;
  status: string;
  attempts: number;
  created_at: number;
  next_attempt_at: number;
  last_attempt_at: number | null;
  last_http_status: number | null;
  last_error: string | null;
  delivered_at: number | null;
  claim: string | null;
}

export function toDelivery(row: DeliveryRow): CallbackDelivery {
  return {
    id: Number(row.id),
    messageId: row.message_id,
    eventKey: row.event_key,
    userId: row.user_id,
    callId: row.call_id,
    type: row.type as CallbackEventType,
    body: row.body,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    createdAt: row.created_at,
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    lastHttpStatus: row.last_http_status,
    lastError: row.last_error,
    deliveredAt: row.delivered_at,
    claim: row.claim,
  };
}

/** The sealed secrets' context: a sealed secret moved to another account's row does not open. */
const sealContext = (userId: string) => `callback ${userId}`;

export class CallbackStore implements CallbackRepo {
  constructor(
    private readonly db: StatementRunner,
    private readonly secrets: SecretBox,
    private readonly now: () => number,
  ) {}

  async settings(userId: string): Promise<CallbackSettings | undefined> {
    const [row] = await this.db.all<SettingsRow>(SQL.settings, [userId]);
    if (!row) return undefined;
    const context = sealContext(userId);
    const secrets = row.secret_sealed ? [this.secrets.open(row.secret_sealed, context)] : [];
    const overlapping = row.previous_secret_sealed && row.previous_until !== null && row.previous_until > this.now();
    if (overlapping) secrets.push(this.secrets.open(row.previous_secret_sealed as string, context));
    return {
      userId,
      url: row.url,
      secrets,
      previousUntil: overlapping ? row.previous_until : null,
      offNote: row.off_note,
    };
  }

  async configure(userId: string, change: { url: string | null; secret?: string }): Promise<void> {
    const sealed = change.secret === undefined ? null : this.secrets.seal(change.secret, sealContext(userId));
    await this.db.run(SQL.configure, [userId, change.url, sealed, this.now()]);
  }

  async rotate(userId: string, secret: string, previousUntil: number): Promise<boolean> {
    const sealed = this.secrets.seal(secret, sealContext(userId));
    return (await this.db.run(SQL.rotate, [userId, sealed, previousUntil, this.now()])) > 0;
  }

  async turnOff(userId: string, note: string, at: number): Promise<void> {
    await this.db.run(SQL.turnOff, [userId, note, at]);
    await this.db.run(SQL.dropWaiting, [userId, 'not sent: the callback was turned off']);
  }

  async enqueue(d: NewDelivery): Promise<boolean> {
    return (await this.db.run(OUTBOX_SQL.enqueue, enqueueValues(d))) > 0;
  }

  async keepSent(d: NewDelivery, a: DeliveryAttempt): Promise<void> {
    const deliveredAt = a.status === 'delivered' ? a.at : null;
    const values = [d.messageId, d.eventKey, d.userId, d.callId, d.type, d.body, d.createdAt, a.status, a.at];
    await this.db.run(SQL.keepSent, [...values, a.httpStatus, a.error, deliveredAt]);
  }

  async claimDue(
    claim: string,
    now: number,
    leaseUntil: number,
    limit: number,
    perAccount: number,
  ): Promise<CallbackDelivery[]> {
    if (limit <= 0) return [];
    const rows = await this.db.claim<DeliveryRow>([claim, now, leaseUntil, limit, perAccount]);
    return rows.map(toDelivery).sort((a, b) => a.id - b.id);
  }

  async holdAccount(userId: string, until: number): Promise<void> {
    await this.db.run(SQL.holdAccount, [userId, until]);
  }

  async record(id: number, claim: string, a: DeliveryAttempt): Promise<boolean> {
    const deliveredAt = a.status === 'delivered' ? a.at : null;
    const values = [id, claim, a.status, a.at, a.nextAttemptAt, a.httpStatus, a.error, deliveredAt];
    return (await this.db.run(SQL.record, values)) > 0;
  }

  async recent(userId: string, limit: number): Promise<CallbackDelivery[]> {
    return (await this.db.all<DeliveryRow>(SQL.recent, [userId, limit])).map(toDelivery);
  }
}

export { DELIVERY_COLUMNS };
