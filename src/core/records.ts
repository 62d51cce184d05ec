// The records the store keeps, as the rest of ringhook sees them: what both stores take and give
// back, whichever one runs. Types and the lifetimes they carry; no I/O.
import type { Account } from './account.js';
import type { LanguageCode, VoiceId } from './speech/language-types.js';
import type { LimitDecision, Plan } from './webhook/limits.js';
import type { Alert } from './webhook/payload.js';
import type { QuietMode } from './delivery/quiet-delivery.js';
import type { EarlierAttempt } from './calls/ring-again.js';
import type { CallState } from './calls/call-state.js';

// ---- accounts

export interface NewAccount {
  phone: string;
  plan: Plan;
  smsBackup: boolean;
  name: string;
  /** Only a press of 1 counts as heard (default: on). */
  requireConfirm?: boolean;
  /** Default: English, its default voice, the language's intro. */
  language?: LanguageCode;
  voice?: VoiceId;
  intro?: string | null;
  /** Default 0 (off) and 'any'. */
  dedupeSeconds?: number;
  webhookSources?: string;
  /** Default none ('' in UTC, mode hold). */
  quietHours?: string;
  timeZone?: string;
  quietMode?: QuietMode;
  /** Default 0 (one call) and 60 s (core/calls/ring-again). */
  ringAgain?: number;
  ringAgainAfter?: number;
  /** Default none (core/calls/backup-person). */
  backupPhone?: string | null;
  backupPhoneStatus?: 'pending' | 'verified' | null;
  /** Default none (core/calls/decision-keys). */
  decisionKeys?: string;
  /** The decision PIN's hash (store/password-hash hashDecisionPin), or none. */
  decisionPinHash?: string | null;
}

/** An account's settings: what its owner and the admin change, beside its name, phone, plan and status. */
export type AccountSettings = Pick<
  Account,
  | 'smsBackup'
  | 'requireConfirm'
  | 'language'
  | 'voice'
  | 'intro'
  | 'dedupeSeconds'
  | 'webhookSources'
  | 'quietHours'
  | 'timeZone'
  | 'quietMode'
  | 'ringAgain'
  | 'ringAgainAfter'
  | 'backupPhone'
  | 'backupPhoneStatus'
  | 'decisionKeys'
>;

export type AccountChanges = Partial<
  Pick<Account, 'name' | 'phone' | 'plan' | 'status'> &
    AccountSettings & {
      /** A new decision PIN's hash (store/password-hash hashDecisionPin), or null to remove it; absent: kept. */
      decisionPinHash: string | null;
    }
>;

// ---- calls and their history

export type CallKind = 'alert' | 'test';

/** Statuses of rejected alerts, shown in the history beside the call statuses. */
export type RejectionStatus =
  | 'rate_limited'
  | 'limit_exceeded'
  | 'invalid_payload'
  | 'suspended'
  /** A duplicate of an earlier alert (its error names the first call_id): no call, nothing counted. */
  | 'duplicate'
  /** From an address the webhook's allowed sources do not include. */
  | 'source_not_allowed';

/** What makes an alert the same as one accepted before (core/webhook/dedupe): its key, and how far back to look. */
export interface DedupeCheck {
  key: string;
  since: number;
}

export interface CallRecord {
  /** The row id: the cursor for paging (pages continue below it). */
  id: number;
  callId: string;
  userId: string;
  kind: CallKind;
  accepted: boolean;
  status: string;
  message: string;
  messageTruncated: boolean;
  ticker: string | null;
  price: number | null;
  action: string | null;
  strategy: string | null;
  alertTimestamp: string | null;
  extra: Record<string, unknown>;
  /** Why the call did not reach its person, as a sentence (a rejected alert: what was wrong with it). */
  error: string | null;
  /** The technical detail behind `error` (the SIP code and cause, Asterisk's answer), for the admin. */
  reasonDetail: string | null;
  receivedAt: number;
  updatedAt: number;
  /** What the dialer and the SMS backup recorded (null until they did). */
  phone: string | null;
  dialedAt: number | null;
  answeredAt: number | null;
  endedAt: number | null;
  ringMs: number | null;
  talkMs: number | null;
  hangupCause: number | null;
  hangupCauseText: string | null;
  sipCode: number | null;
  smsStatus: string | null;
  smsMessageId: string | null;
  smsParts: number | null;
  smsAt: number | null;
  smsError: string | null;
  /** The alert waited for its phone's line and was spoken in the call of this alert. */
  carriedBy: string | null;
  /** Answering-machine detection's verdict and cause (HUMAN, MACHINE, NOTSURE). */
  amdStatus: string | null;
  amdCause: string | null;
  /** The trunk the call went out through (trunk, or trunk2 the backup). */
  trunk: string | null;
  /** When it was held for quiet hours: the end it was held until (kept after its release). */
  heldUntil: number | null;
  /** Ring again (#54): which attempt the row shows (1: the first call), when the next is due while one is scheduled, and the attempts before it. */
  attempt?: number;
  retryAt?: number | null;
  earlierAttempts?: EarlierAttempt[];
  /** The backup person's number, when this call (an alert's last, or their verification call) rang it instead of the account's (#54). */
  dialTo?: string | null;
  /** The alert's own decision keys (#56; '' = none for this call, null = the account's), as `7=buy,8=skip`. */
  decisionKeys?: string | null;
  /** The alert's Idempotency-Key header, as sent (a decision's callback names it). */
  idempotencyKey?: string | null;
  /** The decision taken on the phone (#56): its key, label and time (null until one was sent), or why it was refused ('wrong PIN'). */
  decisionKey?: string | null;
  decisionLabel?: string | null;
  decidedAt?: number | null;
  decisionRefused?: string | null;
}

/** One page of an account's history, newest first. */
export interface HistoryPage {
  entries: CallRecord[];
  /** The cursor of the next (older) page, or null on the last page. */
  next: number | null;
}

export type AcceptResult =
  | { accepted: true; callId: string; receivedAt: number; outboxed?: boolean }
  /** A duplicate (core/webhook/dedupe): `callId` is the first alert's call; `rowId` the duplicate's own history row. */
  | { accepted: true; duplicate: true; callId: string; rowId: string; receivedAt: number }
  /** `callId`: the rejection's own row in the history, when one was kept (alerts; the dashboard shows it live). */
  | { accepted: false; decision: Exclude<LimitDecision, { allowed: true }>; callId?: string };

/** An alert as the webhook hands it to a store that checks everything in one step (PostgreSQL). */
export interface AlertToReceive {
  userId: string;
  apiKey: string;
  /** The parsed alert, or why the body was refused (with a short excerpt of it). */
  payload: { ok: true; alert: Alert } | { ok: false; error: string; excerpt: string };
  /** The client's own address (the peer, or what a trusted proxy named): the account's allowed sources are checked against it. */
  address?: string | undefined;
  /** The Idempotency-Key header, when sent (duplicate alerts, core/webhook/dedupe). */
  idempotencyKey?: string | undefined;
  /** The server's allowed sources (RINGHOOK_WEBHOOK_SOURCES) refused the address: the refusal's reason in the history. */
  serverRefusal?: string | undefined;
}

/** What the store decided and recorded for an AlertToReceive. */
export type ReceivedAlert =
  | { outcome: 'unauthorized' }
  /** `callId`: the refusal's own row in the history (the live history shows it). */
  | { outcome: 'suspended' | 'invalid'; account: Account; callId: string }
  | { outcome: 'refused'; account: Account; callId: string; decision: Exclude<LimitDecision, { allowed: true }> }
  /** From an address outside the allowed sources of the server or the account (`setBy`). */
  | { outcome: 'source_not_allowed'; account: Account; callId: string; setBy: 'server' | 'account' }
  /** A duplicate (core/webhook/dedupe): `callId` is the first alert's call; `rowId` the duplicate's own history row. */
  | { outcome: 'duplicate'; account: Account; callId: string; rowId: string }
  | {
      outcome: 'accepted';
      account: Account;
      callId: string;
      receivedAt: number;
      /** The other nodes were told of the queued call by the write itself; `outboxed`: its call.queued callback written with it. */
      announced: boolean;
      outboxed?: boolean;
    };

export interface RejectedAlert {
  /** Its history row's id, when the caller tells of it (live history); a new one otherwise. */
  callId?: string;
  userId: string;
  status: RejectionStatus;
  error: string;
  /** The alert when it could be parsed; otherwise a short excerpt of the body. */
  alert?: Alert;
  excerpt?: string;
}

// ---- what happens to a call after it was accepted

export interface TransitionFields {
  phone?: string;
  channelId?: string;
  dialedAt?: number;
  ringingAt?: number;
  answeredAt?: number;
  endedAt?: number;
  ringMs?: number;
  talkMs?: number;
  hangupCause?: number;
  hangupCauseText?: string;
  sipCode?: number;
  /** Why the call did not reach its person, as a sentence (src/core/reasons.ts). */
  error?: string;
  /** The technical detail behind `error`: the SIP code and cause, Asterisk's own answer. */
  reasonDetail?: string;
  /** The alert waited for its phone's line and was spoken in this call (its call_id). */
  carriedBy?: string;
  /** The trunk the call went out through. */
  trunk?: string;
  /** Ring again (core/calls/ring-again): the attempt next, when it is due, and the earlier attempts (JSON). */
  attempt?: number;
  retryAt?: number;
  attempts?: string;
  /** The backup person's number (core/calls/backup-person): the next attempt rings it instead of the account's. */
  dialTo?: string;
  /** Not a column: the call never left this server (its set-up), so its alert's monthly allowance is given back. */
  returnsAllowance?: boolean;
}

/**
 * A step of a call and what is written with it, in one transaction (#55): its status-callback events
 * (none when `callbacks` is false: the account was read without a callback URL, and nothing is read
 * for them). The shape later steps add their own records to (a keypad decision with the call's end).
 */
export interface CallStepWrite {
  callId: string;
  to: CallState;
  fields?: TransitionFields;
  detail?: string | undefined;
  /** false: the account has no callback URL (read with the call); undefined: looked at in the transaction. */
  callbacks?: boolean | undefined;
  /**
   * The decision pressed on the phone (#56), recorded with the step (the call's end) and its
   * `call.decision` event, or not at all: a call whose step does not move (it ended otherwise, or
   * another node recorded its decision) keeps what it had.
   */
  decision?: CallDecision | undefined;
}

/** A decision key pressed (and its PIN, if any, right): what is recorded and sent. */
export type CallDecision = { key: string; label: string };

/** What a step did: whether the call moved, and how many deliveries it added to the outbox. */
export interface CallStepped {
  moved: boolean;
  outboxed: number;
}

export type SmsStatus = 'not_needed' | 'disabled' | 'sending' | 'waiting' | 'sent' | 'delivered' | 'failed';

/** An alert whose call ended and whose SMS backup was not decided: its process stopped in between. */
export interface EndedWithoutSms {
  callId: string;
  userId: string;
  message: string;
  /** Cut at the webhook's limit (1): its SMS shows the cut ("..."). */
  messageTruncated?: boolean | number;
  phone: string | null;
  status: string;
  carriedBy: string | null;
  /** When its end was recorded: its SMS's window counts from here. */
  endedAt: number;
}

/** The SMS work a stopped process (or a silent node) left: what the next to look settles. */
export interface LeftSms {
  /** Being handed to the gateway: it may have gone, so it is not sent again. */
  handingOver: string[];
  /** Waiting for the gateway, which certainly took nothing yet. */
  waiting: WaitingSms[];
  /** Ended, the SMS not yet decided. */
  ended: EndedWithoutSms[];
}

/** An alert whose SMS waits for the gateway to come back (it certainly took nothing yet). */
export interface WaitingSms {
  callId: string;
  userId: string;
  /** The call's final state (`sms_instead`: quiet hours' SMS, worded as such). */
  status: string;
  message: string;
  /** Cut at the webhook's limit (1): its SMS shows the cut ("..."). */
  messageTruncated?: boolean | number;
  /** The number that was called, if any. */
  phone: string | null;
  /** The call that carried this alert, when it rode along in another's call. */
  carriedBy: string | null;
  /** When the SMS was claimed: the retry window counts from here. */
  claimedAt: number;
}

export interface CallForDialing {
  callId: string;
  userId: string;
  kind: 'alert' | 'test';
  status: string;
  message: string;
  receivedAt: number;
  phone: string | null;
  dialedAt: number | null;
  ringingAt: number | null;
  answeredAt: number | null;
  smsStatus: SmsStatus | null;
  /** The alert whose call carried this one, when it waited for its phone's line. */
  carriedBy: string | null;
  /** When it was held for quiet hours: the instant they ended (its call says how old it is; its freshness counts from then). */
  heldUntil: number | null;
  /** 1 when the message was longer than the webhook's limit and cut to it (its call says so); absent: not cut. */
  messageTruncated?: number;
  /** Which attempt of the alert (1: its first call; core/calls/ring-again); a row of schema 16 or older has none. */
  attempt?: number | null;
  /** When a missed call is called again: not before this instant (ms). */
  retryAt?: number | null;
  /** The earlier attempts' times and outcomes (a JSON list: core/calls/ring-again's readAttempts). */
  attempts?: string | null;
  /** Seconds after its receipt no call of it starts (its sender's `expires_in`, core/calls/alert-expiry); none: no expiry of its own. */
  expiresIn?: number | null;
  /** The number it rings instead of the account's: the backup person's (an escalated alert, or their verification call). */
  dialTo?: string | null;
  /** The alert's own decision keys (#56): '' none for this call, null the account's (account.decisionKeys). */
  decisionKeys?: string | null;
  /** What its steps and end need of its account, read with the call (#55; null: the account is gone; absent: not read). */
  account?: CallAccountFlags | null;
}

/**
 * Whether a call's steps look for status-callback events (CallStepWrite.callbacks): false when read
 * with an account that has no callback URL, or none at all; undefined when not read with it.
 */
export function callbacksFlag(account: CallAccountFlags | null | undefined): boolean | undefined {
  return account === undefined ? undefined : (account?.callbackOn ?? false);
}

/** An account's flags as its calls carry them (CallForDialing.account). */
export interface CallAccountFlags {
  smsBackup: boolean;
  status: Account['status'];
  phone: string;
  /** It has a status-callback URL: a call step's events are written with the step (false: nothing is read for them). */
  callbackOn: boolean;
  /** Its decision keys (#56, `7=buy,8=skip`) and that a decision PIN guards them: absent when it has none. */
  decisionKeys?: string;
  decisionPin?: boolean;
}

export interface CallEventRow {
  at: number;
  event: string;
  detail: string | null;
}

// ---- the dashboard's sessions and sign-in links

/** A session ends this long after sign-in, whatever happens. */
export const SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60_000;

/** ...or after this long without a request. */
export const SESSION_IDLE_MS = 24 * 60 * 60_000;

/** last_seen_at is written at most this often, so reading pages does not write on every request. */
export const TOUCH_EVERY_MS = 60_000;

export interface Session {
  userId: string;
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
}

/** A sign-in link works once, within this time. */
export const LOGIN_LINK_TTL_MS = 15 * 60_000;
