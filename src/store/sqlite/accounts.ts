// Accounts in SQLite. The api_key is stored sealed (AES-256-GCM) beside its HMAC: the webhook
// compares HMACs in constant time, and only what shows the URL opens the sealed key.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Account } from '../../core/account.js';
import { newApiKey, newUserId } from '../../core/ids.js';
import { UserError } from '../../lib/errors.js';
import type { Db } from './connect.js';
import type { SecretBox } from '../secret-box.js';
import { endedBySuspension, wrongSecretKeyMessage } from '../rows.js';
import { ACCOUNT_COLUMNS, type AccountRow, newAccountSettings, settingColumns, toAccount } from '../account-rows.js';
import type { AccountChanges, NewAccount } from '../../core/records.js';
import type { AccountRepo } from '../contract/index.js';
import { verifyPassword } from '../password-hash.js';

// The account with whether it has a callback URL: read once, with it (the callback feed needs no read of its own).
const COLUMNS = `${ACCOUNT_COLUMNS}, EXISTS (SELECT 1 FROM callback_settings c WHERE c.user_id = accounts.user_id AND c.url IS NOT NULL) AS callback_on`;

// The account as the webhook reads it: the sealed key is not read (the given key is the right one).
const WEBHOOK_COLUMNS = `${ACCOUNT_COLUMNS.replace('api_key_sealed, ', '')}, EXISTS (SELECT 1 FROM callback_settings c WHERE c.user_id = a.user_id AND c.url IS NOT NULL) AS callback_on`;

type WebhookRow = Omit<AccountRow, 'api_key_sealed'>;

const SQL = {
  insert: `INSERT INTO accounts (user_id, api_key_sealed, api_key_mac, name, phone, plan, sms_backup, require_confirm, language, voice, intro, status, dedupe_seconds, webhook_sources, quiet_hours, time_zone, quiet_mode, ring_again, ring_again_after, backup_phone, backup_phone_status, decision_keys, decision_pin_hash, created_at, updated_at, key_created_at)
           VALUES (@user_id, @sealed, @mac, @name, @phone, @plan, @sms_backup, @require_confirm, @language, @voice, @intro, 'active', @dedupe_seconds, @webhook_sources, @quiet_hours, @time_zone, @quiet_mode, @ring_again, @ring_again_after, @backup_phone, @backup_phone_status, @decision_keys, @pin_hash, @now, @now, @now)`,
  get: `SELECT ${COLUMNS} FROM accounts WHERE user_id = ?`,
  // The webhook's one read (#58): the HMAC with the whole account, always exactly one row of the same
  // shape whether or not the user_id exists (the dummy HMAC stands in, the account's columns null),
  // so that both cases do the same work; one statement, so no read transaction around two.
  credentials: `SELECT coalesce(a.api_key_mac, @dummy) AS mac, ${WEBHOOK_COLUMNS}
                FROM (SELECT 1) LEFT JOIN accounts a ON a.user_id = @user_id`,
  list: `SELECT ${COLUMNS} FROM accounts ORDER BY created_at, user_id`,
  userIds: 'SELECT user_id FROM accounts',
  count: 'SELECT count(*) FROM accounts',
  languages: 'SELECT DISTINCT language FROM accounts',
  update: `UPDATE accounts SET name = @name, phone = @phone, plan = @plan, sms_backup = @sms_backup, require_confirm = @require_confirm, language = @language, voice = @voice, intro = @intro, status = @status, dedupe_seconds = @dedupe_seconds, webhook_sources = @webhook_sources, quiet_hours = @quiet_hours, time_zone = @time_zone, quiet_mode = @quiet_mode, ring_again = @ring_again, ring_again_after = @ring_again_after, backup_phone = @backup_phone, backup_phone_status = @backup_phone_status, decision_keys = @decision_keys,
             decision_pin_hash = CASE WHEN @pin_given = 1 THEN @pin_hash ELSE decision_pin_hash END, updated_at = @now
           WHERE user_id = @user_id`,
  pinHash: 'SELECT decision_pin_hash FROM accounts WHERE user_id = ?',
  verifyBackup: `UPDATE accounts SET backup_phone_status = 'verified', updated_at = @now
                 WHERE user_id = @user_id AND backup_phone = @phone AND backup_phone_status = 'pending'`,
  rotateKey:
    'UPDATE accounts SET api_key_sealed = @sealed, api_key_mac = @mac, key_created_at = @now, updated_at = @now WHERE user_id = @user_id',
  delete: 'DELETE FROM accounts WHERE user_id = ?',
  // The queued calls of an account just suspended: their timeline's step first, then the step.
  suspendedEvents: `INSERT INTO call_events (call_id, at, event, detail)
           SELECT call_id, @now, 'failed', @error FROM calls WHERE user_id = @user_id AND status = 'queued'`,
  suspendedCalls: `UPDATE calls SET status = 'failed', ended_at = @now, error = @error, sms_status = coalesce(sms_status, @sms_status), updated_at = @now
           WHERE user_id = @user_id AND status = 'queued'`,
  fingerprint: 'SELECT fingerprint FROM secret_key_check WHERE id = 1',
  setFingerprint: 'INSERT OR REPLACE INTO secret_key_check (id, fingerprint) VALUES (1, ?)',
} as const;

// Compared against when the user_id is unknown, so that an unknown user_id and a wrong key take
// the same time.
const DUMMY_MAC = randomBytes(32);

export class SqliteAccountStore implements AccountRepo {
  private readonly stmt;
  /**
   * Refuses a database whose keys were sealed with another secret key, unless `checkKey` is false
   * (only to replace every key with regenerateAllKeys()).
   */
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
    private readonly now: () => number = Date.now,
    options: { checkKey?: boolean } = {},
  ) {
    this.stmt = {
      insert: db.prepare(SQL.insert),
      get: db.prepare<[string], AccountRow>(SQL.get),
      credentials: db.prepare<
        [{ user_id: string; dummy: Buffer }],
        { mac: Buffer } & (WebhookRow | { [K in keyof WebhookRow]: null })
      >(SQL.credentials),
      list: db.prepare<[], AccountRow>(SQL.list),
      userIds: db.prepare<[], string>(SQL.userIds).pluck(),
      count: db.prepare<[], number>(SQL.count).pluck(),
      languages: db.prepare<[], string>(SQL.languages).pluck(),
      update: db.prepare(SQL.update),
      rotateKey: db.prepare(SQL.rotateKey),
      verifyBackup: db.prepare(SQL.verifyBackup),
      delete: db.prepare(SQL.delete),
      suspendedEvents: db.prepare(SQL.suspendedEvents),
      suspendedCalls: db.prepare(SQL.suspendedCalls),
      fingerprint: db.prepare<[], Buffer>(SQL.fingerprint).pluck(),
      setFingerprint: db.prepare(SQL.setFingerprint),
      pinHash: db.prepare<[string], string | null>(SQL.pinHash).pluck(),
    };
    if (options.checkKey !== false) this.checkSecretKey();
  }

  private checkSecretKey(): void {
    const stored = this.stmt.fingerprint.get();
    if (stored === undefined) this.stmt.setFingerprint.run(this.secrets.fingerprint);
    else if (!this.secrets.hasFingerprint(stored))
      throw new UserError(wrongSecretKeyMessage(this.db.name, this.secrets.source));
  }

  private sealedKey(userId: string, apiKey: string) {
    return { sealed: this.secrets.seal(apiKey, userId), mac: this.secrets.mac(apiKey) };
  }

  private open(row: AccountRow): Account {
    return toAccount(row, this.secrets.open(row.api_key_sealed, row.user_id));
  }

  create(input: NewAccount): Account {
    const userId = newUserId();
    this.stmt.insert.run({
      user_id: userId,
      ...this.sealedKey(userId, newApiKey()),
      name: input.name,
      phone: input.phone,
      plan: input.plan,
      ...settingColumns(newAccountSettings(input)),
      pin_hash: input.decisionPinHash ?? null,
      now: this.now(),
    });
    return this.get(userId)!;
  }

  get(userId: string): Account | undefined {
    const row = this.stmt.get.get(userId);
    return row ? this.open(row) : undefined;
  }

  list(): Account[] {
    return this.stmt.list.all().map((row) => this.open(row));
  }

  count(): number {
    return this.stmt.count.get()!;
  }

  languagesInUse(): string[] {
    return this.stmt.languages.all();
  }

  /**
   * Changes an account. Suspending it ends its queued calls in the same transaction (rows.ts
   * endedBySuspension): the claim reads each call's row again, so none is placed after this, on
   * any process sharing the database.
   */
  update(userId: string, changes: AccountChanges): Account | undefined {
    return this.db
      .transaction(() => {
        const current = this.get(userId);
        if (!current) return undefined;
        const next = { ...current, ...changes };
        const now = this.now();
        this.stmt.update.run({
          user_id: userId,
          name: next.name,
          phone: next.phone,
          plan: next.plan,
          ...settingColumns(next),
          status: next.status,
          pin_given: changes.decisionPinHash === undefined ? 0 : 1,
          pin_hash: changes.decisionPinHash ?? null,
          now,
        });
        if (next.status === 'suspended') {
          const { error, smsStatus } = endedBySuspension(next);
          this.stmt.suspendedEvents.run({ user_id: userId, now, error });
          this.stmt.suspendedCalls.run({ user_id: userId, now, error, sms_status: smsStatus });
        }
        return this.get(userId);
      })
      .immediate();
  }

  /** Whether `pin` is the account's decision PIN (false when none is set), compared as a password is. */
  verifyDecisionPin(userId: string, pin: string): Promise<boolean> {
    return verifyPassword(pin, this.stmt.pinHash.get(userId));
  }

  verifyBackupPhone(userId: string, phone: string): boolean {
    return this.stmt.verifyBackup.run({ user_id: userId, phone, now: this.now() }).changes === 1;
  }

  /** Issues a new api_key; the old webhook URL stops working at once. */
  regenerateKey(userId: string): Account | undefined {
    const changed = this.stmt.rotateKey.run({
      user_id: userId,
      ...this.sealedKey(userId, newApiKey()),
      now: this.now(),
    }).changes;
    return changed === 1 ? this.get(userId) : undefined;
  }

  /** A new api_key for every account, sealed with this store's secret key, which the database adopts. */
  regenerateAllKeys(): Account[] {
    this.db
      .transaction(() => {
        const now = this.now();
        for (const userId of this.stmt.userIds.all())
          this.stmt.rotateKey.run({ user_id: userId, ...this.sealedKey(userId, newApiKey()), now });
        this.stmt.setFingerprint.run(this.secrets.fingerprint);
      })
      .immediate();
    return this.list();
  }

  delete(userId: string): boolean {
    return this.stmt.delete.run(userId).changes === 1;
  }

  /**
   * The account the webhook credentials belong to, or undefined. A known user_id with a wrong key
   * and an unknown one run the same query and the same HMAC and comparison; the account, read with
   * its HMAC, is built only once the key matched (and needs no opening: the given key is the right one).
   */
  authenticate(userId: string, apiKey: string): Account | undefined {
    const row = this.stmt.credentials.get({ user_id: userId, dummy: DUMMY_MAC })!;
    const given = this.secrets.mac(apiKey);
    const equal = row.mac.length === given.length && timingSafeEqual(given, row.mac);
    if (!equal || row.user_id === null) return undefined;
    return toAccount(row, apiKey);
  }
}
