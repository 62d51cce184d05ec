// A call's SMS backup: the statements both stores run with the same text (written with $1, $2…;
// SQLite binds them by name: sqlite/named.ts). What differs stays per store: the claim and the
// stale claims (PostgreSQL names the node), the result (PostgreSQL's one statement for an account
// without a callback URL).
export const SMS_SQL = {
  markSms:
    'UPDATE calls SET sms_status = $1, sms_error = $4, updated_at = $2 WHERE call_id = $3 AND sms_status IS NULL',
  // Only the SMS last sent with this id (its alerts: within a minute of it): an SMSC that restarts reuses its ids.
  bySmsMessage: `SELECT call_id AS "callId", user_id AS "userId", sms_status AS "smsStatus" FROM calls
                 WHERE sms_message_id = $1 AND sms_at >= (SELECT max(sms_at) FROM calls WHERE sms_message_id = $1) - 60000 ORDER BY id`,
  // A receipt settles a sent SMS once: a repeated, late or reordered one changes nothing.
  smsReceipt: `UPDATE calls SET sms_status = $2, sms_error = $3, sms_at = $4, updated_at = $4 WHERE call_id = $1 AND sms_status = 'sent'`,
  smsWaits:
    "UPDATE calls SET sms_status = 'waiting', sms_error = $1, updated_at = $2 WHERE call_id = $3 AND sms_status = 'sending'",
  smsResumes: "UPDATE calls SET sms_status = 'sending', updated_at = $1 WHERE call_id = $2 AND sms_status = 'waiting'",
  smsLeftFails:
    "UPDATE calls SET sms_status = 'failed', sms_error = $3, sms_at = $4, updated_at = $4 WHERE call_id = $1 AND sms_status = $2",
} as const;
