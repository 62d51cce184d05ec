// RINGHOOK_DATABASE_URL, read once, here: the TLS check (core/server/database-tls.ts) and the driver
// (store/postgres/connect.ts, which hands postgres.js these fields, never the URL's text) use the
// same reading. Two readers disagreed before: a duplicated sslmode was read first by one and last
// by the other, and a URL without a host let postgres.js take PGHOST from the environment. So a
// parameter given twice is refused, the PG* environment variables are not read at all, and a
// parameter the driver would not honour is refused rather than passed on quietly. A URL without a
// host is 127.0.0.1, an address: `localhost` would be a name for the resolver to answer. Pure.

export interface DatabaseUrl {
  /** Host names or addresses (brackets removed), or one socket directory (an absolute path). */
  hosts: string[];
  /** One port per host (5432 where none is given). */
  ports: number[];
  /** A Unix-socket directory instead of hosts (a host that is a path, or ?host=/dir without one). */
  socketDir: string | undefined;
  user: string | undefined;
  password: string | undefined;
  database: string | undefined;
  sslmode: string | undefined;
  /** sslrootcert=system: the system's authorities, as verify-full. */
  systemRoots: boolean;
  targetSessionAttrs: string | undefined;
  /** The other parameters: sent to the server at connection (application_name, options, search_path…). */
  serverParameters: Record<string, string>;
}

export type ParsedDatabaseUrl = { ok: true; url: DatabaseUrl } | { ok: false; error: string };

const SSLMODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];
const SESSION_ATTRS = ['read-write', 'read-only', 'primary', 'standby', 'prefer-standby'];
/** The driver's own settings, which ringhook sets itself (a URL would silently not change them). */
const DRIVER_SETTINGS = new Set([
  'max',
  'idle_timeout',
  'connect_timeout',
  'max_lifetime',
  'max_pipeline',
  'backoff',
  'keep_alive',
  'prepare',
  'debug',
  'fetch_types',
  'publications',
  'sslnegotiation',
  'ssl',
]);
/** libpq's parameters the driver does not read: accepted, they would go to the server as settings. */
const NOT_READ: Record<string, string> = {
  sslcert: 'client certificates are not supported',
  sslkey: 'client certificates are not supported',
  sslpassword: 'client certificates are not supported',
  sslcrl: 'certificate revocation lists are not supported',
  sslrootcert: 'give a private authority in RINGHOOK_DATABASE_CA_FILE (sslrootcert=system is read: the system’s)',
  port: 'put the port after the host (postgres://user@host:5432/db)',
  user: 'put the user before the host (postgres://user@host/db)',
  password: 'put the password in the URL (postgres://user:password@host/db)',
  dbname: 'put the database in the path (postgres://user@host/db)',
  hostaddr: 'put the address as the host',
  passfile: 'put the password in the URL',
};

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new Error(`its ${what} has a malformed %-escape`);
  }
}

function hostAndPort(part: string): { host: string; port: number | undefined } {
  const bracketed = /^\[([^\]]*)\](?::(\d*))?$/.exec(part);
  const [host, port] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : [part.replace(/:\d*$/, ''), /:(\d*)$/.exec(part)?.[1]];
  if (!bracketed && host.includes(':'))
    throw new Error(`its host ${part} is not host:port (an IPv6 address goes in [brackets])`);
  if (port === undefined || port === '') return { host: decode(host, 'host'), port: undefined };
  const n = Number(port);
  if (!Number.isInteger(n) || n < 1 || n > 65_535) throw new Error(`its port ${port} is not a port (1–65535)`);
  return { host: decode(host, 'host'), port: n };
}

function parameters(query: string): Map<string, string> {
  const seen = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(query)) {
    if (seen.has(key))
      throw new Error(`the parameter ${key} is given twice (${seen.get(key)} and ${value}): give it once`);
    seen.set(key, value);
  }
  return seen;
}

function read(url: string): DatabaseUrl {
  const scheme = /^postgres(?:ql)?:\/\//i.exec(url);
  if (!scheme) throw new Error('it is not a PostgreSQL URL (expected postgres://user:password@host:port/database)');
  const rest = url.slice(scheme[0].length).split('#')[0]!;
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const slash = beforeQuery.indexOf('/');
  const authority = slash < 0 ? beforeQuery : beforeQuery.slice(0, slash);
  const path = slash < 0 ? '' : beforeQuery.slice(slash + 1);
  const at = authority.lastIndexOf('@');
  const userinfo = at < 0 ? undefined : authority.slice(0, at);
  const colon = userinfo?.indexOf(':') ?? -1;
  const user = userinfo === undefined ? undefined : decode(colon < 0 ? userinfo : userinfo.slice(0, colon), 'user');
  const password = userinfo !== undefined && colon >= 0 ? decode(userinfo.slice(colon + 1), 'password') : undefined;
  const named =
    authority.slice(at + 1) === ''
      ? []
      : authority
          .slice(at + 1)
          .split(',')
          .map(hostAndPort);
  if (named.some((h) => h.host === '')) throw new Error('one of its hosts is empty');
  const params = parameters(queryAt < 0 ? '' : rest.slice(queryAt + 1));

  let socketDir: string | undefined;
  const hostParam = params.get('host');
  params.delete('host');
  if (hostParam !== undefined) {
    if (named.length > 0) throw new Error('it names hosts both before the path and in ?host=: name them once');
    if (!hostParam.startsWith('/'))
      throw new Error(`?host=${hostParam} is not a socket directory: put a host name before the path`);
    socketDir = hostParam;
  }
  if (named.length === 1 && named[0]!.host.startsWith('/')) socketDir = named[0]!.host;
  else if (named.some((h) => h.host.startsWith('/')))
    throw new Error('a socket directory cannot be one of several hosts');

  const sslmode = params.get('sslmode')?.toLowerCase();
  params.delete('sslmode');
  if (sslmode !== undefined && !SSLMODES.includes(sslmode))
    throw new Error(`sslmode=${sslmode} is not one of ${SSLMODES.join(', ')}`);
  const rootcert = params.get('sslrootcert');
  if (rootcert === 'system') params.delete('sslrootcert');
  const targetSessionAttrs = params.get('target_session_attrs');
  params.delete('target_session_attrs');
  if (targetSessionAttrs !== undefined && !SESSION_ATTRS.includes(targetSessionAttrs))
    throw new Error(`target_session_attrs=${targetSessionAttrs} is not one of ${SESSION_ATTRS.join(', ')}`);
  for (const key of params.keys()) {
    if (key === 'ssl') throw new Error('use sslmode=, not ssl=');
    if (DRIVER_SETTINGS.has(key)) throw new Error(`${key}= is set by ringhook itself: remove it`);
    if (NOT_READ[key]) throw new Error(`${key}= is not read: ${NOT_READ[key]}`);
  }

  const hosts = socketDir !== undefined ? [socketDir] : named.length > 0 ? named.map((h) => h.host) : ['127.0.0.1'];
  const ports = hosts.map((_, i) => named[i]?.port ?? 5432);
  return {
    hosts,
    ports,
    socketDir,
    user: user || undefined,
    password,
    database: path === '' ? undefined : decode(path, 'database'),
    sslmode,
    systemRoots: rootcert === 'system',
    targetSessionAttrs,
    serverParameters: Object.fromEntries(params),
  };
}

/** The URL's parts, or why it cannot be used (one line, without the password). */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  try {
    return { ok: true, url: read(url) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}
