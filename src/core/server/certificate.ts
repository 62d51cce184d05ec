// ringhook's own certificate (ACME) as every node sees it, and how ordering it went.
import type { AcmeFaultKind } from './acme.js';

/** The certificate as the store keeps it for every node (the store seals the key with the secret key). */
export interface StoredCertificate {
  names: string[];
  /** The certificate and its chain, PEM. */
  certPem: string;
  keyPem: string;
  notBefore: number;
  notAfter: number;
  obtainedAt: number;
}

/** The certificate and how ordering it went: what doctor shows. */
export interface CertificateState {
  certificate: StoredCertificate | null;
  lastAttemptAt: number | null;
  lastError: string | null;
  lastErrorFix: string | null;
  lastErrorKind: AcmeFaultKind | null;
  /** Failed orders in a row (the backoff's count); 0 after a success. */
  failures: number;
  nextAttemptAt: number | null;
}

export interface CertificateFailure {
  at: number;
  error: string;
  kind: AcmeFaultKind;
  fix: string;
  nextAttemptAt: number;
}
