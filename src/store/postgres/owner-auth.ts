// How account owners sign in to the dashboard, in PostgreSQL, as SqliteOwnerAuthStore does in SQLite.
import { hashPassword, verifyPassword } from '../password-hash.js';
import type { OwnerAuthRepo } from '../contract/index.js';
import { hashToken, TOKEN_PATTERN } from '../tokens.js';
import { type AuthRow, newLoginLink } from '../rows.js';
import { query, type Sql } from './connect.js';
import { OWNER_AUTH_SQL } from '../sql/owner-auth.js';

const SQL = OWNER_AUTH_SQL;

export class PgOwnerAuthStore implements OwnerAuthRepo {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now,
  ) {}

  private async row(userId: string): Promise<AuthRow | undefined> {
    const [row] = await query<AuthRow>(this.sql, SQL.get, [userId]);
    return row;
  }

  /** Sets the password; the sign-in links not used yet stop working (a new password is often a suspected leak). */
  async setPassword(userId: string, password: string): Promise<void> {
    const hash = await hashPassword(password);
    await this.sql.begin(async (tx) => {
      await query(tx, SQL.setPassword, [userId, hash, this.now()]);
      await query(tx, SQL.dropLinks, [userId]);
    });
  }

  async hasPassword(userId: string): Promise<boolean> {
    return Boolean((await this.row(userId))?.password_hash);
  }

  /** True when the account exists, has a password, and it matches (always as slow as a real check). */
  async checkPassword(userId: string, password: string): Promise<boolean> {
    return verifyPassword(password, (await this.row(userId))?.password_hash);
  }

  async isAdmin(userId: string): Promise<boolean> {
    return (await this.row(userId))?.is_admin === 1;
  }

  async setAdmin(userId: string, admin: boolean): Promise<void> {
    await query(this.sql, SQL.setAdmin, [userId, admin ? 1 : 0, this.now()]);
  }

  /** A new one-time sign-in token; the caller builds the link. */
  async createLoginLink(userId: string): Promise<{ token: string; expiresAt: number }> {
    const { token, expiresAt, values, pruneBefore } = newLoginLink(userId, this.now());
    await this.sql.begin(async (tx) => {
      await query(tx, SQL.pruneLinks, [pruneBefore]);
      await query(tx, SQL.insertLink, [...values]);
    });
    return { token, expiresAt };
  }

  /** Spends a sign-in token: the account it belongs to, or undefined when unknown, used or expired. */
  async useLoginLink(token: string): Promise<string | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const [row] = await query<{ user_id: string }>(this.sql, SQL.useLink, [hashToken(token), this.now()]);
    return row?.user_id;
  }
}
