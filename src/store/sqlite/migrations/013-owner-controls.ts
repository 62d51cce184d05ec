// Owner controls (#41): duplicate alerts (a window per account, 0 = off) and the webhook's allowed
// sources per account ('any' = the seed's rule). A call answered as a duplicate keeps no row of its
// own: the first call's row counts its duplicates. Expand only: the previous release ignores the columns.
export default `
ALTER TABLE accounts ADD COLUMN dedupe_seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN webhook_sources TEXT NOT NULL DEFAULT 'any';
ALTER TABLE calls ADD COLUMN dedupe_key TEXT;
CREATE INDEX calls_dedupe ON calls (user_id, dedupe_key, received_at) WHERE dedupe_key IS NOT NULL;
`;
