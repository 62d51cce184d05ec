// ringhook's own certificate as both stores keep it: one row, the key sealed with the secret key
// (AES-GCM bound to its purpose), so that a copy of the database alone does not give the key away.
import type { AcmeFaultKind } from '../core/server/acme.js';
import type { SecretBox } from './secret-box.js';
import type { CertificateState, StoredCertificate } from '../core/server/certificate.js';

/** Authenticated with the sealed key: a value sealed for an api_key does not open as this. */
const KEY_CONTEXT = 'acme certificate key';

/** The row's columns, as both stores name them. */
export interface CertificateRow {
  names: string | null;
  cert_pem: string | null;
  key_sealed: string | null;
  not_before: number | null;
  not_after: number | null;
  obtained_at: number | null;
  last_attempt_at: number | null;
  last_error: string | null;
  last_error_fix: string | null;
  last_error_kind: string | null;
  failures: number;
  next_attempt_at: number | null;
}

export const CERTIFICATE_COLUMNS =
  'names, cert_pem, key_sealed, not_before, not_after, obtained_at, last_attempt_at, last_error, last_error_fix, last_error_kind, failures, next_attempt_at';

/** The values saved for a new certificate, in the order of the store's upsert. */
export function certificateValues(
  secrets: SecretBox,
  c: StoredCertificate,
): [string, string, string, number, number, number] {
  return [c.names.join(','), c.certPem, secrets.seal(c.keyPem, KEY_CONTEXT), c.notBefore, c.notAfter, c.obtainedAt];
}

export const NO_CERTIFICATE: CertificateState = {
  certificate: null,
  lastAttemptAt: null,
  lastError: null,
  lastErrorFix: null,
  lastErrorKind: null,
  failures: 0,
  nextAttemptAt: null,
};

/** A key that does not open (another secret key) reads as no certificate: a new one is ordered. */
export function certificateState(secrets: SecretBox, row: CertificateRow | undefined): CertificateState {
  if (!row) return NO_CERTIFICATE;
  let certificate: StoredCertificate | null = null;
  if (
    row.names &&
    row.cert_pem &&
    row.key_sealed &&
    row.not_before !== null &&
    row.not_after !== null &&
    row.obtained_at !== null
  ) {
    try {
      certificate = {
        names: row.names.split(','),
        certPem: row.cert_pem,
        keyPem: secrets.open(row.key_sealed, KEY_CONTEXT),
        notBefore: Number(row.not_before),
        notAfter: Number(row.not_after),
        obtainedAt: Number(row.obtained_at),
      };
    } catch {
      certificate = null;
    }
  }
  return {
    certificate,
    lastAttemptAt: row.last_attempt_at === null ? null : Number(row.last_attempt_at),
    lastError: row.last_error,
    lastErrorFix: row.last_error_fix,
    lastErrorKind: row.last_error_kind as AcmeFaultKind | null,
    failures: Number(row.failures),
    nextAttemptAt: row.next_attempt_at === null ? null : Number(row.next_attempt_at),
  };
}

/** The statements both stores run with the same text ($1, $2…; SQLite binds them by name: sqlite/named.ts). */
export const CERTIFICATE_SQL = {
  get: `SELECT ${CERTIFICATE_COLUMNS} FROM acme_certificate WHERE id = 1`,
  save: `INSERT INTO acme_certificate (id, names, cert_pem, key_sealed, not_before, not_after, obtained_at, last_attempt_at, failures)
         VALUES (1, $1, $2, $3, $4, $5, $6, $6, 0)
         ON CONFLICT (id) DO UPDATE SET names = excluded.names, cert_pem = excluded.cert_pem, key_sealed = excluded.key_sealed,
           not_before = excluded.not_before, not_after = excluded.not_after, obtained_at = excluded.obtained_at,
           last_attempt_at = excluded.last_attempt_at, last_error = NULL, last_error_fix = NULL, last_error_kind = NULL, failures = 0, next_attempt_at = NULL`,
  failure: `INSERT INTO acme_certificate (id, last_attempt_at, last_error, last_error_fix, last_error_kind, failures, next_attempt_at) VALUES (1, $1, $2, $3, $5, 1, $4)
            ON CONFLICT (id) DO UPDATE SET last_attempt_at = excluded.last_attempt_at, last_error = excluded.last_error,
              last_error_fix = excluded.last_error_fix, last_error_kind = excluded.last_error_kind, failures = acme_certificate.failures + 1, next_attempt_at = excluded.next_attempt_at`,
  putChallenge: `INSERT INTO acme_challenges (token, key_authorization, expires_at) VALUES ($1, $2, $3)
                 ON CONFLICT (token) DO UPDATE SET key_authorization = excluded.key_authorization, expires_at = excluded.expires_at`,
  challenge: 'SELECT key_authorization FROM acme_challenges WHERE token = $1 AND expires_at > $2',
  deleteChallenge: 'DELETE FROM acme_challenges WHERE token = $1 OR expires_at <= $2',
} as const;
