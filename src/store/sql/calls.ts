// Alerts and calls: the statements both stores run with the same text (written with $1, $2…; SQLite
// binds them by name: sqlite/named.ts). What differs stays in each store: the row's insert (PostgreSQL
// records the node that accepted it), the history filtered by status (each database's JSON).
export const CALL_SQL = {
  usedThisMonth: 'SELECT calls FROM usage WHERE user_id = $1 AND month = $2',
  countUsage: `INSERT INTO usage (user_id, month, calls) VALUES ($1, $2, 1)
               ON CONFLICT (user_id, month) DO UPDATE SET calls = usage.calls + 1`,
  recentAccepted: `SELECT received_at FROM calls WHERE user_id = $1 AND accepted = 1 AND kind = $2 AND received_at > $3
                   ORDER BY received_at DESC LIMIT $4`,
  trimRejections: `DELETE FROM calls WHERE user_id = $1 AND accepted = 0 AND id <= (
                     SELECT id FROM calls WHERE user_id = $1 AND accepted = 0 ORDER BY id DESC LIMIT 1 OFFSET $2)`,
  get: 'SELECT * FROM calls WHERE call_id = $1',
  // Duplicate alerts (#41): the first call with the key within the account's window.
  firstWithKey: `SELECT call_id FROM calls WHERE user_id = $1 AND dedupe_key = $2 AND received_at >= $3
                 ORDER BY received_at LIMIT 1`,
  setDedupeKey: 'UPDATE calls SET dedupe_key = $1 WHERE call_id = $2',
  listAll: 'SELECT * FROM calls WHERE id < $1 ORDER BY id DESC LIMIT $2',
  listForAccount: 'SELECT * FROM calls WHERE user_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3',
  getForAccount: 'SELECT * FROM calls WHERE call_id = $1 AND user_id = $2',
  // The server's last SMS attempts, among its latest 2,000 calls (an index-free read of the newest rows).
  recentSms: `SELECT sms_status AS status, sms_error AS error, coalesce(sms_at, updated_at) AS at FROM calls
              WHERE id > (SELECT coalesce(max(id), 0) FROM calls) - 2000 AND sms_status IN ('sent', 'delivered', 'failed', 'waiting')
              ORDER BY at DESC LIMIT $1`,
} as const;

/** A call's timeline and the allowance a call that never left gives back: the same on both stores. */
export const PROGRESS_SQL = {
  event: 'INSERT INTO call_events (call_id, at, event, detail) VALUES ($1, $2, $3, $4)',
  events: 'SELECT at, event, detail FROM call_events WHERE call_id = $1 ORDER BY id',
  giveBack: 'UPDATE usage SET calls = calls - 1 WHERE user_id = $1 AND month = $2 AND calls > 0',
  // A call's decision (#56): one per call, never overwritten (nor after a refusal).
  decide: `UPDATE calls SET decision_key = $2, decision_label = $3, decided_at = $4
           WHERE call_id = $1 AND decision_key IS NULL AND decision_refused IS NULL`,
  refuseDecision: `UPDATE calls SET decision_refused = $2, updated_at = $3
                   WHERE call_id = $1 AND decision_key IS NULL AND decision_refused IS NULL`,
} as const;
