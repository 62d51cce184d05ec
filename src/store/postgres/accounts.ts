// Accounts in PostgreSQL, as SqliteAccountStore keeps them in SQLite: the api_key sealed beside its HMAC,
// authentication comparing HMACs in constant time whether or not the user_id exists.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Account } from '../../core/account.js';
import { newApiKey, newUserId } from '../../core/ids.js';
import { UserError } from '../../lib/errors.js';
import { endedBySuspension, wrongSecretKeyMessage } from '../rows.js';
import { ACCOUNT_COLUMNS, type AccountRow, newAccountSettings, settingColumns, toAccount } from '../account-rows.js';
import type { AccountChanges, NewAccount } from '../../core/records.js';
import type { SecretBox } from '../secret-box.js';
import type { AccountRepo } from '../contract/index.js';
import { verifyPassword } from '../password-hash.js';
import { query, type Queryable, type Sql } from './connect.js';

const SQL = {
  // The settings' columns in settingColumns' order (rows.ts).
  insert: `INSERT INTO accounts (user_id, api_key_sealed, api_key_mac, name, phone, plan, sms_backup, require_confirm, language, voice, intro, dedupe_seconds, webhook_sources, quiet_hours, time_zone, quiet_mode, ring_again, ring_again_after, backup_phone, backup_phone_status, decision_keys, decision_pin_hash, status, created_at, updated_at, key_created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, 'active', $23, $23, $23)`,
  get: `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE user_id = $1`,
  // Always exactly one row of the same shape, whether or not the user_id exists (the dummy HMAC
  // stands in), so that both cases do the same work.
  credentials:
    'SELECT a.user_id, coalesce(a.api_key_mac, $2) AS mac FROM (SELECT 1) AS one LEFT JOIN accounts a ON a.user_id = $1',
  list: `SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, user_id`,
  userIds: 'SELECT user_id FROM accounts ORDER BY user_id FOR UPDATE',
  count: 'SELECT count(*)::int AS n FROM accounts',
  languages: 'SELECT DISTINCT language FROM accounts',
  update: `UPDATE accounts SET name = $2, phone = $3, plan = $4, sms_backup = $5, require_confirm = $6, language = $7, voice = $8, intro = $9, dedupe_seconds = $10, webhook_sources = $11, quiet_hours = $12, time_zone = $13, quiet_mode = $14, ring_again = $15, ring_again_after = $16, backup_phone = $17, backup_phone_status = $18, decision_keys = $19, status = $20, updated_at = $21,
             decision_pin_hash = CASE WHEN $22::boolean THEN $23::text ELSE decision_pin_hash END
           WHERE user_id = $1`,
  pinHash: 'SELECT decision_pin_hash FROM accounts WHERE user_id = $1',
  verifyBackup: `UPDATE accounts SET backup_phone_status = 'verified', updated_at = $3
                 WHERE user_id = $1 AND backup_phone = $2 AND backup_phone_status = 'pending'`,
  rotateKey:
    'UPDATE accounts SET api_key_sealed = $2, api_key_mac = $3, key_created_at = $4, updated_at = $4 WHERE user_id = $1',
  delete: 'DELETE FROM accounts WHERE user_id = $1',
  // The queued calls of an account just suspended: their timeline's step first, then the step.
  suspendedEvents: `INSERT INTO call_events (call_id, at, event, detail)
           SELECT call_id, $2::bigint, 'failed', $3::text FROM calls WHERE user_id = $1 AND status = 'queued'`,
  suspendedCalls: `UPDATE calls SET status = 'failed', ended_at = $2, error = $3, sms_status = coalesce(sms_status, $4), updated_at = $2
           WHERE user_id = $1 AND status = 'queued'`,
  fingerprint: 'SELECT fingerprint FROM secret_key_check WHERE id = 1',
  adoptFingerprint: 'INSERT INTO secret_key_check (id, fingerprint) VALUES (1, $1) ON CONFLICT (id) DO NOTHING',
  setFingerprint:
    'INSERT INTO secret_key_check (id, fingerprint) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint',
} as const;

// Compared against when the user_id is unknown, so that an unknown user_id and a wrong key take
// the same time.
const DUMMY_MAC = randomBytes(32);

/**
 * Refuses a database whose keys were sealed with another secret key; the first node to open an
 * empty one stores its key's fingerprint.
 */
export async function checkSecretKey(sql: Sql, secrets: SecretBox, location: string): Promise<void> {
  await query(sql, SQL.adoptFingerprint, [secrets.fingerprint]);
  const [row] = await query<{ fingerprint: Buffer }>(sql, SQL.fingerprint);
  if (row && !secrets.hasFingerprint(row.fingerprint))
    throw new UserError(wrongSecretKeyMessage(location, secrets.source));
}

export class PgAccountStore implements AccountRepo {
  constructor(
    private readonly sql: Sql,
    private readonly secrets: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

  private sealedKey(userId: string, apiKey: string): [string, Buffer] {
    return [this.secrets.seal(apiKey, userId), this.secrets.mac(apiKey)];
  }

  private open(row: AccountRow): Account {
    return toAccount(row, this.secrets.open(row.api_key_sealed, row.user_id));
  }

  async create(input: NewAccount): Promise<Account> {
    const userId = newUserId();
    await query(this.sql, SQL.insert, [
      userId,
      ...this.sealedKey(userId, newApiKey()),
      input.name,
      input.phone,
      input.plan,
      ...Object.values(settingColumns(newAccountSettings(input))),
      input.decisionPinHash ?? null,
      this.now(),
    ]);
    return (await this.get(userId))!;
  }

  async get(userId: string): Promise<Account | undefined> {
    const [row] = await query<AccountRow>(this.sql, SQL.get, [userId]);
    return row ? this.open(row) : undefined;
  }

  async list(): Promise<Account[]> {
    return (await query<AccountRow>(this.sql, SQL.list)).map((row) => this.open(row));
  }

  async count(): Promise<number> {
    const [row] = await query<{ n: number }>(this.sql, SQL.count);
    return row?.n ?? 0;
  }

  async languagesInUse(): Promise<string[]> {
    return (await query<{ language: string }>(this.sql, SQL.languages)).map((row) => row.language);
  }

  /**
   * Changes an account. Suspending it ends its queued calls in the same transaction (rows.ts
   * endedBySuspension): the claim reads each call's row again, so none is placed after this, on
   * any node.
   */
  async update(userId: string, changes: AccountChanges): Promise<Account | undefined> {
    const current = await this.get(userId);
    if (!current) return undefined;
    const next = { ...current, ...changes };
    const changed = await this.sql.begin(async (tx) => {
      const now = this.now();
      const { count } = await query(tx, SQL.update, [
        userId,
        next.name,
        next.phone,
        next.plan,
        ...Object.values(settingColumns(next)),
        next.status,
        now,
        changes.decisionPinHash !== undefined,
        changes.decisionPinHash ?? null,
      ]);
      if (count === 1 && next.status === 'suspended') {
        const { error, smsStatus } = endedBySuspension(next);
        await query(tx, SQL.suspendedEvents, [userId, now, error]);
        await query(tx, SQL.suspendedCalls, [userId, now, error, smsStatus]);
      }
      return count === 1;
    });
    return changed ? this.get(userId) : undefined;
  }

  /** Whether `pin` is the account's decision PIN (false when none is set), compared as a password is. */
  async verifyDecisionPin(userId: string, pin: string): Promise<boolean> {
    const [row] = await query<{ decision_pin_hash: string | null }>(this.sql, SQL.pinHash, [userId]);
    return verifyPassword(pin, row?.decision_pin_hash);
  }

  async verifyBackupPhone(userId: string, phone: string): Promise<boolean> {
    const { count } = await query(this.sql, SQL.verifyBackup, [userId, phone, this.now()]);
    return count === 1;
  }

  /** Issues a new api_key; the old webhook URL stops working at once. */
  async regenerateKey(userId: string): Promise<Account | undefined> {
    const changed = await this.rotate(this.sql, userId, this.now());
    return changed ? this.get(userId) : undefined;
  }

  private async rotate(db: Queryable, userId: string, now: number): Promise<boolean> {
    return (await query(db, SQL.rotateKey, [userId, ...this.sealedKey(userId, newApiKey()), now])).count === 1;
  }

  /** A new api_key for every account, sealed with this store's secret key, which the database adopts. */
  async regenerateAllKeys(): Promise<Account[]> {
    await this.sql.begin(async (tx) => {
      const now = this.now();
      for (const { user_id } of await query<{ user_id: string }>(tx, SQL.userIds)) await this.rotate(tx, user_id, now);
      await query(tx, SQL.setFingerprint, [this.secrets.fingerprint]);
    });
    return this.list();
  }

  async delete(userId: string): Promise<boolean> {
    return (await query(this.sql, SQL.delete, [userId])).count === 1;
  }

  /**
   * The account the webhook credentials belong to, or undefined. A known user_id with a wrong key
   * and an unknown one run the same query and the same HMAC and comparison; the account is loaded
   * only once the key matched (and then needs no opening: the given key is the right one).
   */
  async authenticate(userId: string, apiKey: string): Promise<Account | undefined> {
    const [row] = await query<{ user_id: string | null; mac: Buffer }>(this.sql, SQL.credentials, [userId, DUMMY_MAC]);
    const given = this.secrets.mac(apiKey);
    const equal = row !== undefined && row.mac.length === given.length && timingSafeEqual(given, row.mac);
    if (!equal || row.user_id === null) return undefined;
    const [account] = await query<AccountRow>(this.sql, SQL.get, [row.user_id]);
    return account && toAccount(account, apiKey);
  }
}
