// The owner's dashboard: sign-in credentials and the admin flag, browser sessions, one-time
// sign-in links, and an index for the history filtered by status.
export default `
CREATE TABLE owner_auth (
  user_id       TEXT PRIMARY KEY REFERENCES accounts (user_id) ON DELETE CASCADE,
  password_hash TEXT,
  is_admin      INTEGER NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1)),
  updated_at    INTEGER NOT NULL
) STRICT;

-- Only a SHA-256 of the session token is stored: a copy of the database cannot be used to sign in.
CREATE TABLE sessions (
  token_hash   TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES accounts (user_id) ON DELETE CASCADE,
  csrf_token   TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX sessions_by_account ON sessions (user_id);

CREATE TABLE login_links (
  token_hash TEXT PRIMARY KEY,
  user_id    TEXT NOT NULL REFERENCES accounts (user_id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER
) STRICT, WITHOUT ROWID;

CREATE INDEX calls_by_account_status ON calls (user_id, status, id);
`;
