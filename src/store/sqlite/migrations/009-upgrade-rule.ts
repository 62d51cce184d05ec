// The upgrade rule (#35). PostgreSQL's 009 records, beside the schema version, the oldest schema
// whose code still works on it (so that the nodes of a rolling upgrade know whether to step aside),
// and each node's version and schema. SQLite (one node, whose data dir lock keeps a newer ringhook
// from migrating under a running serve) has nothing of that kind: its 009 changes no table and only
// keeps the two schemas numbered alike, so that `ringhook db copy` moves a database over as it is.
export default `
-- no change to the tables
`;
