// Migration 012's server-side function: one call receives a batch of alerts, each checked and
// written as the webhook's several statements did (credentials, suspension, payload, the monthly
// allowance, the per-minute limit, the call or the refusal and its usage), in one transaction and
// one round trip. Its name carries the schema that made it (README, "Upgrading": a change is a new
// name in an expand migration, the old one dropped by the contract migration a release later).
// This release calls version 18 (receive-function-v18.ts); version 12 stays for the nodes of the
// previous release during a rolling upgrade, until a contract migration drops it.

export const RECEIVE_FUNCTION_SQL = `
CREATE FUNCTION ringhook_receive_v12(batch jsonb, plans jsonb, at_ms bigint, window_ms bigint, month_key text,
                                     node text, keep integer)
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
  queued jsonb := '[]'::jsonb;
BEGIN
  -- Every account of the batch is locked first, in one order: the accepts of one account wait for
  -- each other on every node (the limits stay exact), and two batches never wait in a circle.
  PERFORM 1 FROM accounts
    WHERE user_id IN (SELECT DISTINCT i->>'u' FROM jsonb_array_elements(batch) AS i)
    ORDER BY user_id FOR UPDATE;
  FOR item IN SELECT value FROM jsonb_array_elements(batch) LOOP
    SELECT * INTO acct FROM accounts WHERE user_id = item->>'u';
    -- The MAC is keyed with the secret key: its comparison's timing tells nothing a sender can use.
    IF NOT FOUND OR acct.api_key_mac IS DISTINCT FROM decode(item->>'m', 'hex') THEN
      results := results || jsonb_build_array(jsonb_build_object('r', 'unauthorized'));
      CONTINUE;
    END IF;
    refusal := NULL;
    verdict := jsonb_build_object('account', to_jsonb(acct) - 'api_key_sealed' - 'api_key_mac');
    IF acct.status <> 'active' THEN
      refusal := jsonb_build_object('status', 'suspended', 'error', 'account suspended', 'message', '',
                                    'message_truncated', 0);
      verdict := verdict || '{"r": "suspended"}';
    ELSIF item ? 'invalid' THEN
      refusal := item->'invalid';
      verdict := verdict || '{"r": "invalid"}';
    ELSE
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
    IF refusal IS NULL THEN
      INSERT INTO calls (call_id, user_id, kind, accepted, status, message, message_truncated, ticker, price, action,
                         strategy, alert_timestamp, extra, received_at, updated_at, accepted_by)
      VALUES (item->>'c', acct.user_id, 'alert', 1, 'queued', item->'a'->>'message',
              (item->'a'->>'message_truncated')::smallint, item->'a'->>'ticker', (item->'a'->>'price')::double precision,
              item->'a'->>'action', item->'a'->>'strategy', item->'a'->>'alert_timestamp', item->'a'->>'extra',
              at_ms, at_ms, node);
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
