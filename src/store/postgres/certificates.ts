// ringhook's own certificate in PostgreSQL, shared by every node: one node orders at a time (a
// transaction-scoped advisory lock, released however the order ends), all serve what it saved.
import type { SecretBox } from '../secret-box.js';
import type { CertificateFailure, CertificateState, StoredCertificate } from '../../core/server/certificate.js';
import type { CertificateRepo } from '../contract/index.js';
import { CERTIFICATE_COLUMNS, type CertificateRow, certificateState, certificateValues } from '../certificates.js';
import { query, type Sql } from './connect.js';

/** Any fixed number other than the migrations' lock: "ACME". */
const ORDER_LOCK = 0x41434d45;

const SQL = {
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
  tryLock: 'SELECT pg_try_advisory_xact_lock($1) AS locked',
} as const;

export class PgCertificateStore implements CertificateRepo {
  constructor(
    private readonly sql: Sql,
    private readonly secrets: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

  async state(): Promise<CertificateState> {
    const [row] = await query<CertificateRow>(this.sql, SQL.get);
    return certificateState(this.secrets, row);
  }

  async save(certificate: StoredCertificate): Promise<void> {
    await query(this.sql, SQL.save, certificateValues(this.secrets, certificate));
  }

  async recordFailure(f: CertificateFailure): Promise<void> {
    await query(this.sql, SQL.failure, [f.at, f.error, f.fix, f.nextAttemptAt, f.kind]);
  }

  async putChallenge(token: string, keyAuthorization: string, expiresAt: number): Promise<void> {
    await query(this.sql, SQL.putChallenge, [token, keyAuthorization, expiresAt]);
  }

  async challenge(token: string): Promise<string | undefined> {
    const [row] = await query<{ key_authorization: string }>(this.sql, SQL.challenge, [token, this.now()]);
    return row?.key_authorization;
  }

  async deleteChallenge(token: string): Promise<void> {
    await query(this.sql, SQL.deleteChallenge, [token, this.now()]);
  }

  /**
   * The lock lives in a transaction of its own, so a node that dies mid-order releases it with its
   * connection. When that connection is lost while the work runs, the driver gives up on the
   * transaction at once but the work goes on: the answer (the error) waits for the work to end, so
   * no second order starts beside it on this node.
   */
  async whileOrdering<T>(work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    let working: Promise<T> | undefined;
    try {
      return (await this.sql.begin(async (tx) => {
        const [row] = await query<{ locked: boolean }>(tx, SQL.tryLock, [ORDER_LOCK]);
        if (!row?.locked) return { ran: false as const };
        working = work();
        return { ran: true as const, value: await working };
      })) as { ran: true; value: T } | { ran: false };
    } catch (error) {
      // A lost connection's error is told once the work ended. The work's own failure needs no word
      // here: it is the error thrown (the callback rethrew it), or it came after the connection was
      // lost, whose error is the answer and says the order's lock is gone.
      await (working as Promise<T> | undefined)?.then(
        () => undefined,
        () => undefined,
      );
      throw error;
    }
  }
}
