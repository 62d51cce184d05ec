// A call names the trunk it went out through (trunk, or trunk2 when the first did not take it).
export default `
ALTER TABLE calls ADD COLUMN trunk TEXT;
`;
