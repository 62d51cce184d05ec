// An alert's own expiry and the backup person (#54). Per call: the seconds after its receipt it may
// still be called (`expires_in`, sent with the alert) and the number it rings instead of the
// account's (`dial_to`: the backup person, for an alert escalated to them or their verification
// call). Per account: the backup person's number and whether they agreed (`pending`, `verified`).
// Expand only: the previous release ignores the columns (it would call an expired alert, and ring
// the account's own phone for an escalated one it finds queued).
export default `
ALTER TABLE calls ADD COLUMN expires_in INTEGER;
ALTER TABLE calls ADD COLUMN dial_to TEXT;
ALTER TABLE accounts ADD COLUMN backup_phone TEXT;
ALTER TABLE accounts ADD COLUMN backup_phone_status TEXT;
`;
