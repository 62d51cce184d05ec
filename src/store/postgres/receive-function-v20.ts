// Migration 020's webhook function: version 18's (receive-function-v18.ts) with an alert's own
// decision keys (#56, `dk`: null the account's) and its Idempotency-Key (`ik`) kept on its row, and
// the account's decision PIN hash left out of the verdict (never read out of the database). Made
// from version 18's text by the replacements below, each of which must match once: version 18's
// text is never edited, so this one never changes either. Version 18 stays for the previous release's nodes.
import { addedAtEnd, nextVersion } from './function-text.js';
import { RECEIVE_FUNCTION_V18, RECEIVE_FUNCTION_V18_SQL } from './receive-function-v18.js';

/** The name the code of this release calls. */
export const RECEIVE_FUNCTION = 'ringhook_receive_v20';

const CHANGES: ReadonlyArray<readonly [string, string]> = [
  [
    "verdict := jsonb_build_object('account', to_jsonb(acct) - 'api_key_sealed' - 'api_key_mac');",
    "verdict := jsonb_build_object('account', to_jsonb(acct) - 'api_key_sealed' - 'api_key_mac' - 'decision_pin_hash');",
  ],
  addedAtEnd(
    'strategy, alert_timestamp, extra, received_at, updated_at, accepted_by, dedupe_key, expires_in',
    'decision_keys, idempotency_key',
  ),
  addedAtEnd("(item->>'x')::integer", "item->>'dk', item->>'ik'"),
];

export const RECEIVE_FUNCTION_V20_SQL = nextVersion(
  RECEIVE_FUNCTION_V18_SQL,
  { from: RECEIVE_FUNCTION_V18, to: RECEIVE_FUNCTION },
  CHANGES,
);
