// ringhook's own certificate in SQLite: one node, so the order lock is this process's own.
import type { Db } from './connect.js';
import type { SecretBox } from '../secret-box.js';
import type { CertificateFailure, CertificateState, StoredCertificate } from '../../core/server/certificate.js';
import type { CertificateRepo } from '../contract/index.js';
import { CERTIFICATE_COLUMNS, type CertificateRow, certificateState, certificateValues } from '../certificates.js';

const SQL = {
  get: `SELECT ${CERTIFICATE_COLUMNS} FROM acme_certificate WHERE id = 1`,
  save: `INSERT INTO acme_certificate (id, names, cert_pem, key_sealed, not_before, not_after, obtained_at, last_attempt_at, failures)
         VALUES (1, @names, @cert, @key, @notBefore, @notAfter, @obtainedAt, @obtainedAt, 0)
         ON CONFLICT (id) DO UPDATE SET names = excluded.names, cert_pem = excluded.cert_pem, key_sealed = excluded.key_sealed,
           not_before = excluded.not_before, not_after = excluded.not_after, obtained_at = excluded.obtained_at,
           last_attempt_at = excluded.last_attempt_at, last_error = NULL, last_error_fix = NULL, last_error_kind = NULL, failures = 0, next_attempt_at = NULL`,
  failure: `INSERT INTO acme_certificate (id, last_attempt_at, last_error, last_error_fix, last_error_kind, failures, next_attempt_at) VALUES (1, @at, @error, @fix, @kind, 1, @nextAttemptAt)
            ON CONFLICT (id) DO UPDATE SET last_attempt_at = excluded.last_attempt_at, last_error = excluded.last_error,
              last_error_fix = excluded.last_error_fix, last_error_kind = excluded.last_error_kind, failures = acme_certificate.failures + 1, next_attempt_at = excluded.next_attempt_at`,
  putChallenge: 'INSERT OR REPLACE INTO acme_challenges (token, key_authorization, expires_at) VALUES (?, ?, ?)',
  challenge: 'SELECT key_authorization FROM acme_challenges WHERE token = ? AND expires_at > ?',
  deleteChallenge: 'DELETE FROM acme_challenges WHERE token = ? OR expires_at <= ?',
} as const;

export class SqliteCertificateStore implements CertificateRepo {
  private ordering = false;

  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

  async state(): Promise<CertificateState> {
    return certificateState(this.secrets, this.db.prepare(SQL.get).get() as CertificateRow | undefined);
  }

  async save(certificate: StoredCertificate): Promise<void> {
    const [names, cert, key, notBefore, notAfter, obtainedAt] = certificateValues(this.secrets, certificate);
    this.db.prepare(SQL.save).run({ names, cert, key, notBefore, notAfter, obtainedAt });
  }

  async recordFailure(f: CertificateFailure): Promise<void> {
    this.db.prepare(SQL.failure).run(f);
  }

  async putChallenge(token: string, keyAuthorization: string, expiresAt: number): Promise<void> {
    this.db.prepare(SQL.putChallenge).run(token, keyAuthorization, expiresAt);
  }

  async challenge(token: string): Promise<string | undefined> {
    const row = this.db.prepare(SQL.challenge).get(token, this.now()) as { key_authorization: string } | undefined;
    return row?.key_authorization;
  }

  async deleteChallenge(token: string): Promise<void> {
    this.db.prepare(SQL.deleteChallenge).run(token, this.now());
  }

  async whileOrdering<T>(work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    if (this.ordering) return { ran: false };
    this.ordering = true;
    try {
      return { ran: true, value: await work() };
    } finally {
      this.ordering = false;
    }
  }
}
