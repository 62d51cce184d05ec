// A call's status-callback events are written in the same transaction as the step they report (#55):
// a call step or an SMS result, and its deliveries in the outbox, commit together or not at all, so a
// kill -9 at any moment loses no event and makes none twice (the outbox's event key). The events are
// made from the call's row as the step left it (core/callbacks/callback-events), under the step's lock. Both
// stores run the same statements here, each in its own kind of transaction.
import { callbackBody, callbackEventsFor, newCallbackMessageId } from '../core/callbacks/callback-events.js';
import type { CallState } from '../core/calls/call-state.js';
import type { CallAccountFlags, CallForDialing } from '../core/records.js';
import { toRecord, type CallRow } from './rows.js';
import type { NewDelivery } from '../core/callbacks/callback-records.js';

/** What a step reports: the call's new state, or `sms` for its SMS backup's result. */
export type ReportedChange = CallState | 'sms';

/**
 * Whether a step's events are looked for: false when the call was read with an account that has no
 * callback URL (nothing more is read); undefined when not known (the URL is looked at in the step's
 * transaction). True looks too: the URL may have been turned off since (a 410).
 */
export type CallbacksFlag = boolean | undefined;

export const OUTBOX_SQL = {
  /** The call as the step left it, and whether its account has a callback URL now (turned off since: no event). */
  call: `SELECT calls.*, EXISTS (SELECT 1 FROM callback_settings s WHERE s.user_id = calls.user_id AND s.url IS NOT NULL) AS callback_on
         FROM calls WHERE call_id = $1`,
  enqueue: `INSERT INTO callback_outbox (message_id, event_key, user_id, call_id, type, body, status, attempts, created_at, next_attempt_at)
            VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $7) ON CONFLICT (event_key) DO NOTHING`,
} as const;

/** The values of OUTBOX_SQL.enqueue for one delivery. */
export function enqueueValues(d: NewDelivery): unknown[] {
  return [d.messageId, d.eventKey, d.userId, d.callId, d.type, d.body, d.createdAt];
}

/** A row of OUTBOX_SQL.call. */
export type CallWithCallback = CallRow & { callback_on: boolean | number };

/** The deliveries a change of a call makes, from its row as the change left it (none when its account has no callback URL). */
export function deliveriesFor(change: ReportedChange, row: CallWithCallback | undefined, now: number): NewDelivery[] {
  if (!row || !(row.callback_on === true || Number(row.callback_on) === 1)) return [];
  const call = toRecord(row);
  return callbackEventsFor(change, call).map((event) => ({
    messageId: newCallbackMessageId(),
    eventKey: event.key,
    userId: call.userId,
    callId: event.callId,
    type: event.type,
    body: callbackBody(event.type, now, event.data),
    createdAt: now,
  }));
}

/**
 * The call.queued delivery of an alert about to be accepted, made before its row exists (PostgreSQL's
 * webhook function writes it with the row, when the account has a callback URL): the same event and
 * body as deliveriesFor makes from the row, since an accepted alert's call.queued tells only its ids and time.
 */
export function queuedDelivery(callId: string, userId: string, receivedAt: number): NewDelivery {
  const [event] = callbackEventsFor('queued', {
    callId,
    userId,
    kind: 'alert',
    status: 'queued',
    error: null,
    smsStatus: null,
    smsError: null,
    smsParts: null,
    receivedAt,
    answeredAt: null,
    endedAt: null,
  });
  return {
    messageId: newCallbackMessageId(),
    eventKey: event!.key,
    userId,
    callId,
    type: event!.type,
    body: callbackBody(event!.type, receivedAt, event!.data),
    createdAt: receivedAt,
  };
}

/** The step makes no event at all (a call being dialed): nothing is looked for. */
export function reportsNothing(change: ReportedChange): boolean {
  return change === 'dialing';
}

/**
 * The account columns read with a call (CallForDialing.account), one JSON value: the same text on
 * both stores but for the function that builds it (`json_object` in SQLite, `json_build_object` in
 * PostgreSQL).
 */
export function accountFlagsColumn(jsonObject: 'json_object' | 'json_build_object', alias: string): string {
  return `(SELECT ${jsonObject}('smsBackup', a.sms_backup, 'status', a.status, 'phone', a.phone,
            'callbackOn', EXISTS (SELECT 1 FROM callback_settings s WHERE s.user_id = a.user_id AND s.url IS NOT NULL),
            'decisionKeys', a.decision_keys, 'decisionPin', a.decision_pin_hash IS NOT NULL)
          FROM accounts a WHERE a.user_id = calls.user_id) AS ${alias}`;
}

/**
 * A call as the desk holds it (CallForDialing), with its account's flags: the same text on both
 * stores but for the JSON function (the quoted aliases keep their case in PostgreSQL and SQLite alike).
 */
export function selectCall(jsonObject: 'json_object' | 'json_build_object'): string {
  return `SELECT call_id AS "callId", user_id AS "userId", kind, status, message, received_at AS "receivedAt", phone,
            dialed_at AS "dialedAt", ringing_at AS "ringingAt", answered_at AS "answeredAt", sms_status AS "smsStatus",
            carried_by AS "carriedBy", held_until AS "heldUntil", message_truncated AS "messageTruncated",
            attempt, retry_at AS "retryAt", attempts, expires_in AS "expiresIn", dial_to AS "dialTo", decision_keys AS "decisionKeys",
            ${accountFlagsColumn(jsonObject, 'account')}
          FROM calls`;
}

/**
 * A call row read with its account's flags: the flags as CallForDialing keeps them. The row is
 * completed where it is (not copied), and rows of one account read one after the other share one
 * flags object: a quiet-hours batch reads 10,000 rows of one account, and each copy and flags
 * object was one more for every young-generation collection to copy while the call lasts (#51).
 */
export function withAccountFlags<T extends { account?: unknown }>(row: T): T & Pick<CallForDialing, 'account'> {
  const completed = row as T & Pick<CallForDialing, 'account'>;
  if (typeof row.account === 'string') {
    if (row.account !== lastFlags.text) lastFlags = { text: row.account, flags: accountFlags(JSON.parse(row.account)) };
    completed.account = lastFlags.flags;
  } else if (row.account !== undefined) completed.account = accountFlags(row.account);
  return completed;
}

/** The flags of the last account read as JSON text (SQLite's json_object): the rows that follow are often its. */
let lastFlags: { text: string | undefined; flags: CallAccountFlags | null } = { text: undefined, flags: null };

function accountFlags(raw: unknown): CallAccountFlags | null {
  if (raw === null || typeof raw !== 'object') return null;
  const flags = raw as Record<string, unknown>;
  return Object.freeze({
    smsBackup: Number(flags.smsBackup) === 1,
    status: flags.status as CallAccountFlags['status'],
    phone: String(flags.phone),
    callbackOn: flags.callbackOn === true || Number(flags.callbackOn) === 1,
    // Only when the account has them: a call without decision keys reads as it always did.
    ...(typeof flags.decisionKeys === 'string' && flags.decisionKeys !== '' && { decisionKeys: flags.decisionKeys }),
    ...((flags.decisionPin === true || Number(flags.decisionPin) === 1) && { decisionPin: true }),
  });
}
