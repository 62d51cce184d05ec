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
  return preparedOnce(db, named(sql));
}

function preparedOnce(db: Db, text: string): Statement {
  let statements = preparedByDb.get(db);
  if (!statements) {
    statements = new Map();
    preparedByDb.set(db, statements);
  }
  let found = statements.get(text);
  if (!found) {
    found = db.prepare(text);
    statements.set(text, found);
  }
  return found;
}

/** A shared statement (written with $n) run with positional values, as PostgreSQL's are. */
export interface Positional<Row> {
  run(...values: unknown[]): { changes: number };
  get(...values: unknown[]): Row | undefined;
  all(...values: unknown[]): Row[];
}

/** Whether the statement names $1…$n each once, in that order: then they bind as plain `?`. */
export function inOrderOnce(sql: string): boolean {
  let next = 1;
  for (const match of sql.matchAll(/\$(\d+)/g)) if (Number(match[1]) !== next++) return false;
  return true;
}

export function positional<Row = unknown>(db: Db, sql: string): Positional<Row> {
  if (!inOrderOnce(sql)) {
    const statement = prepared(db, sql);
    return {
      run: (...values) => statement.run(valuesOf(values)),
      get: (...values) => statement.get(valuesOf(values)) as Row | undefined,
      all: (...values) => statement.all(valuesOf(values)) as Row[],
    };
  }
  // No object of names built per run (the webhook's reads and writes run once an alert, #58). Values
  // past the last placeholder are left out, as the names' object ignored them.
  const statement = preparedOnce(db, sql.replace(/\$\d+/g, '?'));
  const count = sql.match(/\$\d+/g)?.length ?? 0;
  const exactly = (values: unknown[]) => (values.length > count ? values.slice(0, count) : values);
  return {
    run: (...values) => statement.run(...exactly(values)),
    get: (...values) => statement.get(...exactly(values)) as Row | undefined,
    all: (...values) => statement.all(...exactly(values)) as Row[],
  };
}
