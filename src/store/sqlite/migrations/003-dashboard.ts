// The owner's dashboard: sign-in credentials and the admin flag, browser sessions, one-time
// sign-in links, and an index for the history filtered by status: the same tables as PostgreSQL's
// 003, written once (store/sql/schema.ts).
import { dashboardTables, SQLITE_SPELLING } from '../../sql/schema.js';

export default dashboardTables(
  SQLITE_SPELLING,
  '\n-- Only a SHA-256 of the session token is stored: a copy of the database cannot be used to sign in.',
);
