// The connection pool to PostgreSQL (porsager's `postgres`). Times and ids are BIGINT and come back
// as JS numbers (milliseconds and row ids stay far below 2^53). A URL that does not lead to a
// server that answers is a UserError of one line that never shows the password.
import fs from 'node:fs';
import os from 'node:os';
import postgres from 'postgres';
import { databaseTls } from '../../core/server/database-tls.js';
import { errorCode, UserError } from '../../lib/errors.js';

const INT8 = 20;

/** How the database's certificate is checked (RINGHOOK_DATABASE_CA_FILE, RINGHOOK_DATABASE_UNVERIFIED). */
export interface DatabaseTlsOptions {
  caFile?: string | undefined;
  allowUnverified?: boolean;
}

type Ssl = false | 'require' | 'prefer' | 'allow' | 'verify-full' | { ca: string; rejectUnauthorized: true };

/**
 * How the driver reaches the database, after the checks of core/server/database-tls.ts: every field from
 * the one reading of the URL (core/server/database-url.ts), none left for postgres.js to take from the
 * URL's text or from the PG* environment variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE,
 * PGSSL…), which ringhook ignores. With a CA file, TLS whose certificate must chain to it (the
 * host's name is checked too). Throws a UserError for a way the data must not go.
 */
export function driverTarget(url: string, tls: DatabaseTlsOptions = {}): DriverTarget {
  const decision = databaseTls(url, {
    caFile: tls.caFile !== undefined,
    allowUnverified: tls.allowUnverified === true,
  });
  if (decision.refusal || !decision.url)
    throw new UserError(`cannot use the PostgreSQL database ${redactUrl(url)}: ${decision.refusal}`);
  const target = decision.url;
  let ssl: Ssl;
  if (tls.caFile !== undefined) ssl = { ca: readCa(tls.caFile), rejectUnauthorized: true };
  else if (decision.tls === 'verified') ssl = 'verify-full';
  else if (decision.tls === 'none') ssl = false;
  else ssl = target.sslmode === 'prefer' || target.sslmode === 'allow' ? target.sslmode : 'require';
  const user = target.user ?? os.userInfo().username;
  const password = target.password ?? '';
  return {
    host: target.hosts,
    port: target.ports,
    ...(target.socketDir !== undefined && { path: `${target.socketDir}/.s.PGSQL.${target.ports[0]}` }),
    user,
    // A function: an empty password would be "unset" to the driver, which then reads PGPASSWORD.
    pass: () => password,
    database: target.database ?? user,
    ssl,
    sslnegotiation: null,
    ...(target.targetSessionAttrs !== undefined && { target_session_attrs: target.targetSessionAttrs }),
    idle_timeout: null,
    max_lifetime: () => 60 * (30 + Math.random() * 30),
    max_pipeline: 100,
    keep_alive: 60,
    prepare: true,
    debug: false,
    fetch_types: true,
    publications: 'alltables',
    connection: { ...target.serverParameters, application_name: 'ringhook' },
    // The types do not know arrays of hosts and ports, a null sslnegotiation or a function's lifetime.
  } as unknown as DriverTarget;
}

/** The options postgres.js takes, all of them set (see driverTarget). */
export type DriverTarget = Omit<postgres.Options<Record<string, never>>, 'types'>;

function readCa(caFile: string): string {
  let ca: string;
  try {
    ca = fs.readFileSync(caFile, 'utf8');
  } catch (error) {
    throw new UserError(
      `RINGHOOK_DATABASE_CA_FILE (${caFile}) cannot be read: ${errorCode(error) ?? (error as Error).message}`,
    );
  }
  if (!ca.includes('-----BEGIN CERTIFICATE-----'))
    throw new UserError(`RINGHOOK_DATABASE_CA_FILE (${caFile}) holds no PEM certificate`);
  return ca;
}

function openPool(target: DriverTarget, poolSize: number) {
  return postgres({
    ...target,
    max: poolSize,
    // An alert must be answered within the sender's budget (TradingView waits 3 s): a server that
    // does not answer is given up on before that, and a refused one is tried again within half a
    // second, never after the client's own backoff (up to 20 s) while alerts wait behind it.
    connect_timeout: 2,
    backoff: (attempt: number) => Math.min(0.05 * 2 ** attempt, 0.5),
    // Notices ("relation already exists, skipping") would go to stdout.
    onnotice: () => {},
    transform: { undefined: null },
    types: {
      bigint: {
        to: INT8,
        from: [INT8],
        serialize: (value: number) => String(value),
        parse: (raw: string) => Number(raw),
      },
    },
  });
}

export type Sql = ReturnType<typeof openPool>;
export type Tx = postgres.TransactionSql<{ bigint: number }>;
/** A pool or a transaction: what runs a query. */
export type Queryable = Sql | Tx;

/**
 * Runs one of the named SQL constants with its parameters, as a prepared statement: each
 * connection parses and plans a statement once, not at every alert.
 */
export function query<Row>(db: Queryable, text: string, params: unknown[] = []): Promise<Row[] & { count: number }> {
  return db.unsafe(text, params as never[], { prepare: true }) as unknown as Promise<Row[] & { count: number }>;
}

function passwordOf(url: string): string | undefined {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password || undefined;
  } catch {
    return /^[a-z]+:\/\/[^:/@]*:([^@]*)@/i.exec(url)?.[1];
  }
}

/** The URL without its password (user:***@, password=***), for logs, messages and doctor. */
export function redactUrl(url: string): string {
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@?#]*):[^@/?#]*@/i, '$1:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/** Why, in one line; `password` is masked wherever the server's own text repeats it (never in ringhook's own words). */
function reason(error: unknown, password: string | undefined): string {
  const code = errorCode(error);
  const raw = error instanceof Error ? error.message : String(error);
  const message = password ? raw.split(password).join('***') : raw;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the server running, and on this port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return 'no answer within 2 s';
    case '28P01':
    case '28000':
      return `access refused: ${message}`;
    case '3D000':
      return `${message} (create it first: createdb, or CREATE DATABASE)`;
    default:
      return code ? `${message} (${code})` : message;
  }
}

/** The reason a store could not be used, as one line without the password. */
export function connectionError(url: string, error: unknown, what = 'cannot use the PostgreSQL database'): UserError {
  return new UserError(`${what} ${redactUrl(url)}: ${reason(error, passwordOf(url))}`);
}

/** Tries of the first query, each within connect_timeout, before a silent server is given up on. */
const FIRST_ANSWER_TRIES = 3;

/** Opens the pool and checks that the server answers. */
export async function connect(
  url: string,
  options: { poolSize?: number; tls?: DatabaseTlsOptions } = {},
): Promise<Sql> {
  if (!/^postgres(ql)?:\/\//i.test(url))
    throw new UserError(
      `not a PostgreSQL URL: ${redactUrl(url)} (expected postgres://user:password@host:port/database)`,
    );
  const target = driverTarget(url, options.tls);
  let sql: Sql;
  try {
    sql = openPool(target, options.poolSize ?? 10);
  } catch (error) {
    throw connectionError(url, error, 'cannot parse the PostgreSQL URL');
  }
  // A server that is there but slow to answer its first connection (a busy host, a boot) is given
  // FIRST_ANSWER_TRIES of the alert path's 2 s; one that refuses or is unknown is reported at once.
  for (let tries = 1; ; tries++) {
    try {
      await sql`select 1`;
      return sql;
    } catch (error) {
      const timedOut = ['CONNECT_TIMEOUT', 'ETIMEDOUT'].includes(errorCode(error) ?? '');
      if (timedOut && tries < FIRST_ANSWER_TRIES) continue;
      // The connection failed already: what ending the pool says adds nothing to the error thrown.
      await sql.end({ timeout: 0 }).catch(() => {});
      const why = connectionError(url, error, 'cannot connect to PostgreSQL at');
      throw timedOut ? new UserError(`${why.message}, ${FIRST_ANSWER_TRIES} times`) : why;
    }
  }
}
