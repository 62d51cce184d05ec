// Status callbacks (#41): an account's callback settings (its whsec_ secrets sealed with the secret
// key, like the api_keys) and the outbox of deliveries every node sends from. Expand only: new
// tables the previous release does not know. Numbered 016 (014 and 015 are other parts of #41).
export default `
CREATE TABLE callback_settings (
  user_id                TEXT PRIMARY KEY REFERENCES accounts (user_id) ON DELETE CASCADE,
  url                    TEXT,
  secret_sealed          TEXT,
  previous_secret_sealed TEXT,
  previous_until         INTEGER,
  off_note               TEXT,
  off_at                 INTEGER,
  updated_at             INTEGER NOT NULL
);

CREATE TABLE callback_outbox (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id       TEXT NOT NULL UNIQUE,
  event_key        TEXT NOT NULL UNIQUE,
  user_id          TEXT NOT NULL REFERENCES accounts (user_id) ON DELETE CASCADE,
  call_id          TEXT,
  type             TEXT NOT NULL,
  body             TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'delivered', 'failed', 'gone')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  created_at       INTEGER NOT NULL,
  next_attempt_at  INTEGER NOT NULL,
  claim            TEXT,
  claimed_until    INTEGER,
  last_attempt_at  INTEGER,
  last_http_status INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER
);

CREATE INDEX callback_outbox_due ON callback_outbox (status, next_attempt_at);
CREATE INDEX callback_outbox_by_call ON callback_outbox (call_id, id);
CREATE INDEX callback_outbox_by_user ON callback_outbox (user_id, id);
`;
