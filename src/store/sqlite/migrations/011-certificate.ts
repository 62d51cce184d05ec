// ringhook's own certificate (ACME): one row (the key sealed with the secret key), and the HTTP-01
// challenges being answered. SQLite keeps them as PostgreSQL does, for one code path and `db copy`.
export default `
CREATE TABLE acme_certificate (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  names           TEXT,
  cert_pem        TEXT,
  key_sealed      TEXT,
  not_before      INTEGER,
  not_after       INTEGER,
  obtained_at     INTEGER,
  last_attempt_at INTEGER,
  last_error      TEXT,
  last_error_fix  TEXT,
  last_error_kind TEXT,
  failures        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER
);

CREATE TABLE acme_challenges (
  token             TEXT PRIMARY KEY,
  key_authorization TEXT NOT NULL,
  expires_at        INTEGER NOT NULL
);
`;
