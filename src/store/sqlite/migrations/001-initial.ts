// Accounts, the call history (accepted alerts and rejections) and monthly usage counters: the same
// tables as PostgreSQL's 001, written once (store/sql/schema.ts).
import { initialTables, SQLITE_SPELLING } from '../../sql/schema.js';

export default initialTables(SQLITE_SPELLING);
