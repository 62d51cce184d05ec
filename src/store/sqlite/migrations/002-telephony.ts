// What the dialer and the SMS backup record on each call, and the timeline of every call.
export default `
ALTER TABLE calls ADD COLUMN phone TEXT;
ALTER TABLE calls ADD COLUMN channel_id TEXT;
ALTER TABLE calls ADD COLUMN dialed_at INTEGER;
ALTER TABLE calls ADD COLUMN ringing_at INTEGER;
ALTER TABLE calls ADD COLUMN answered_at INTEGER;
ALTER TABLE calls ADD COLUMN ended_at INTEGER;
ALTER TABLE calls ADD COLUMN ring_ms INTEGER;
ALTER TABLE calls ADD COLUMN talk_ms INTEGER;
ALTER TABLE calls ADD COLUMN hangup_cause INTEGER;
ALTER TABLE calls ADD COLUMN hangup_cause_text TEXT;
ALTER TABLE calls ADD COLUMN sip_code INTEGER;
ALTER TABLE calls ADD COLUMN sms_status TEXT;
ALTER TABLE calls ADD COLUMN sms_message_id TEXT;
ALTER TABLE calls ADD COLUMN sms_parts INTEGER;
ALTER TABLE calls ADD COLUMN sms_at INTEGER;
ALTER TABLE calls ADD COLUMN sms_error TEXT;

CREATE INDEX calls_in_flight ON calls (status) WHERE status IN ('queued', 'dialing', 'ringing', 'answered');
CREATE INDEX calls_by_sms_message ON calls (sms_message_id) WHERE sms_message_id IS NOT NULL;

CREATE TABLE call_events (
  id      INTEGER PRIMARY KEY,
  call_id TEXT NOT NULL REFERENCES calls (call_id) ON DELETE CASCADE,
  at      INTEGER NOT NULL,
  event   TEXT NOT NULL,
  detail  TEXT
) STRICT;
CREATE INDEX call_events_by_call ON call_events (call_id, id);
`;
