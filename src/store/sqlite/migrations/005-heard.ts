// Heard, not just answered: an account may require the press of 1 (on for new accounts; accounts
// from before keep their calls as they were), a call keeps the answering-machine detection's
// verdict, and an alert that waited for its phone's line records the call that carried it.
export default `
ALTER TABLE accounts ADD COLUMN require_confirm INTEGER NOT NULL DEFAULT 0 CHECK (require_confirm IN (0, 1));

ALTER TABLE calls ADD COLUMN amd_status TEXT;
ALTER TABLE calls ADD COLUMN amd_cause TEXT;
ALTER TABLE calls ADD COLUMN carried_by TEXT;

CREATE INDEX calls_by_carrier ON calls (carried_by) WHERE carried_by IS NOT NULL;
`;
