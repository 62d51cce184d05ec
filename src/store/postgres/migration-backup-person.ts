// An alert's own expiry and the backup person (#54), SQLite's 018. Expand: columns the previous
// release does not know (its webhook function, v14, stays; this release calls v18, which keeps the
// expiry).
export const BACKUP_PERSON = `
ALTER TABLE calls ADD COLUMN expires_in INTEGER;
ALTER TABLE calls ADD COLUMN dial_to TEXT;
ALTER TABLE accounts ADD COLUMN backup_phone TEXT;
ALTER TABLE accounts ADD COLUMN backup_phone_status TEXT;
`;
