// When the store could not take a write and recorded nothing, so the sender may safely retry:
// the webhook answers 503 then, never 500.

/** SQLITE_BUSY and its variants: another connection holds the lock. */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || (typeof code === 'string' && code.startsWith('SQLITE_BUSY_'))
  );
}

/**
 * A node whose code cannot work on the database's newer schema (a rolling upgrade under way) takes
 * no alert: each is refused like a database that cannot take it (503, nothing recorded), never a 500.
 */
export class SteppedAside extends Error {
  readonly code = 'RINGHOOK_STEPPED_ASIDE';
}

/** PostgreSQL's error classes of a server that cannot take work now (08 connection, 57 operator intervention, 53 resources). */
const UNAVAILABLE_SQLSTATE = /^(08|57|53)/;
/** Node's and postgres.js's codes of a connection that could not be made or was lost. */
const UNAVAILABLE_CODES = new Set([
  'RINGHOOK_STEPPED_ASIDE',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/**
 * The store could not take the write and recorded nothing: SQLite's lock held by another process
 * past the wait, or a PostgreSQL server down, restarting or out of connections.
 */
export function isStoreUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  if (isBusyError(error)) return true;
  return UNAVAILABLE_CODES.has(code) || (code.length === 5 && UNAVAILABLE_SQLSTATE.test(code));
}
