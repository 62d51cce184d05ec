// The store as the rest of ringhook sees it: one interface, two implementations. SQLite (the
// embedded default) answers at once, PostgreSQL (several nodes) later; callers await both, so the
// HTTP, dialer and SMS code never know which one runs. Each subject's repo is in its own file.
import type { AccountRepo } from './accounts.js';
import type { CallbackRepo } from './callbacks.js';
import type { CallProgressRepo, CallRepo, CallWrites } from './calls.js';
import type { CertificateRepo } from './certificates.js';
import type { HeldCallRepo } from './held.js';
import type { ChangeFeed, NodeRegistry } from './cluster.js';
import type { OwnerAuthRepo, SessionRepo } from './sessions.js';
import type { SmsBackupRepo } from './sms.js';

export type { AccountRepo } from './accounts.js';
export type { Awaitable } from './awaitable.js';
export type { CallbackRepo } from './callbacks.js';
export { type CallProgressRepo, type CallRepo, type CallWrites, type InFlightPage, pageOf } from './calls.js';
export type { CertificateRepo } from './certificates.js';
export { heldAlerts, type HeldAlerts, type HeldCallRepo, type HeldEnd, type ReleasedAlert } from './held.js';
export type { ChangeFeed, NodeRegistry } from './cluster.js';
export type { OwnerAuthRepo, SessionRepo } from './sessions.js';
export type { SmsBackupRepo } from './sms.js';

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Where it is, for logs and doctor (a file, or a URL without its password). */
  readonly location: string;
  readonly accounts: AccountRepo;
  readonly calls: CallRepo;
  readonly progress: CallProgressRepo;
  readonly held: HeldCallRepo;
  readonly sms: SmsBackupRepo;
  readonly sessions: SessionRepo;
  readonly ownerAuth: OwnerAuthRepo;
  readonly writes: CallWrites;
  readonly certificates: CertificateRepo;
  readonly callbacks: CallbackRepo;
  /** Present when several nodes share the store. */
  readonly nodes?: NodeRegistry;
  readonly changes?: ChangeFeed;
  /** Throws when the store cannot answer. */
  ping(): Promise<void>;
  /** The schema version the store is at. */
  schemaVersion(): Promise<number>;
  /**
   * Several nodes: looks at the schema again (another node may have migrated it); returns why this
   * node must take no alerts now, or null. Until it answers null again, ping() and every alert fail.
   */
  checkSchema?(): Promise<string | null>;
  close(): Promise<void>;
}
