// PostgreSQL's 012 adds the webhook's server-side function; SQLite runs in the process and has nothing
// to add. Kept so that both stores keep the same schema numbers (\`ringhook db copy\`).
export default '';
