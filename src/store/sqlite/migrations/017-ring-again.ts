// Ring again (#54): per account how many more calls a missed alert gets and the seconds between
// their starts; per call which attempt it is at, when the next is due (a missed call waits queued
// until then, claimed by whichever node or restart finds it due) and its earlier attempts. Expand
// only: the previous release ignores the columns (it would dial a due retry at once).
export default `
ALTER TABLE accounts ADD COLUMN ring_again INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN ring_again_after INTEGER NOT NULL DEFAULT 60;
ALTER TABLE calls ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;
ALTER TABLE calls ADD COLUMN retry_at INTEGER;
ALTER TABLE calls ADD COLUMN attempts TEXT;
`;
