// Accounts, the call history (accepted alerts and rejections) and monthly usage counters.
export default `
CREATE TABLE accounts (
  user_id        TEXT PRIMARY KEY,
  api_key        TEXT NOT NULL UNIQUE,
  name           TEXT NOT NULL DEFAULT '',
  phone          TEXT NOT NULL,
  plan           TEXT NOT NULL CHECK (plan IN ('free', 'premium')),
  sms_backup     INTEGER NOT NULL DEFAULT 0 CHECK (sms_backup IN (0, 1)),
  status         TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  key_created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE calls (
  id                INTEGER PRIMARY KEY,
  call_id           TEXT NOT NULL UNIQUE,
  user_id           TEXT NOT NULL REFERENCES accounts (user_id) ON DELETE CASCADE,
  kind              TEXT NOT NULL CHECK (kind IN ('alert', 'test')),
  accepted          INTEGER NOT NULL CHECK (accepted IN (0, 1)),
  status            TEXT NOT NULL,
  message           TEXT NOT NULL,
  message_truncated INTEGER NOT NULL DEFAULT 0 CHECK (message_truncated IN (0, 1)),
  ticker            TEXT,
  price             REAL,
  action            TEXT,
  strategy          TEXT,
  alert_timestamp   TEXT,
  extra             TEXT,
  error             TEXT,
  received_at       INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
) STRICT;

CREATE INDEX calls_by_account ON calls (user_id, id);
CREATE INDEX calls_recent_accepted ON calls (user_id, accepted, received_at);

CREATE TABLE usage (
  user_id TEXT NOT NULL REFERENCES accounts (user_id) ON DELETE CASCADE,
  month   TEXT NOT NULL,
  calls   INTEGER NOT NULL,
  PRIMARY KEY (user_id, month)
) STRICT, WITHOUT ROWID;
`;
