// Browser sessions of the dashboard. The cookie carries a random token; the table keeps its hash,
// the account, the session's CSRF token and its lifetime.
import type { Db } from './connect.js';
import { hashToken, newToken, TOKEN_PATTERN } from '../tokens.js';
import { SESSION_IDLE_MS, SESSION_MAX_AGE_MS, TOUCH_EVERY_MS, type Session } from '../../core/records.js';
import type { SessionRow } from '../rows.js';
import type { SessionRepo } from '../contract.js';

const SQL = {
  insert: `INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, last_seen_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?)`,
  get: 'SELECT user_id, csrf_token, created_at, last_seen_at, expires_at FROM sessions WHERE token_hash = ?',
  touch: 'UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?',
  delete: 'DELETE FROM sessions WHERE token_hash = ?',
  deleteForAccount: 'DELETE FROM sessions WHERE user_id = ?',
  prune: 'DELETE FROM sessions WHERE expires_at <= @now OR last_seen_at <= @idle_before',
} as const;

export class SqliteSessionStore implements SessionRepo {
  private readonly stmt;

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.stmt = {
      insert: db.prepare(SQL.insert),
      get: db.prepare<[string], SessionRow>(SQL.get),
      touch: db.prepare(SQL.touch),
      delete: db.prepare(SQL.delete),
      deleteForAccount: db.prepare(SQL.deleteForAccount),
      prune: db.prepare(SQL.prune),
    };
  }

  /** Starts a session; returns the token for the cookie (never stored as is). */
  create(userId: string): { token: string; session: Session } {
    const now = this.now();
    this.stmt.prune.run({ now, idle_before: now - SESSION_IDLE_MS });
    const token = newToken();
    const session: Session = { userId, csrfToken: newToken(), createdAt: now, expiresAt: now + SESSION_MAX_AGE_MS };
    this.stmt.insert.run(hashToken(token), userId, session.csrfToken, now, now, session.expiresAt);
    return { token, session };
  }

  /** The live session the token names, or undefined (unknown, expired, idle too long). */
  get(token: string): Session | undefined {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const key = hashToken(token);
    const row = this.stmt.get.get(key);
    if (!row) return undefined;
    const now = this.now();
    if (row.expires_at <= now || row.last_seen_at <= now - SESSION_IDLE_MS) {
      this.stmt.delete.run(key);
      return undefined;
    }
    if (now - row.last_seen_at >= TOUCH_EVERY_MS) this.stmt.touch.run(now, key);
    return { userId: row.user_id, csrfToken: row.csrf_token, createdAt: row.created_at, expiresAt: row.expires_at };
  }

  delete(token: string): void {
    if (TOKEN_PATTERN.test(token)) this.stmt.delete.run(hashToken(token));
  }

  /** Signs the account out everywhere (its password changed). */
  deleteForAccount(userId: string): void {
    this.stmt.deleteForAccount.run(userId);
  }
}
