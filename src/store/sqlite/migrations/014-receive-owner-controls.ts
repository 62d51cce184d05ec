// PostgreSQL's 014 adds the webhook's function with the owner controls (ringhook_receive_v14); SQLite
// checks them in the process (calls.ts) and has nothing to add. Kept so that both stores keep the
// same schema numbers (`ringhook db copy`).
export default '';
