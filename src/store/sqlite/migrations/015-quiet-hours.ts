// Quiet hours (#41): an account's windows (their canonical text, '' = none), their IANA time zone
// and what happens to an alert in them; a call held for quiet hours waits as 'held' until
// held_until (the instant they end), when whichever node is alive releases it. Expand only: the
// previous release ignores the columns and never sees a held call as in flight.
export default `
ALTER TABLE accounts ADD COLUMN quiet_hours TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE accounts ADD COLUMN quiet_mode TEXT NOT NULL DEFAULT 'hold';
ALTER TABLE calls ADD COLUMN held_until INTEGER;
CREATE INDEX calls_held ON calls (held_until) WHERE status = 'held';
`;
