// ringhook's own certificate (ACME) and its HTTP-01 challenges, shared by every node.
import type { CertificateFailure, CertificateState, StoredCertificate } from '../../core/server/certificate.js';

export interface CertificateRepo {
  state(): Promise<CertificateState>;
  /** A new certificate: replaces the old one and clears the failures. */
  save(certificate: StoredCertificate): Promise<void>;
  recordFailure(failure: CertificateFailure): Promise<void>;
  /** HTTP-01: whichever node the authority reaches answers the token. */
  putChallenge(token: string, keyAuthorization: string, expiresAt: number): Promise<void>;
  challenge(token: string): Promise<string | undefined>;
  deleteChallenge(token: string): Promise<void>;
  /** Runs `work` while no other node orders (PostgreSQL: an advisory lock); `ran: false` at once when one does. */
  whileOrdering<T>(work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
}
