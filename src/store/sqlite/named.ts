// SQL written once for both stores uses PostgreSQL's $1, $2… placeholders; better-sqlite3 binds
// named values, so $n becomes @pn and the values an object of p1, p2….
import type { Statement } from 'better-sqlite3';
import type { Db } from './connect.js';

export function named(sql: string): string {
  return sql.replace(/\$(\d+)/g, '@p$1');
}

export function valuesOf(values: readonly unknown[]): Record<string, unknown> {
  return Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value]));
}

const preparedByDb = new WeakMap<Db, Map<string, Statement>>();

/** A shared statement (written with $n) prepared once per database connection. */
export function prepared(db: Db, sql: string): Statement {
  let statements = preparedByDb.get(db);
  if (!statements) {
    statements = new Map();
    preparedByDb.set(db, statements);
  }
  let found = statements.get(sql);
  if (!found) {
    found = db.prepare(named(sql));
    statements.set(sql, found);
  }
  return found;
}

/** A shared statement (written with $n) run with positional values, as PostgreSQL's are. */
export interface Positional<Row> {
  run(...values: unknown[]): { changes: number };
  get(...values: unknown[]): Row | undefined;
  all(...values: unknown[]): Row[];
}

export function positional<Row = unknown>(db: Db, sql: string): Positional<Row> {
  const statement = prepared(db, sql);
  return {
    run: (...values) => statement.run(valuesOf(values)),
    get: (...values) => statement.get(valuesOf(values)) as Row | undefined,
    all: (...values) => statement.all(valuesOf(values)) as Row[],
  };
}
