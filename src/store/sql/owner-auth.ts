// How owners sign in: the same statements on both stores (written with $1, $2…; SQLite binds them by
// name: sqlite/named.ts). Each store keeps only how it runs them.
export const OWNER_AUTH_SQL = {
  get: 'SELECT user_id, password_hash, is_admin FROM owner_auth WHERE user_id = $1',
  setPassword: `INSERT INTO owner_auth (user_id, password_hash, updated_at) VALUES ($1, $2, $3)
                ON CONFLICT (user_id) DO UPDATE SET password_hash = excluded.password_hash, updated_at = excluded.updated_at`,
  setAdmin: `INSERT INTO owner_auth (user_id, is_admin, updated_at) VALUES ($1, $2, $3)
             ON CONFLICT (user_id) DO UPDATE SET is_admin = excluded.is_admin, updated_at = excluded.updated_at`,
  insertLink: 'INSERT INTO login_links (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
  useLink: `UPDATE login_links SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
            RETURNING user_id`,
  pruneLinks: 'DELETE FROM login_links WHERE expires_at < $1',
  dropLinks: 'DELETE FROM login_links WHERE user_id = $1 AND used_at IS NULL',
} as const;
