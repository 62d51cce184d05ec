// Migration 020's columns (#56), the same on both stores but for the type of a time in milliseconds
// (SQLite's INTEGER, PostgreSQL's BIGINT): per account its decision keys (`7=buy,8=skip`, '' none) and
// its decision PIN's hash (scrypt, as a password's); per call the alert's own keys (null: the
// account's) and Idempotency-Key (a decision's callback names it), and the decision taken: its key,
// label and time, or why it was refused. Expand only: the previous release ignores them.
export const decisionKeysColumns = (time: 'INTEGER' | 'BIGINT'): string => `
ALTER TABLE accounts ADD COLUMN decision_keys TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN decision_pin_hash TEXT;
ALTER TABLE calls ADD COLUMN decision_keys TEXT;
ALTER TABLE calls ADD COLUMN idempotency_key TEXT;
ALTER TABLE calls ADD COLUMN decision_key TEXT;
ALTER TABLE calls ADD COLUMN decision_label TEXT;
ALTER TABLE calls ADD COLUMN decided_at ${time};
ALTER TABLE calls ADD COLUMN decision_refused TEXT;
`;
