// The dashboard's sessions: the same statements on both stores (written with $1, $2…, as PostgreSQL
// spells them; SQLite binds them by name: sqlite/named.ts). Each store keeps only how it runs them:
// SQLite in the process, synchronously; PostgreSQL over its connection.
export const SESSION_SQL = {
  insert: `INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, last_seen_at, expires_at)
           VALUES ($1, $2, $3, $4, $4, $5)`,
  get: 'SELECT user_id, csrf_token, created_at, last_seen_at, expires_at FROM sessions WHERE token_hash = $1',
  touch: 'UPDATE sessions SET last_seen_at = $1 WHERE token_hash = $2',
  delete: 'DELETE FROM sessions WHERE token_hash = $1',
  deleteForAccount: 'DELETE FROM sessions WHERE user_id = $1',
  prune: 'DELETE FROM sessions WHERE expires_at <= $1 OR last_seen_at <= $2',
} as const;
