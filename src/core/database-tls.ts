// Whether the way to PostgreSQL may be used: the database holds phone numbers, alert texts and
// accounts, and sslmode=require checks no certificate (anyone on the path can read and rewrite
// rows). A host on this machine needs nothing; any other must be reached with its certificate
// verified: sslmode=verify-full (the system's authorities) or RINGHOOK_DATABASE_CA_FILE (a
// private one), unless the operator says the network is private (RINGHOOK_DATABASE_UNVERIFIED=on).
// Pure: the URL's text in, a decision out.

export type DatabaseTlsMode = 'none' | 'unverified' | 'verified';

export interface DatabaseTlsDecision {
  /** The hosts the URL names (several for a multi-host URL). */
  hosts: string[];
  /** Every host is this machine (loopback or a Unix socket). */
  local: boolean;
  tls: DatabaseTlsMode;
  /** Why the URL must not be used, in one line with its fix; undefined when it may. */
  refusal: string | undefined;
}

/** sslmode values under which the driver checks the certificate and the host's name. */
const VERIFYING = new Set(['verify-full', 'verify-ca']);
/** sslmode values under which it encrypts without checking. */
const UNVERIFYING = new Set(['require', 'prefer', 'allow', 'no-verify']);

function queryOf(url: string): URLSearchParams {
  const at = url.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : url.slice(at + 1).split('#')[0]);
}

/** The hosts of postgres://[user[:password]@]host[:port][,host[:port]…][/db][?…], without ports or brackets. */
export function databaseHosts(url: string): string[] {
  const rest = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const authority = rest.split(/[/?#]/)[0] ?? '';
  const hostPart = authority.slice(authority.lastIndexOf('@') + 1);
  const hosts = hostPart.split(',').map((h) => {
    const bracketed = /^\[([^\]]*)\]/.exec(h);
    const host = bracketed ? bracketed[1]! : h.replace(/:\d*$/, '');
    try {
      return decodeURIComponent(host);
    } catch {
      return host;
    }
  });
  // No host: the driver's default, localhost (or PGHOST, which ringhook does not pass on).
  const named = hosts.filter((h) => h !== '');
  const socketDir = queryOf(url).get('host');
  return named.length > 0 ? named : [socketDir ?? 'localhost'];
}

export function isLocalDatabaseHost(host: string): boolean {
  const h = host.toLowerCase();
  return (
    h === 'localhost' || h.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(h) || h === '::1' || h.startsWith('/')
  );
}

function tlsModeOf(url: string, caFile: boolean): DatabaseTlsMode {
  const query = queryOf(url);
  const mode = (query.get('sslmode') ?? query.get('ssl') ?? '').toLowerCase();
  if (mode === 'disable' || mode === 'false') return 'none';
  if (caFile || VERIFYING.has(mode) || query.get('sslrootcert') === 'system') return 'verified';
  return UNVERIFYING.has(mode) || mode === 'true' ? 'unverified' : 'none';
}

export function databaseTls(url: string, options: { caFile: boolean; allowUnverified: boolean }): DatabaseTlsDecision {
  const hosts = databaseHosts(url);
  const local = hosts.every(isLocalDatabaseHost);
  const mode = (queryOf(url).get('sslmode') ?? '').toLowerCase();
  const tls = tlsModeOf(url, options.caFile);
  let refusal: string | undefined;
  if (options.caFile && (mode === 'disable' || queryOf(url).get('ssl') === 'false')) {
    refusal = 'RINGHOOK_DATABASE_CA_FILE is set but RINGHOOK_DATABASE_URL says sslmode=disable: remove one of them';
  } else if (!local && tls !== 'verified' && !options.allowUnverified) {
    const remote = hosts.filter((h) => !isLocalDatabaseHost(h)).join(', ');
    const how =
      tls === 'none'
        ? 'is reached without TLS'
        : `is reached with sslmode=${mode || 'require'}, which checks no certificate`;
    refusal =
      `the database host ${remote} is not on this machine and ${how}: anyone on the path could read and change the data. ` +
      'Add sslmode=verify-full to RINGHOOK_DATABASE_URL (and RINGHOOK_DATABASE_CA_FILE for a private authority), ' +
      'or, on a network no one else can reach (one host’s compose network, WireGuard), set RINGHOOK_DATABASE_UNVERIFIED=on';
  }
  return { hosts, local, tls, refusal };
}
