// The api_keys sealed at rest: the column keeps its place and its UNIQUE index but holds
// "v1.<AES-256-GCM>" from now on, beside an HMAC-SHA256 of the key that authentication compares.
// secret_key_check holds the key's fingerprint, so that a wrong key is noticed at once.
import type Database from 'better-sqlite3';
import type { SecretBox } from '../../secret-box.js';

export default `
ALTER TABLE accounts RENAME COLUMN api_key TO api_key_sealed;
ALTER TABLE accounts ADD COLUMN api_key_mac BLOB;

CREATE TABLE secret_key_check (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  fingerprint BLOB NOT NULL
) STRICT;
`;

/** Seals the keys stored in the clear, with the key the database is opened with. */
export function sealClearApiKeys(db: Database.Database, secrets: SecretBox | undefined): void {
  const rows = db
    .prepare<[], { user_id: string; api_key: string }>('SELECT user_id, api_key_sealed AS api_key FROM accounts')
    .all();
  if (!secrets) {
    if (rows.length === 0) return;
    throw new Error('sealing the api_keys needs the secret key');
  }
  // The clear keys' bytes are overwritten, not only unlinked from the b-trees.
  db.pragma('secure_delete = ON');
  const seal = db.prepare('UPDATE accounts SET api_key_sealed = ?, api_key_mac = ? WHERE user_id = ?');
  for (const row of rows) seal.run(secrets.seal(row.api_key, row.user_id), secrets.mac(row.api_key), row.user_id);
  db.prepare('INSERT INTO secret_key_check (id, fingerprint) VALUES (1, ?)').run(secrets.fingerprint);
  db.pragma('secure_delete = OFF');
}
