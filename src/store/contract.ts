// The store as the rest of ringhook sees it: one interface, two implementations. SQLite (the
// embedded default) answers at once, PostgreSQL (several nodes) later; callers await both, so the
// HTTP, dialer and SMS code never know which one runs.
import type { Account } from '../core/account.js';
import type { Alert } from '../core/payload.js';
import type { Plan } from '../core/limits.js';
import type { CallState } from '../core/call-state.js';
import type { AcmeFaultKind } from '../core/acme.js';
import type { NodeInfo } from '../core/cluster-view.js';
import type { SmsAttempt } from '../core/sms-truth.js';

export type { NodeInfo } from '../core/cluster-view.js';
import type { CallbackRepo } from './callbacks-contract.js';
export type { CallbackRepo } from './callbacks-contract.js';
import type {
  AcceptResult,
  AlertToReceive,
  AccountChanges,
  CallEventRow,
  CallForDialing,
  CallRecord,
  DedupeCheck,
  EndedWithoutSms,
  HistoryPage,
  LeftSms,
  NewAccount,
  ReceivedAlert,
  RejectedAlert,
  Session,
  SmsStatus,
  TransitionFields,
  WaitingSms,
} from '../core/records.js';

/** A value now (SQLite) or later (PostgreSQL). */
export type Awaitable<T> = T | Promise<T>;

export interface AccountRepo {
  create(input: NewAccount): Awaitable<Account>;
  get(userId: string): Awaitable<Account | undefined>;
  list(): Awaitable<Account[]>;
  update(userId: string, changes: AccountChanges): Awaitable<Account | undefined>;
  regenerateKey(userId: string): Awaitable<Account | undefined>;
  regenerateAllKeys(): Awaitable<Account[]>;
  delete(userId: string): Awaitable<boolean>;
  /** The account the webhook credentials belong to; a wrong key and an unknown user_id cost the same. */
  authenticate(userId: string, apiKey: string): Awaitable<Account | undefined>;
}

export interface CallRepo {
  /** Limits checked and the call and its usage written in one transaction, on disk before it resolves. */
  /** With `dedupe`, an earlier call with the same key since `dedupe.since` answers instead, in the same transaction. */
  accept(userId: string, plan: Plan, alert: Alert, dedupe?: DedupeCheck): Promise<AcceptResult>;
  recordRejection(rejected: RejectedAlert): Promise<void>;
  /**
   * Credentials, suspension, payload and limits checked and the alert's row written in one step
   * (PostgreSQL: one round trip, shared by the alerts that arrive together); a store without it is
   * asked step by step (authenticate, then accept or recordRejection).
   */
  receiveAlert?(request: AlertToReceive): Promise<ReceivedAlert>;
  acceptTestCall(userId: string, message: string, perMinute?: number, perHour?: number): Awaitable<AcceptResult>;
  usage(userId: string, now?: number): Awaitable<{ month: string; used: number; resetsAt: number }>;
  get(callId: string): Awaitable<CallRecord | undefined>;
  page(
    userId: string,
    options: { before?: number | undefined; limit: number; statuses?: readonly string[] },
  ): Awaitable<HistoryPage>;
  getForAccount(userId: string, callId: string): Awaitable<CallRecord | undefined>;
  list(options?: { userId?: string; limit?: number }): Awaitable<CallRecord[]>;
  /** The server's last SMS attempts (sent, delivered, failed, waiting), newest first, among its latest calls. */
  recentSmsAttempts(limit: number): Awaitable<SmsAttempt[]>;
}

export interface CallProgressRepo {
  get(callId: string): Awaitable<CallForDialing | undefined>;
  /** Calls not final yet that this node answers for, oldest first (with one node: all of them). */
  inFlight(): Awaitable<CallForDialing[]>;
  transition(callId: string, to: CallState, fields?: TransitionFields, detail?: string): Awaitable<boolean>;
  recordDetection(callId: string, status: string, cause: string): Awaitable<void>;
  placedAgain(
    callId: string,
    placement: { trunk: string; channelId: string; dialedAt: number },
    detail: string,
  ): Awaitable<void>;
  note(callId: string, event: string, detail?: string): Awaitable<void>;
  timeline(callId: string): Awaitable<CallEventRow[]>;
  claimSms(callId: string): Awaitable<boolean>;
  /** `why`: the reason a `disabled` SMS backup sent nothing (core/reasons SMS_NOT_SENT), kept as its sms_error. */
  markSmsSkipped(callId: string, status: 'not_needed' | 'disabled', why?: string): Awaitable<void>;
  setSmsResult(
    callId: string,
    result: { status: 'sent' | 'failed' | 'delivered'; messageId?: string | null; parts?: number; error?: string },
  ): Awaitable<void>;
  findBySmsMessage(
    messageId: string,
  ): Awaitable<Array<{ callId: string; userId: string; smsStatus: SmsStatus | null }>>;
  recordSmsReceipt(callId: string, result: { status: 'delivered' | 'failed'; error?: string }): Awaitable<boolean>;
  staleSmsClaims(): Awaitable<string[]>;
  smsWaits(callIds: readonly string[], error: string): Awaitable<boolean>;
  resumeSms(callIds: readonly string[]): Awaitable<boolean>;
  /** The SMS left waiting for the gateway by this node's last process (PostgreSQL: and by nodes that left), now this node's. */
  waitingSmsLeft(): Awaitable<WaitingSms[]>;
  /** Calls of this node that ended since `since` with their SMS backup undecided. */
  endedWithoutSms(since: number): Awaitable<EndedWithoutSms[]>;
  failLeftSms(callId: string, from: 'sending' | 'waiting', error: string): Awaitable<boolean>;
}

/** Alerts held for quiet hours (#41): kept in the store, so they outlive a restart or a node. */
export interface HeldCallRepo {
  /** Queued alerts held until `until` (a call that is no longer queued is left as it is); the ids held. */
  hold(callIds: readonly string[], until: number, detail: string): Awaitable<string[]>;
  /**
   * Held alerts whose quiet hours ended by `now`, queued again for this node: each held alert is
   * released by exactly one node, an account's batch together (one call).
   */
  releaseDue(now: number): Awaitable<CallForDialing[]>;
  /** How many alerts the account has held, and until when (the soonest). */
  heldFor(userId: string): Awaitable<{ count: number; until: number | null }>;
}

export interface SessionRepo {
  create(userId: string): Awaitable<{ token: string; session: Session }>;
  get(token: string): Awaitable<Session | undefined>;
  delete(token: string): Awaitable<void>;
  deleteForAccount(userId: string): Awaitable<void>;
}

export interface OwnerAuthRepo {
  setPassword(userId: string, password: string): Promise<void>;
  hasPassword(userId: string): Awaitable<boolean>;
  checkPassword(userId: string, password: string): Promise<boolean>;
  isAdmin(userId: string): Awaitable<boolean>;
  setAdmin(userId: string, admin: boolean): Awaitable<void>;
  createLoginLink(userId: string): Awaitable<{ token: string; expiresAt: number }>;
  useLoginLink(token: string): Awaitable<string | undefined>;
}

/** Call records written in order, never blocking the event loop (see SqliteCallWrites for SQLite's reason). */
export interface CallWrites {
  readonly waiting: number;
  /** `lazy`: nothing waits for it, so it may wait a moment to share a commit (SQLite's group of writes). */
  write<T>(label: string, work: () => Awaitable<T>, options?: { lazy?: boolean }): Promise<T>;
  drain(timeoutMs: number): Promise<boolean>;
  abandon(): number;
}

/** A ringhook process sharing the store with others (PostgreSQL only). */
/** A node declared gone, and what it left to the survivor that did so. */
export interface GoneNode {
  nodeId: string;
  /** Its calls in progress, to end as interrupted. */
  calls: CallForDialing[];
  /** Its SMS, now the survivor's (its calls ended within the SMS window, for those not decided). */
  sms: LeftSms;
}

export interface NodeRegistry {
  readonly nodeId: string;
  /** Says this node is alive (every few seconds). */
  heartbeat(): Promise<void>;
  /**
   * Nodes silent for longer than `silentMs` are declared gone, by exactly one survivor, which gets
   * their calls in progress (to end as interrupted) and their SMS; their queued calls become anyone's.
   */
  takeOverSilent(silentMs: number, smsWindowMs: number): Promise<GoneNode[]>;
  list(): Promise<NodeInfo[]>;
  /** This node leaves cleanly (at stop): nothing to take over. */
  leave(): Promise<void>;
}

export interface CallChangeNotice {
  callId: string;
  userId: string;
  status: CallState | 'held' | 'sms' | 'refused';
  at: number;
}

/** Call changes shared between nodes (PostgreSQL LISTEN/NOTIFY). */
export interface ChangeFeed {
  publish(change: CallChangeNotice): void;
  /** Changes published by the other nodes; returns the function that stops listening. */
  subscribe(listener: (change: CallChangeNotice) => void): Promise<() => Promise<void>>;
}

/** ringhook's own certificate (ACME), as the store keeps it for every node: the key sealed with the secret key. */
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

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Where it is, for logs and doctor (a file, or a URL without its password). */
  readonly location: string;
  readonly accounts: AccountRepo;
  readonly calls: CallRepo;
  readonly progress: CallProgressRepo;
  readonly held: HeldCallRepo;
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
