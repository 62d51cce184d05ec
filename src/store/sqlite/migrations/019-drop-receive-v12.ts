// PostgreSQL's 019 drops the webhook's first server-side function (ringhook_receive_v12, a contract
// step); SQLite never had it. Kept so that both stores keep the same schema numbers (`ringhook db copy`).
export default '';
