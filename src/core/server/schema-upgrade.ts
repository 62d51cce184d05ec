// A newer ringhook never migrates a database that a running serve holds: the running serve's code
// knows only the old schema, and would answer every alert with a 500 from then on. Pure: whether a
// process may go on, and the one-line refusal that says who holds the database and what to do.

/** The serve holding a data dir, as it recorded itself (an older serve records only its pid). */
export interface ServeHolder {
  pid: number | null;
  version: string | null;
  /** The schema version that serve's code knows. */
  schema: number | null;
}

export function describeHolder(holder: ServeHolder): string {
  const pid = holder.pid === null ? 'pid unknown' : `pid ${holder.pid}`;
  if (holder.version === null) return `${pid}, an older ringhook that does not record its version`;
  return `${pid}, ringhook ${holder.version}${holder.schema === null ? '' : `, schema ${holder.schema}`}`;
}

/**
 * Why a command of this ringhook (knowing schema `known`) must not open a database at schema
 * `current` that a running serve holds, or null when it may: the database needs no migration, or no
 * serve holds it (a newer schema than known is refused elsewhere, whoever holds it).
 */
export function migrationRefusal(
  current: number,
  known: number,
  holder: ServeHolder | null,
  location: string,
  ownVersion: string,
): string | null {
  if (current >= known || holder === null) return null;
  return (
    `the database ${location} has schema ${current} and this ringhook (${ownVersion}) needs schema ${known}, but a running ringhook serve ` +
    `(${describeHolder(holder)}) holds it: nothing was changed. To upgrade, restart serve with this version (it upgrades the database as it starts; ` +
    'docs/upgrading.md), then run this command again'
  );
}

/** A second serve on a held data dir: why not, and, when it would have migrated, that it changed nothing. */
export function serveHeldRefusal(
  dataDir: string,
  holder: ServeHolder,
  schema: { current: number; known: number } | null,
): string {
  const upgrade =
    schema !== null && schema.current < schema.known
      ? `; this ringhook would upgrade the database's schema ${schema.current} → ${schema.known}, which only happens once that serve is stopped (nothing was changed)`
      : '';
  return `another ringhook serve (${describeHolder(holder)}) is using the data dir ${dataDir}: stop it first, or give this one its own RINGHOOK_DATA_DIR${upgrade}`;
}
