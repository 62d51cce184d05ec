// Migration 018's webhook function: version 14's (receive-function-v14.ts) with the alert's own
// expiry (#54) kept on its row: `x` in an item, the seconds it may still be called. Made from
// version 14's text by the replacements below, each of which must match once: version 14's text is
// never edited, so this one never changes either. Version 14 stays for the previous release's nodes.
import { addedAtEnd, nextVersion } from './function-text.js';
import { RECEIVE_FUNCTION_V14, RECEIVE_V14_TEXT } from './receive-function-v14.js';

/** Its name (this release calls version 20: receive-function-v20.ts). */
export const RECEIVE_FUNCTION_V18 = 'ringhook_receive_v18';

const CHANGES: ReadonlyArray<readonly [string, string]> = [
  addedAtEnd('strategy, alert_timestamp, extra, received_at, updated_at, accepted_by, dedupe_key', 'expires_in'),
  addedAtEnd("at_ms, at_ms, node, CASE WHEN acct.dedupe_seconds > 0 THEN item->>'k' END", "(item->>'x')::integer"),
];

export const RECEIVE_FUNCTION_V18_SQL = nextVersion(
  RECEIVE_V14_TEXT,
  { from: RECEIVE_FUNCTION_V14, to: RECEIVE_FUNCTION_V18 },
  CHANGES,
);
