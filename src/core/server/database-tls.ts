// Whether the way to PostgreSQL may be used: the database holds phone numbers, alert texts and
// accounts, and sslmode=require checks no certificate (anyone on the path can read and rewrite
// rows). A host on this machine needs nothing; any other must be reached with its certificate
// verified: sslmode=verify-full (the system's authorities) or RINGHOOK_DATABASE_CA_FILE (a
// private one), unless the operator says the network is private (RINGHOOK_DATABASE_UNVERIFIED=on).
// The URL is read by core/server/database-url.ts, the one reader the driver's options come from too, so
// what is checked here is what is used. Pure: the URL's text in, a decision out.
import { isIP } from 'node:net';
import { type DatabaseUrl, parseDatabaseUrl } from './database-url.js';

export type DatabaseTlsMode = 'none' | 'unverified' | 'verified';

export interface DatabaseTlsDecision {
  /** The hosts the URL names (several for a multi-host URL; 127.0.0.1 when it names none). */
  hosts: string[];
  /** Every host is this machine (a loopback address, not a name, or a Unix socket). */
  local: boolean;
  tls: DatabaseTlsMode;
  /** Why the URL must not be used, in one line with its fix; undefined when it may. */
  refusal: string | undefined;
  /** The URL as read (undefined when it cannot be read: the refusal says why). */
  url: DatabaseUrl | undefined;
}

/** sslmode values under which the driver checks the certificate and the host's name. */
const VERIFYING = new Set(['verify-full', 'verify-ca']);

/** The hosts the URL names, as the driver will use them. */
export function databaseHosts(url: string): string[] {
  const parsed = parseDatabaseUrl(url);
  return parsed.ok ? parsed.url.hosts : [];
}

/**
 * Only what cannot lead elsewhere is this machine: a loopback address written as an address
 * (127.0.0.0/8, ::1, ::ffff:127.x) or a Unix socket's directory. A name is looked up by the driver
 * (DNS, /etc/hosts), so it is another host whatever it ends in: `db.localhost` answered by DNS with
 * a relay's address was read as local and reached without TLS (fourth review, #51), and even
 * `localhost` is only what the resolver says.
 */
export function isLocalDatabaseHost(host: string): boolean {
  if (host.startsWith('/')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) !== 6) return false;
  const address = new URL(`http://[${host}]/`).hostname.slice(1, -1);
  return address === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(address);
}

export function tlsModeOf(url: DatabaseUrl, caFile: boolean): DatabaseTlsMode {
  if (url.sslmode === 'disable') return 'none';
  if (caFile || (url.sslmode !== undefined && VERIFYING.has(url.sslmode)) || url.systemRoots) return 'verified';
  return url.sslmode === undefined ? 'none' : 'unverified';
}

export function databaseTls(url: string, options: { caFile: boolean; allowUnverified: boolean }): DatabaseTlsDecision {
  const parsed = parseDatabaseUrl(url);
  if (!parsed.ok)
    return { hosts: [], local: false, tls: 'none', refusal: `RINGHOOK_DATABASE_URL: ${parsed.error}`, url: undefined };
  const { hosts, sslmode } = parsed.url;
  const local = hosts.every(isLocalDatabaseHost);
  const tls = tlsModeOf(parsed.url, options.caFile);
  let refusal: string | undefined;
  if (options.caFile && sslmode === 'disable') {
    refusal = 'RINGHOOK_DATABASE_CA_FILE is set but RINGHOOK_DATABASE_URL says sslmode=disable: remove one of them';
  } else if (!local && tls !== 'verified' && !options.allowUnverified) {
    const remote = hosts.filter((h) => !isLocalDatabaseHost(h)).join(', ');
    const how =
      tls === 'none' ? 'is reached without TLS' : `is reached with sslmode=${sslmode}, which checks no certificate`;
    const where = hosts.some((h) => !isLocalDatabaseHost(h) && /(^|\.)localhost\.?$/i.test(h))
      ? 'may not be on this machine (a name is looked up by the driver, and DNS or /etc/hosts may answer with another machine: for this machine write 127.0.0.1 or [::1])'
      : 'is not on this machine';
    refusal =
      `the database host ${remote} ${where} and ${how}: anyone on the path could read and change the data. ` +
      'Add sslmode=verify-full to RINGHOOK_DATABASE_URL (and RINGHOOK_DATABASE_CA_FILE for a private authority), ' +
      'or, on a network no one else can reach (one host’s compose network, WireGuard), set RINGHOOK_DATABASE_UNVERIFIED=on';
  }
  return { hosts, local, tls, refusal, url: parsed.url };
}
