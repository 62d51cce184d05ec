import { RECEIVE_FUNCTION_V18_SQL } from './receive-function-v18.js';
import { RECEIVE_FUNCTION_V20_SQL } from './receive-function-v20.js';
import { decisionKeysColumns } from '../sql/decision-keys.js';

// Ring again (#54), SQLite's 017: the account's setting; each call's attempt, next attempt's time
// and earlier attempts. Expand: columns the previous release does not know.
export const RING_AGAIN = `
ALTER TABLE accounts ADD COLUMN ring_again INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN ring_again_after INTEGER NOT NULL DEFAULT 60;
ALTER TABLE calls ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;
ALTER TABLE calls ADD COLUMN retry_at BIGINT;
ALTER TABLE calls ADD COLUMN attempts TEXT;
`;

// An alert's own expiry and the backup person (#54), SQLite's 018. Expand: columns the previous
// release does not know, and the webhook's function v18 keeping the expiry (that release calls v14).
export const BACKUP_PERSON = `
ALTER TABLE calls ADD COLUMN expires_in INTEGER;
ALTER TABLE calls ADD COLUMN dial_to TEXT;
ALTER TABLE accounts ADD COLUMN backup_phone TEXT;
ALTER TABLE accounts ADD COLUMN backup_phone_status TEXT;
${RECEIVE_FUNCTION_V18_SQL}`;

// Decision keys (#56), SQLite's 020 (store/sql/decision-keys.ts). Expand: columns the previous
// release does not know, and the webhook's function v20 keeping an alert's own keys and
// Idempotency-Key (that release calls v18).
export const DECISION_KEYS = `${decisionKeysColumns('BIGINT')}${RECEIVE_FUNCTION_V20_SQL}`;
