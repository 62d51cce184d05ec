// Migration 014's server-side functions: the webhook's one round trip of migration 012 with the owner
// controls (#41) added, decided as the step-by-step path decides them (SQLite's, and PostgreSQL's
// accept): credentials, suspension, the allowed sources (the server's, then the account's), the
// payload, a duplicate within the account's window, the monthly allowance, the per-minute limit,
// then the call or the refusal. Each check is one numbered step of the loop; a later version adds
// its step where it belongs (README, "Upgrading": a new name, the old one kept until a contract
// migration). Version 12 stays for the nodes of the previous release during a rolling upgrade.
// Never edit this text once shipped: copy it into the next version.

/** Its name (this release calls version 18: receive-function-v18.ts). */
export const RECEIVE_FUNCTION_V14 = 'ringhook_receive_v14';

// Whether a client's address is among an account's allowed sources, as core/connections/address-match decides
// it: an IPv4 address also matches an IPv6 block through its IPv4-mapped form, and an entry written
// "::ffff:" + IPv4 is that IPv4 entry. `sources` is a comma-separated list ("tradingview" is given
// as TradingView's list by the receive function, which has it from the caller: core/tradingview-
// sources stays the one place). `address` is normalized by the caller (an IPv4-mapped address as
// IPv4), or NULL when it is none (refused by any list).
const SOURCES_ALLOW = `
CREATE FUNCTION ringhook_sources_allow_v14(sources text, address text)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE
  ip inet;
  mapped inet;
  entry text;
BEGIN
  IF sources = 'any' THEN RETURN true; END IF;
  IF address IS NULL THEN RETURN false; END IF;
  ip := address::inet;
  IF family(ip) = 4 THEN mapped := ('::ffff:' || host(ip))::inet; END IF;
  FOREACH entry IN ARRAY string_to_array(sources, ',') LOOP
    entry := btrim(entry);
    IF starts_with(entry, '::ffff:') AND split_part(substr(entry, 8), '/', 1) ~ '^[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+$' THEN
      entry := substr(entry, 8);
    END IF;
    BEGIN
      IF ip <<= entry::inet OR coalesce(mapped <<= entry::inet, false) THEN RETURN true; END IF;
    EXCEPTION WHEN invalid_text_representation OR invalid_parameter_value OR invalid_binary_representation THEN
      -- Every entry was checked by core/connections/address-match when it was set; one PostgreSQL cannot read
      -- (an IPv6 zone) matches nothing rather than failing the batch.
      NULL;
    END;
  END LOOP;
  RETURN false;
END
$fn$;
`;

// The item of an alert (src/store/postgres/receive.ts): u user, m the key's MAC, c its row's call_id,
// a the accepted row's columns, refused a refusal's columns, invalid the refused payload's row,
// k the duplicate key (core/webhook/dedupe), ip the client's address as written, n normalized, sr the
// server's source refusal (the history line's reason). `tradingview`: TradingView's addresses,
// comma-separated (core/webhook/tradingview-sources), for the accounts whose sources are "tradingview".
export const RECEIVE_V14_TEXT = `
CREATE FUNCTION ringhook_receive_v14(batch jsonb, plans jsonb, at_ms bigint, window_ms bigint, month_key text,
                                     node text, keep integer, tradingview text)
RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  item jsonb;
  acct accounts%ROWTYPE;
  results jsonb := '[]'::jsonb;
  refusal jsonb;
  verdict jsonb;
  plan jsonb;
  monthly integer;
  per_minute integer;
  used integer;
  recent bigint[];
  first_call text;
  queued jsonb := '[]'::jsonb;
BEGIN
  -- Every account of the batch is locked first, in one order: the accepts of one account wait for
  -- each other on every node (the limits and the duplicate check stay exact), and two batches never
  -- wait in a circle.
  PERFORM 1 FROM accounts
    WHERE user_id IN (SELECT DISTINCT i->>'u' FROM jsonb_array_elements(batch) AS i)
    ORDER BY user_id FOR UPDATE;
  FOR item IN SELECT value FROM jsonb_array_elements(batch) LOOP
    -- 1. Credentials. The MAC is keyed with the secret key: its comparison's timing tells nothing a sender can use.
    SELECT * INTO acct FROM accounts WHERE user_id = item->>'u';
    IF NOT FOUND OR acct.api_key_mac IS DISTINCT FROM decode(item->>'m', 'hex') THEN
      results := results || jsonb_build_array(jsonb_build_object('r', 'unauthorized'));
      CONTINUE;
    END IF;
    refusal := NULL;
    verdict := jsonb_build_object('account', to_jsonb(acct) - 'api_key_sealed' - 'api_key_mac');
    -- 2. Suspension.
    IF acct.status <> 'active' THEN
      refusal := jsonb_build_object('status', 'suspended', 'error', 'account suspended', 'message', '',
                                    'message_truncated', 0);
      verdict := verdict || '{"r": "suspended"}';
    -- 3. The allowed sources: the server's (decided by the caller), then the account's.
    ELSIF item ? 'sr' THEN
      refusal := jsonb_build_object('status', 'source_not_allowed', 'error', item->>'sr', 'message', '',
                                    'message_truncated', 0);
      verdict := verdict || '{"r": "source", "by": "server"}';
    ELSIF acct.webhook_sources <> 'any'
          AND NOT ringhook_sources_allow_v14(
                CASE acct.webhook_sources WHEN 'tradingview' THEN tradingview ELSE acct.webhook_sources END, item->>'n') THEN
      refusal := jsonb_build_object('status', 'source_not_allowed', 'message', '', 'message_truncated', 0, 'error',
                                    'from ' || coalesce(item->>'ip', 'an unknown address') || ': not in ' || acct.webhook_sources);
      verdict := verdict || '{"r": "source", "by": "account"}';
    -- 4. The payload.
    ELSIF item ? 'invalid' THEN
      refusal := item->'invalid';
      verdict := verdict || '{"r": "invalid"}';
    ELSE
      -- 5. A duplicate of an alert accepted within the account's window: answered with that call.
      first_call := NULL;
      IF acct.dedupe_seconds > 0 AND item ? 'k' THEN
        SELECT call_id INTO first_call FROM calls
          WHERE user_id = acct.user_id AND dedupe_key = item->>'k' AND received_at >= at_ms - acct.dedupe_seconds * 1000::bigint
          ORDER BY received_at LIMIT 1;
      END IF;
      IF first_call IS NOT NULL THEN
        refusal := (item->'refused') || jsonb_build_object('status', 'duplicate', 'error', 'duplicate of ' || first_call);
        verdict := verdict || jsonb_build_object('r', 'duplicate', 'first', first_call);
      ELSE
        -- 6. The monthly allowance, then the per-minute limit.
        plan := plans->acct.plan;
        monthly := (plan->>'monthly')::integer;
        per_minute := (plan->>'perMinute')::integer;
        used := 0;
        IF monthly IS NOT NULL THEN
          SELECT calls INTO used FROM usage WHERE user_id = acct.user_id AND month = month_key;
          used := coalesce(used, 0);
        END IF;
        IF monthly IS NOT NULL AND used >= monthly THEN
          refusal := (item->'refused') || '{"status": "limit_exceeded", "error": "monthly call limit exceeded"}';
          verdict := verdict || jsonb_build_object('r', 'limited', 'used', used, 'recent', '[]'::jsonb);
        ELSE
          recent := ARRAY(SELECT received_at FROM calls
                          WHERE user_id = acct.user_id AND accepted = 1 AND kind = 'alert' AND received_at > at_ms - window_ms
                          ORDER BY received_at DESC LIMIT per_minute);
          IF cardinality(recent) >= per_minute THEN
            refusal := (item->'refused') || '{"status": "rate_limited", "error": "per-minute call limit exceeded"}';
            verdict := verdict || jsonb_build_object('r', 'limited', 'used', used, 'recent', to_jsonb(recent));
          END IF;
        END IF;
      END IF;
    END IF;
    -- The call, counted; or the refusal, kept in the history (the oldest beyond keep dropped).
    IF refusal IS NULL THEN
      INSERT INTO calls (call_id, user_id, kind, accepted, status, message, message_truncated, ticker, price, action,
                         strategy, alert_timestamp, extra, received_at, updated_at, accepted_by, dedupe_key)
      VALUES (item->>'c', acct.user_id, 'alert', 1, 'queued', item->'a'->>'message',
              (item->'a'->>'message_truncated')::smallint, item->'a'->>'ticker', (item->'a'->>'price')::double precision,
              item->'a'->>'action', item->'a'->>'strategy', item->'a'->>'alert_timestamp', item->'a'->>'extra',
              at_ms, at_ms, node, CASE WHEN acct.dedupe_seconds > 0 THEN item->>'k' END);
      INSERT INTO usage (user_id, month, calls) VALUES (acct.user_id, month_key, 1)
        ON CONFLICT (user_id, month) DO UPDATE SET calls = usage.calls + 1;
      queued := queued || jsonb_build_array(jsonb_build_array(item->>'c', acct.user_id));
      verdict := verdict || '{"r": "accepted"}';
    ELSE
      INSERT INTO calls (call_id, user_id, kind, accepted, status, message, message_truncated, ticker, price, action,
                         strategy, alert_timestamp, extra, error, received_at, updated_at, accepted_by)
      VALUES (item->>'c', acct.user_id, 'alert', 0, refusal->>'status', refusal->>'message',
              (refusal->>'message_truncated')::smallint, refusal->>'ticker', (refusal->>'price')::double precision,
              refusal->>'action', refusal->>'strategy', refusal->>'alert_timestamp', refusal->>'extra',
              refusal->>'error', at_ms, at_ms, node);
      DELETE FROM calls WHERE user_id = acct.user_id AND accepted = 0 AND id <= (
        SELECT id FROM calls WHERE user_id = acct.user_id AND accepted = 0 ORDER BY id DESC LIMIT 1 OFFSET keep);
    END IF;
    results := results || jsonb_build_array(verdict);
  END LOOP;
  -- The other nodes' dashboards hear of the batch's calls at the commit: one notice for all of
  -- them, no statement of its own (changes.ts).
  IF node IS NOT NULL AND jsonb_array_length(queued) > 0 THEN
    PERFORM pg_notify('ringhook_calls', jsonb_build_object('calls', queued, 'status', 'queued', 'at', at_ms,
                                                           'node', node)::text);
  END IF;
  RETURN results;
END
$fn$;
`;

export const RECEIVE_FUNCTION_V14_SQL = SOURCES_ALLOW + RECEIVE_V14_TEXT;
