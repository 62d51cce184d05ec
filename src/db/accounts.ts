// Accounts in SQLite. The api_key is compared in constant time by the caller (see authenticate()).
import { timingSafeEqual } from 'node:crypto';
import type { Account, AccountStatus } from '../core/account.js';
import { newApiKey, newUserId } from '../core/ids.js';
import type { Plan } from '../core/limits.js';
import type { Db } from './database.js';

interface AccountRow {
  user_id: string;
  api_key: string;
  name: string;
  phone: string;
  plan: Plan;
  sms_backup: number;
  status: AccountStatus;
  created_at: number;
  updated_at: number;
  key_created_at: number;
}

const SQL = {
  insert: `INSERT INTO accounts (user_id, api_key, name, phone, plan, sms_backup, status, created_at, updated_at, key_created_at)
           VALUES (@user_id, @api_key, @name, @phone, @plan, @sms_backup, 'active', @now, @now, @now)`,
  get: 'SELECT * FROM accounts WHERE user_id = ?',
  // Always exactly one row of the same shape, whether or not the user_id exists (the dummy key
  // stands in), so that both cases do the same work.
  credentials: 'SELECT a.user_id, coalesce(a.api_key, @dummy) AS api_key FROM (SELECT 1) LEFT JOIN accounts a ON a.user_id = @user_id',
  list: 'SELECT * FROM accounts ORDER BY created_at, user_id',
  update: `UPDATE accounts SET name = @name, phone = @phone, plan = @plan, sms_backup = @sms_backup, status = @status, updated_at = @now
           WHERE user_id = @user_id`,
  rotateKey: 'UPDATE accounts SET api_key = ?, key_created_at = ?, updated_at = ? WHERE user_id = ?',
  delete: 'DELETE FROM accounts WHERE user_id = ?',
} as const;

function toAccount(row: AccountRow): Account {
  return {
    userId: row.user_id,
    apiKey: row.api_key,
    name: row.name,
    phone: row.phone,
    plan: row.plan,
    smsBackup: row.sms_backup === 1,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    keyCreatedAt: row.key_created_at,
  };
}

export interface NewAccount {
  phone: string;
  plan: Plan;
  smsBackup: boolean;
  name: string;
}

export type AccountChanges = Partial<Pick<Account, 'name' | 'phone' | 'plan' | 'smsBackup' | 'status'>>;

// A fixed key of the right length, compared against when the user_id is unknown, so that an unknown
// user_id and a wrong key take the same time.
const DUMMY_KEY = newApiKey();

export class AccountStore {
  private readonly stmt;

  constructor(db: Db, private readonly now: () => number = Date.now) {
    this.stmt = {
      insert: db.prepare(SQL.insert),
      get: db.prepare<[string], AccountRow>(SQL.get),
      credentials: db.prepare<[{ user_id: string; dummy: string }], { user_id: string | null; api_key: string }>(SQL.credentials),
      list: db.prepare<[], AccountRow>(SQL.list),
      update: db.prepare(SQL.update),
      rotateKey: db.prepare(SQL.rotateKey),
      delete: db.prepare(SQL.delete),
    };
  }

  create(input: NewAccount): Account {
    const userId = newUserId();
    this.stmt.insert.run({
      user_id: userId,
      api_key: newApiKey(),
      name: input.name,
      phone: input.phone,
      plan: input.plan,
      sms_backup: input.smsBackup ? 1 : 0,
      now: this.now(),
    });
    return this.get(userId)!;
  }

  get(userId: string): Account | undefined {
    const row = this.stmt.get.get(userId);
    return row ? toAccount(row) : undefined;
  }

  list(): Account[] {
    return this.stmt.list.all().map(toAccount);
  }

  update(userId: string, changes: AccountChanges): Account | undefined {
    const current = this.get(userId);
    if (!current) return undefined;
    const next = { ...current, ...changes };
    this.stmt.update.run({
      user_id: userId,
      name: next.name,
      phone: next.phone,
      plan: next.plan,
      sms_backup: next.smsBackup ? 1 : 0,
      status: next.status,
      now: this.now(),
    });
    return this.get(userId);
  }

  /** Issues a new api_key; the old webhook URL stops working at once. */
  regenerateKey(userId: string): Account | undefined {
    const now = this.now();
    const changed = this.stmt.rotateKey.run(newApiKey(), now, now, userId).changes;
    return changed === 1 ? this.get(userId) : undefined;
  }

  delete(userId: string): boolean {
    return this.stmt.delete.run(userId).changes === 1;
  }

  /**
   * The account the webhook credentials belong to, or undefined. A known user_id with a wrong key
   * and an unknown one run the same query and the same comparison; the account is loaded only once
   * the key matched.
   */
  authenticate(userId: string, apiKey: string): Account | undefined {
    const row = this.stmt.credentials.get({ user_id: userId, dummy: DUMMY_KEY })!;
    const expected = Buffer.from(row.api_key);
    const given = Buffer.from(apiKey);
    const sameLength = given.length === expected.length;
    const equal = timingSafeEqual(sameLength ? given : expected, expected) && sameLength;
    return equal && row.user_id !== null ? this.get(row.user_id) : undefined;
  }
}
