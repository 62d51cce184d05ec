// Reasons a person can read (#33): a call's `error` becomes a sentence about the phone and what to
// do (src/core/reasons.ts); the technical detail it was built from (the SIP code, Asterisk's own
// answer) is kept here, for the admin. Calls ended before keep their error as it was.
export default `
ALTER TABLE calls ADD COLUMN reason_detail TEXT;
`;
