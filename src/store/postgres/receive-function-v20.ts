// Migration 020's webhook function: version 18's (receive-function-v18.ts) with an alert's own
// decision keys (#56, `dk`: null the account's) and its Idempotency-Key (`ik`) kept on its row, the
// account's decision PIN hash left out of the verdict (never read out of the database), and an
// accepted alert's call.queued status callback written with its row when the account has a callback
// URL (#55: `q`, the delivery as store/outbox.ts's queuedDelivery makes it; `o` in the verdict says
// one was written), so a crash after the 200 cannot lose it. Made
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
  [
    `verdict := verdict || '{"r": "accepted"}';`,
    `IF item ? 'q' AND EXISTS (SELECT 1 FROM callback_settings s WHERE s.user_id = acct.user_id AND s.url IS NOT NULL) THEN
        INSERT INTO callback_outbox (message_id, event_key, user_id, call_id, type, body, status, attempts, created_at,
                                     next_attempt_at)
        VALUES (item->'q'->>'id', item->'q'->>'key', acct.user_id, item->>'c', item->'q'->>'type', item->'q'->>'body',
                'pending', 0, at_ms, at_ms)
        ON CONFLICT (event_key) DO NOTHING;
        IF FOUND THEN verdict := verdict || '{"o": true}'; END IF;
      END IF;
      verdict := verdict || '{"r": "accepted"}';`,
  ],
];

export const RECEIVE_FUNCTION_V20_SQL = nextVersion(
  RECEIVE_FUNCTION_V18_SQL,
  { from: RECEIVE_FUNCTION_V18, to: RECEIVE_FUNCTION },
  CHANGES,
);
