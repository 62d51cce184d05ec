// How account owners sign in to the dashboard: a password set by the admin, one-time sign-in
// links printed by the CLI, and the admin flag.
import { SqliteRepo } from './repo.js';
import { hashPassword, verifyPassword } from '../password-hash.js';
import { hashToken, TOKEN_PATTERN } from '../tokens.js';
import { type AuthRow, newLoginLink } from '../rows.js';
import type { OwnerAuthRepo } from '../contract/index.js';
import { OWNER_AUTH_SQL } from '../sql/owner-auth.js';
import { positional } from './named.js';

const SQL = OWNER_AUTH_SQL;

export class SqliteOwnerAuthStore extends SqliteRepo implements OwnerAuthRepo {
  private readonly stmt = {
    get: positional<AuthRow>(this.db, SQL.get),
    setPassword: positional(this.db, SQL.setPassword),
    setAdmin: positional(this.db, SQL.setAdmin),
    insertLink: positional(this.db, SQL.insertLink),
    useLink: positional<{ user_id: string }>(this.db, SQL.useLink),
    pruneLinks: positional(this.db, SQL.pruneLinks),
    dropLinks: positional(this.db, SQL.dropLinks),
  };

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
    return this.stmt.useLink.get(hashToken(token), this.now())?.user_id;
  }
}
