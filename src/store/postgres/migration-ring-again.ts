// Ring again (#54), SQLite's 017: the account's setting; each call's attempt, next attempt's time
// and earlier attempts. Expand: columns the previous release does not know.
export const RING_AGAIN = `
ALTER TABLE accounts ADD COLUMN ring_again INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN ring_again_after INTEGER NOT NULL DEFAULT 60;
ALTER TABLE calls ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;
ALTER TABLE calls ADD COLUMN retry_at BIGINT;
ALTER TABLE calls ADD COLUMN attempts TEXT;
`;
