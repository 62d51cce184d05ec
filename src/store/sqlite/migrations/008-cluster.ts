// Several nodes on PostgreSQL (#17): the node that accepted a call, the one that dials it, the one
// that sends its SMS. SQLite (one node) leaves them empty; it has them so that both stores keep the
// same columns and `ringhook db copy` moves a database over as it is.
export default `
ALTER TABLE calls ADD COLUMN accepted_by TEXT;
ALTER TABLE calls ADD COLUMN node_id TEXT;
ALTER TABLE calls ADD COLUMN sms_node TEXT;
`;
