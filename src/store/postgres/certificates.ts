// ringhook's own certificate in PostgreSQL, shared by every node: one node orders at a time (a
// transaction-scoped advisory lock, released however the order ends), all serve what it saved.
import type { SecretBox } from '../secret-box.js';
import type { CertificateFailure, CertificateState, StoredCertificate } from '../../core/server/certificate.js';
import type { CertificateRepo } from '../contract/index.js';
import { CERTIFICATE_SQL, type CertificateRow, certificateState, certificateValues } from '../certificates.js';
import { query, type Sql } from './connect.js';

/** Any fixed number other than the migrations' lock: "ACME". */
const ORDER_LOCK = 0x41434d45;

const SQL = {
  ...CERTIFICATE_SQL,
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
