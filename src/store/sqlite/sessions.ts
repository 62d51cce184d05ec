// Browser sessions of the dashboard. The cookie carries a random token; the table keeps its hash,
// the account, the session's CSRF token and its lifetime.
import type { Db } from './connect.js';
import { hashToken, newToken, TOKEN_PATTERN } from '../tokens.js';
import { SESSION_IDLE_MS, SESSION_MAX_AGE_MS, TOUCH_EVERY_MS, type Session } from '../../core/records.js';
import type { SessionRow } from '../rows.js';
import type { SessionRepo } from '../contract/index.js';
import { SESSION_SQL } from '../sql/sessions.js';
import { positional } from './named.js';

const SQL = SESSION_SQL;

export class SqliteSessionStore implements SessionRepo {
  private readonly stmt;

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.stmt = {
      insert: positional(db, SQL.insert),
      get: positional<SessionRow>(db, SQL.get),
      touch: positional(db, SQL.touch),
      delete: positional(db, SQL.delete),
      deleteForAccount: positional(db, SQL.deleteForAccount),
      prune: positional(db, SQL.prune),
    };
  }

  /** Starts a session; returns the token for the cookie (never stored as is). */
  create(userId: string): { token: string; session: Session } {
    const now = this.now();
    this.stmt.prune.run(now, now - SESSION_IDLE_MS);
    const token = newToken();
    const session: Session = { userId, csrfToken: newToken(), createdAt: now, expiresAt: now + SESSION_MAX_AGE_MS };
    this.stmt.insert.run(hashToken(token), userId, session.csrfToken, now, session.expiresAt);
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
