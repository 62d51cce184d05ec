// Migration 012 made the webhook's first server-side function, ringhook_receive_v12: one call
// received a batch of alerts, each checked and written in one transaction and one round trip. Version
// 14 (receive-function-v14.ts) replaced it before any release; migration 019, a contract step, drops
// it: no release ever called it, so it is gone from the first release after v0.1.0 on. This release
// calls version 20 (receive-function-v20.ts, migration 020).

/**
 * Migration 012's text, now nothing: the function it made (ringhook_receive_v12) was replaced by v14
 * before any release (v0.1.0 is schema 11) and is dropped by 019, so a database made from now on is
 * never given it. One made before has it until 019 runs.
 */
export const RECEIVE_FUNCTION_SQL = '';

/**
 * Migration 019 (contract): the function above dropped; its signature names it. v0.1.0's nodes
 * (schema 11) never call it, so they still work on the schema (oldestCompatible stays 8). 018 is the
 * backup person's (#54): merged, it comes before this one.
 */
export const DROP_RECEIVE_V12 =
  'DROP FUNCTION IF EXISTS ringhook_receive_v12(jsonb, jsonb, bigint, bigint, text, text, integer);';
