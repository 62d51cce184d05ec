// How account owners sign in to the dashboard: a password set by the admin, one-time sign-in
// links printed by the CLI, and the admin flag.
import type { Db } from './connect.js';
import { hashPassword, verifyPassword } from '../password-hash.js';
import { hashToken, TOKEN_PATTERN } from '../tokens.js';
import { type AuthRow, newLoginLink } from '../rows.js';
import type { OwnerAuthRepo } from '../contract/index.js';

const SQL = {
  get: 'SELECT user_id, password_hash, is_admin FROM owner_auth WHERE user_id = ?',
  setPassword: `INSERT INTO owner_auth (user_id, password_hash, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET password_hash = excluded.password_hash, updated_at = excluded.updated_at`,
  setAdmin: `INSERT INTO owner_auth (user_id, is_admin, updated_at) VALUES (?, ?, ?)
             ON CONFLICT (user_id) DO UPDATE SET is_admin = excluded.is_admin, updated_at = excluded.updated_at`,
  insertLink: 'INSERT INTO login_links (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
  useLink: `UPDATE login_links SET used_at = @now WHERE token_hash = @token_hash AND used_at IS NULL AND expires_at > @now
            RETURNING user_id`,
  pruneLinks: 'DELETE FROM login_links WHERE expires_at < ?',
  dropLinks: 'DELETE FROM login_links WHERE user_id = ? AND used_at IS NULL',
} as const;

export class SqliteOwnerAuthStore implements OwnerAuthRepo {
  private readonly stmt;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.stmt = {
      get: db.prepare<[string], AuthRow>(SQL.get),
      setPassword: db.prepare(SQL.setPassword),
      setAdmin: db.prepare(SQL.setAdmin),
      insertLink: db.prepare(SQL.insertLink),
      useLink: db.prepare<{ token_hash: string; now: number }, { user_id: string }>(SQL.useLink),
      pruneLinks: db.prepare(SQL.pruneLinks),
      dropLinks: db.prepare(SQL.dropLinks),
    };
  }

  /** Sets the password; the sign-in links not used yet stop working (a new password is often a suspected leak). */
  async setPassword(userId: string, password: string): Promise<void> {
    const hash = await hashPassword(password);
    this.db
      .transaction(() => {
        this.stmt.setPassword.run(userId, hash, this.now());
        this.stmt.dropLinks.run(userId);
      })
      .immediate();
  }

  hasPassword(userId: string): boolean {
    return Boolean(this.stmt.get.get(userId)?.password_hash);
  }

  /** True when the account exists, has a password, and it matches (always as slow as a real check). */
  async checkPassword(userId: string, password: string): Promise<boolean> {
    return verifyPassword(password, this.stmt.get.get(userId)?.password_hash);
  }

  isAdmin(userId: string): boolean {
    return this.stmt.get.get(userId)?.is_admin === 1;
  }

  setAdmin(userId: string, admin: boolean): void {
    this.stmt.setAdmin.run(userId, admin ? 1 : 0, this.now());
  }

  /** A new one-time sign-in token; the caller builds the link. */
  createLoginLink(userId: string): { token: string; expiresAt: number } {
    const { token, expiresAt, values, pruneBefore } = newLoginLink(userId, this.now());
    this.db.transaction(() => {
      this.stmt.pruneLinks.run(pruneBefore);
      this.stmt.insertLink.run(...values);
    })();
    return { token, expiresAt };
  }

  /** Spends a sign-in token: the account it belongs to, or undefined when unknown, used or expired. */
  useLoginLink(token: string): string | undefined {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    return this.stmt.useLink.get({ token_hash: hashToken(token), now: this.now() })?.user_id;
  }
}
