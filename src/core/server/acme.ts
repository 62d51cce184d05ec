// The decisions around ringhook's own certificate (ACME), with no I/O: when to renew, how long to
// wait after a failure, which challenge to offer, and what a failure means to the operator. Pure.
import { backoffDelay } from '../backoff.js';

const DAY_MS = 86_400_000;

/** Renew from 30 days before expiry, as Let's Encrypt advises for its 90-day certificates. */
export const RENEW_BEFORE_MS = 30 * DAY_MS;

/** After a failure: 5 min, 10, 20 … up to 12 h. Let's Encrypt allows 5 failed validations per name an hour. */
export const ORDER_BACKOFF = { initialMs: 5 * 60_000, maxMs: 12 * 3_600_000 } as const;

export interface CertificateDates {
  notBefore: number;
  notAfter: number;
}

/**
 * When to start renewing: 30 days before expiry, or, for a certificate that lives less than 90 days
 * (a test authority's, a short-lived profile), once two thirds of its life have passed.
 */
export function renewalTime({ notBefore, notAfter }: CertificateDates): number {
  const lifetime = Math.max(0, notAfter - notBefore);
  return notAfter - Math.min(RENEW_BEFORE_MS, Math.floor(lifetime / 3));
}

/** Does the certificate cover every name asked for (in any order)? */
export function coversNames(certificateNames: readonly string[], wanted: readonly string[]): boolean {
  const have = new Set(certificateNames.map((n) => n.toLowerCase()));
  return wanted.every((n) => have.has(n.toLowerCase()));
}

/**
 * When to try again after `failures` failed orders in a row: the doubling backoff, or later when the
 * authority said when (a rate limit's Retry-After), never past the renewal deadline's last day.
 */
export function nextAttemptAfterFailure(now: number, failures: number, retryAfterMs?: number): number {
  const wait = Math.max(backoffDelay(failures, ORDER_BACKOFF), retryAfterMs ?? 0);
  return now + wait;
}

/**
 * Does a failure's backoff outlive a restart? Only for what the authority counts against its limits
 * (failed validations, rate limits): after a restart with a fixed CA file, directory or network
 * ringhook tries at once, while a restart loop still cannot hammer the authority with failures.
 */
export function backoffOutlivesRestart(kind: AcmeFaultKind | null): boolean {
  return kind === 'validation' || kind === 'rate_limited';
}

export type ChallengeType = 'http-01' | 'tls-alpn-01';

/** HTTP-01 needs the plain-HTTP port (80 as the authority sees it); without it there is nothing to offer. */
export function challengePriority(plainHttpListening: boolean): ChallengeType[] {
  return plainHttpListening ? ['http-01'] : [];
}

/** Whole days left (negative once expired), for /metrics and doctor. */
export function daysToExpiry(notAfter: number, now: number): number {
  return Math.floor((notAfter - now) / DAY_MS);
}

export type AcmeFaultKind = 'unreachable' | 'untrusted' | 'rejected' | 'rate_limited' | 'validation' | 'other';

export interface AcmeFault {
  kind: AcmeFaultKind;
  /** What to do about it, one sentence. */
  fix: string;
}

/** What an order's failure means, from the error's code and the authority's words. */
export function describeAcmeFault(
  error: { code?: string | undefined; message: string },
  names: readonly string[],
  directory: string,
): AcmeFault {
  const code = error.code ?? '';
  const text = error.message;
  const list = names.join(', ');
  if (
    /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code) ||
    /self[- ]signed certificate|unable to verify the first certificate|local issuer/i.test(text)
  ) {
    return {
      kind: 'untrusted',
      fix: `the ACME directory's own HTTPS certificate is not trusted: set RINGHOOK_ACME_CA_FILE to its authority's PEM file`,
    };
  }
  if (
    /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ECONNABORTED)$/.test(code) ||
    /ACME directory returned/.test(text)
  ) {
    return {
      kind: 'unreachable',
      fix: `the authority at ${directory} cannot be reached: check RINGHOOK_ACME_DIRECTORY and this machine's connection; ringhook keeps trying`,
    };
  }
  if (/rate.?limit|too many (certificates|requests|failed|new orders|orders|registrations|accounts)/i.test(text)) {
    return {
      kind: 'rate_limited',
      fix: 'the authority limits how often it issues: ringhook waits and tries again by itself; do not restart it in a loop',
    };
  }
  if (/rejectedIdentifier|policy forbids|blocked|not allowed|will not issue|forbidden by policy/i.test(text)) {
    return {
      kind: 'rejected',
      fix: `the authority will not issue for ${list}: check RINGHOOK_ACME_DOMAIN (a public name you own, no IP addresses)`,
    };
  }
  if (/connection|connect|timeout|fetching|unauthorized|invalid response|dns|NXDOMAIN|no valid ip/i.test(text)) {
    return {
      kind: 'validation',
      fix: `the authority could not fetch the challenge from ${list} on port 80: point the name's DNS at this machine and forward ports 80 and 443 to ringhook`,
    };
  }
  return {
    kind: 'other',
    fix: `see the message; check RINGHOOK_ACME_DOMAIN, RINGHOOK_ACME_EMAIL and RINGHOOK_ACME_DIRECTORY`,
  };
}

/** What doctor reads of the certificate's state in the store (store/contract.ts's CertificateState). */
export interface CertificateLook {
  certificate: { names: readonly string[]; notBefore: number; notAfter: number; obtainedAt: number } | null;
  lastAttemptAt: number | null;
  lastError: string | null;
  lastErrorFix: string | null;
  nextAttemptAt: number | null;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * doctor's verdict on ringhook's own certificate: the names, the expiry, the last renewal and the last error with its
 * fix, as serve left them in the store (the same for every node). `fix` is set when it is not ok.
 */
export function certificateVerdict(
  state: CertificateLook,
  acme: { domains: readonly string[]; directory: string },
  now: number,
): { ok: true; detail: string } | { ok: false; detail: string; fix: string } {
  const certificate =
    state.certificate && coversNames(state.certificate.names, acme.domains) ? state.certificate : null;
  const error = state.lastError
    ? `; last error at ${iso(state.lastAttemptAt ?? now)}: ${state.lastError}${state.nextAttemptAt ? `; next try at ${iso(state.nextAttemptAt)}` : ''}`
    : '';
  if (!certificate) {
    const detail = `no certificate yet for ${acme.domains.join(', ')} from ${acme.directory}${error}`;
    return state.lastError
      ? { ok: false, detail, fix: state.lastErrorFix ?? 'see the error' }
      : {
          ok: false,
          detail,
          fix: 'start ringhook serve with ports 80 and 443 reachable from the internet: it orders one at start',
        };
  }
  const days = daysToExpiry(certificate.notAfter, now);
  const detail =
    `${certificate.names.join(', ')} from ${acme.directory}: expires ${iso(certificate.notAfter)} (${days} days), ` +
    `last renewal ${iso(certificate.obtainedAt)}, next renewal from ${iso(renewalTime(certificate))}${error}`;
  if (certificate.notAfter <= now)
    return {
      ok: false,
      detail: `EXPIRED: ${detail}`,
      fix: state.lastErrorFix ?? 'start ringhook serve: it renews at start',
    };
  if (state.lastError) return { ok: false, detail, fix: state.lastErrorFix ?? 'see the error' };
  return { ok: true, detail };
}
