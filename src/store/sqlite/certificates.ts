// ringhook's own certificate in SQLite: one node, so the order lock is this process's own.
import { positional } from './named.js';
import type { Db } from './connect.js';
import type { SecretBox } from '../secret-box.js';
import type { CertificateFailure, CertificateState, StoredCertificate } from '../../core/server/certificate.js';
import type { CertificateRepo } from '../contract/index.js';
import { CERTIFICATE_SQL, type CertificateRow, certificateState, certificateValues } from '../certificates.js';

const SQL = CERTIFICATE_SQL;

export class SqliteCertificateStore implements CertificateRepo {
  private ordering = false;

  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

  async state(): Promise<CertificateState> {
    return certificateState(this.secrets, positional<CertificateRow>(this.db, SQL.get).get());
  }

  async save(certificate: StoredCertificate): Promise<void> {
    const [names, cert, key, notBefore, notAfter, obtainedAt] = certificateValues(this.secrets, certificate);
    positional(this.db, SQL.save).run(names, cert, key, notBefore, notAfter, obtainedAt);
  }

  async recordFailure(f: CertificateFailure): Promise<void> {
    positional(this.db, SQL.failure).run(f.at, f.error, f.fix, f.nextAttemptAt, f.kind);
  }

  async putChallenge(token: string, keyAuthorization: string, expiresAt: number): Promise<void> {
    positional(this.db, SQL.putChallenge).run(token, keyAuthorization, expiresAt);
  }

  async challenge(token: string): Promise<string | undefined> {
    const row = positional<{ key_authorization: string }>(this.db, SQL.challenge).get(token, this.now());
    return row?.key_authorization;
  }

  async deleteChallenge(token: string): Promise<void> {
    positional(this.db, SQL.deleteChallenge).run(token, this.now());
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
