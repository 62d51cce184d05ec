// Browser sessions of the dashboard in PostgreSQL, as SqliteSessionStore keeps them in SQLite: only the
// token's hash is stored.
import { SESSION_IDLE_MS, SESSION_MAX_AGE_MS, type Session, TOUCH_EVERY_MS } from '../../core/records.js';
import type { SessionRow } from '../rows.js';
import type { SessionRepo } from '../contract/index.js';
import { hashToken, newToken, TOKEN_PATTERN } from '../tokens.js';
import { query, type Sql } from './connect.js';
import { SESSION_SQL } from '../sql/sessions.js';

const SQL = SESSION_SQL;

export class PgSessionStore implements SessionRepo {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts a session; returns the token for the cookie (never stored as is). */
  async create(userId: string): Promise<{ token: string; session: Session }> {
    const now = this.now();
    await query(this.sql, SQL.prune, [now, now - SESSION_IDLE_MS]);
    const token = newToken();
    const session: Session = { userId, csrfToken: newToken(), createdAt: now, expiresAt: now + SESSION_MAX_AGE_MS };
    await query(this.sql, SQL.insert, [hashToken(token), userId, session.csrfToken, now, session.expiresAt]);
    return { token, session };
  }

  /** The live session the token names, or undefined (unknown, expired, idle too long). */
  async get(token: string): Promise<Session | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const key = hashToken(token);
    const [row] = await query<SessionRow>(this.sql, SQL.get, [key]);
    if (!row) return undefined;
    const now = this.now();
    if (row.expires_at <= now || row.last_seen_at <= now - SESSION_IDLE_MS) {
      await query(this.sql, SQL.delete, [key]);
      return undefined;
    }
    if (now - row.last_seen_at >= TOUCH_EVERY_MS) await query(this.sql, SQL.touch, [now, key]);
    return { userId: row.user_id, csrfToken: row.csrf_token, createdAt: row.created_at, expiresAt: row.expires_at };
  }

  async delete(token: string): Promise<void> {
    if (TOKEN_PATTERN.test(token)) await query(this.sql, SQL.delete, [hashToken(token)]);
  }

  /** Signs the account out everywhere (its password changed). */
  async deleteForAccount(userId: string): Promise<void> {
    await query(this.sql, SQL.deleteForAccount, [userId]);
  }
}
