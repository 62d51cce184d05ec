// Alerts and calls: an alert accepted (or refused) within its account's limits, the call's steps
// after that, and the writes that keep them in order.
import type { Alert } from '../../core/webhook/payload.js';
import type { Plan } from '../../core/webhook/limits.js';
import type { CallState } from '../../core/calls/call-state.js';
import type { SmsAttempt } from '../../core/delivery/sms-truth.js';
import type {
  AcceptResult,
  AlertToReceive,
  CallEventRow,
  CallForDialing,
  CallRecord,
  CallStepped,
  CallStepWrite,
  DedupeCheck,
  HistoryPage,
  ReceivedAlert,
  RejectedAlert,
  TransitionFields,
} from '../../core/records.js';
import type { Awaitable } from './awaitable.js';

export interface CallRepo {
  /** Limits checked and the call and its usage written in one transaction, on disk before it resolves. */
  /** With `dedupe`, an earlier call with the same key since `dedupe.since` answers instead, in the same transaction. */
  /**
   * `callbacks`: whether the account has a callback URL, as read with it (false: no outbox row is
   * looked for; undefined: looked at in the transaction). The call.queued event is written in the
   * accept's own transaction (the result's `outboxed` says one was).
   */
  accept(userId: string, plan: Plan, alert: Alert, dedupe?: DedupeCheck, callbacks?: boolean): Promise<AcceptResult>;
  recordRejection(rejected: RejectedAlert): Promise<void>;
  /**
   * Credentials, suspension, payload and limits checked and the alert's row written in one step
   * (PostgreSQL: one round trip, shared by the alerts that arrive together); a store without it is
   * asked step by step (authenticate, then accept or recordRejection).
   */
  receiveAlert?(request: AlertToReceive): Promise<ReceivedAlert>;
  /** A test call; `dialTo`: to the backup person's number instead of the account's (their verification call, core/calls/backup-person). */
  acceptTestCall(
    userId: string,
    message: string,
    perMinute?: number,
    perHour?: number,
    dialTo?: string,
  ): Awaitable<AcceptResult>;
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

/** A call's steps after it was accepted: its state, detection, placement and timeline (its SMS: SmsBackupRepo). */
/** A page of the calls in flight (CallProgressRepo.inFlightPage). */
export interface InFlightPage {
  calls: CallForDialing[];
  /** Where the next page starts; undefined when this one was the last. */
  next: number | undefined;
}

/** A page of rows read with their table id as `pageId` (dropped here), `limit` asked for. */
export function pageOf(rows: ReadonlyArray<CallForDialing & { pageId: number | string }>, limit: number): InFlightPage {
  const calls = rows.map(({ pageId: _, ...call }) => call);
  const last = rows.at(-1);
  return { calls, next: rows.length < limit || !last ? undefined : Number(last.pageId) };
}

export interface CallProgressRepo {
  get(callId: string): Awaitable<CallForDialing | undefined>;
  /** Calls not final yet that this node answers for, oldest first (with one node: all of them). */
  inFlight(): Awaitable<CallForDialing[]>;
  /**
   * The same calls a page at a time, oldest first: those after `after` (the `next` of the page
   * before; 0 for the first), at most `limit`. `next` is undefined on the last page.
   */
  inFlightPage(after: number, limit: number): Awaitable<InFlightPage>;
  /** A step alone: the same as `step` with no status-callback events. */
  transition(callId: string, to: CallState, fields?: TransitionFields, detail?: string): Awaitable<boolean>;
  /**
   * A step and the status-callback events it makes, written in one transaction (#55): the outbox has
   * a step's events exactly when the step is recorded, whatever stops the process and when.
   */
  step(write: CallStepWrite): Awaitable<CallStepped>;
  /**
   * A decision refused (#56: its PIN wrong every try), kept on the call (`decision_refused`) and its
   * timeline, unless the call already has a decision or a refusal (false then). Nothing is sent.
   */
  refuseDecision(callId: string, reason: string): Awaitable<boolean>;
  recordDetection(callId: string, status: string, cause: string): Awaitable<void>;
  placedAgain(
    callId: string,
    placement: { trunk: string; channelId: string; dialedAt: number },
    detail: string,
  ): Awaitable<void>;
  note(callId: string, event: string, detail?: string): Awaitable<void>;
  timeline(callId: string): Awaitable<CallEventRow[]>;
}

/** Call records written in order, never blocking the event loop (see SqliteCallWrites for SQLite's reason). */
export interface CallWrites {
  readonly waiting: number;
  /** `lazy`: nothing waits for it, so it may wait a moment to share a commit (SQLite's group of writes). */
  write<T>(label: string, work: () => Awaitable<T>, options?: { lazy?: boolean }): Promise<T>;
  drain(timeoutMs: number): Promise<boolean>;
  abandon(): number;
}
