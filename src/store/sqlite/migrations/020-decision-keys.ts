// Decision keys (#56): per account its keys (`7=buy,8=skip`, '' none) and its decision PIN's hash
// (scrypt, as a password's); per call the alert's own keys (null: the account's) and Idempotency-Key
// (a decision's callback names it), and the decision taken: its key, label and time, or why it was
// refused. Expand only: the previous release ignores the columns (its calls offer no decision).
export default `
ALTER TABLE accounts ADD COLUMN decision_keys TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN decision_pin_hash TEXT;
ALTER TABLE calls ADD COLUMN decision_keys TEXT;
ALTER TABLE calls ADD COLUMN idempotency_key TEXT;
ALTER TABLE calls ADD COLUMN decision_key TEXT;
ALTER TABLE calls ADD COLUMN decision_label TEXT;
ALTER TABLE calls ADD COLUMN decided_at INTEGER;
ALTER TABLE calls ADD COLUMN decision_refused TEXT;
`;
