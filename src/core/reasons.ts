// Why a call did not reach its person, in words its owner can act on: ONE table from what Asterisk
// and the provider reported (a SIP status, a Q.850 cause, an originate Asterisk refused, a stop) to
// a sentence about their phone and what to do. The history, `ringhook calls` and doctor all read
// their words here; the technical detail (the SIP code, Asterisk's own answer) is kept beside the
// sentence as the call's `reason_detail`, for the admin. Pure.

/** What the words may name: the softphone's user name, the number called, the freshness window. */
export interface ReasonContext {
  /** The local softphone the call rang (no trunk), by its user name. */
  softphone?: string | undefined;
  /** The number dialed. */
  phone?: string | undefined;
  /** How long a queued alert may wait (RINGHOOK_CALL_FRESHNESS), in ms. */
  freshnessMs?: number | undefined;
  /** The ringhook node that stopped (several nodes). */
  node?: string | undefined;
  /** The trunk registration's state as Asterisk words it (Rejected, Unregistered…). */
  registration?: string | undefined;
  /** The alert's own expiry (`expires_in`), in seconds. */
  expiresInS?: number | undefined;
}

const DOCTOR = '`ringhook doctor`';

function minutes(ms: number | undefined): string {
  if (ms === undefined) return 'the freshness window (RINGHOOK_CALL_FRESHNESS)';
  const min = Math.round(ms / 60_000);
  if (ms < 60_000 || min * 60_000 !== ms) return `${Math.round(ms / 1000)} seconds`;
  return min === 1 ? '1 minute' : `${min} minutes`;
}

/** Every reason ringhook gives, one sentence each. */
export const REASONS = {
  // The phone's own answers.
  busy: () => 'The line was busy: the phone was on another call, or turned this one down as busy.',
  no_answer: () => 'The phone rang, but nobody answered.',
  declined: () => 'The call was declined on the phone.',
  phone_unavailable: () =>
    'The phone could not take the call: it is switched off, out of coverage or set to do not disturb (the provider said it is unavailable).',
  // Nobody answered the INVITE at all.
  no_response: (c: ReasonContext) =>
    c.softphone
      ? `The softphone registered as ${c.softphone} did not answer: is it still running, and can this server reach it?`
      : `Nothing answered the call: the provider did not respond. Check the trunk's address (RINGHOOK_TRUNK_URI) and that this server can reach the provider (${DOCTOR}).`,
  // The provider refused the call.
  provider_credentials: () =>
    "The provider refused the call as not allowed: check the SIP trunk's username and password (RINGHOOK_TRUNK_USERNAME, RINGHOOK_TRUNK_PASSWORD), and that your provider account may call this number.",
  wrong_number: (c: ReasonContext) =>
    `The provider could not route the number${c.phone ? ` ${c.phone}` : ''}: check the account's phone number (in full, with the country code, e.g. +14155550123).`,
  codecs: () =>
    "The provider refused the call's audio format: ringhook offers G.711 (PCMU, PCMA), so the provider's account must allow one of them (its codec settings).",
  provider_down: () =>
    'The provider could not take the call: it is down or overloaded. Calls go through again once it recovers; a backup trunk (RINGHOOK_TRUNK2_URI) covers this.',
  // Asterisk refused the call before dialing.
  softphone_not_registered: (c: ReasonContext) =>
    `No phone is registered as ${c.softphone ?? 'ringhook'}, so nothing could ring: register a softphone app (Linphone, Zoiper) as user ${c.softphone ?? 'ringhook'} on this server, or set a SIP trunk to call real phones.`,
  softphone_refused: (c: ReasonContext) =>
    `The phone system (Asterisk) refused the call to the softphone ${c.softphone ?? 'ringhook'}: ${DOCTOR} and Asterisk's log say why.`,
  trunk_refused: () =>
    `The phone system (Asterisk) could not send the call through the SIP trunk: ${DOCTOR} says what is wrong with the trunk.`,
  trunk_unregistered: (c: ReasonContext) =>
    `The SIP trunk is not registered with the provider${c.registration ? ` (${c.registration})` : ''}, so calls through it may be refused: check RINGHOOK_TRUNK_USERNAME and RINGHOOK_TRUNK_PASSWORD.`,
  asterisk_no_reply: () =>
    `The phone system (Asterisk) did not answer ringhook's request to place the call: see ${DOCTOR} and Asterisk's log.`,
  telephony_unavailable: (c: ReasonContext) =>
    `Not called: the phone system (Asterisk) could not take calls until the alert was too old to call (${minutes(c.freshnessMs)}); ${DOCTOR} says why.`,
  asterisk_down: () =>
    'The phone system (Asterisk) is not running or does not answer ringhook, so no call can be placed.',
  // The call was placed, then something other than the phone ended it.
  speech_failed: () =>
    `The message could not be turned into speech, so the call could not say it: ${DOCTOR} checks the speech engine.`,
  asterisk_stopped: () =>
    'The call was cut off: the phone system (Asterisk) restarted or stopped during it. It was not placed again.',
  ringhook_stopped: () => 'The call was cut off: ringhook stopped or restarted during it. It was not placed again.',
  node_stopped: (c: ReasonContext) =>
    `The call was cut off: the ringhook server placing it${c.node ? ` (node ${c.node})` : ''} stopped. It was not placed again.`,
  events_lost: () =>
    "The call ended while ringhook's connection to the phone system (Asterisk) was down, so how it ended is not known.",
  end_not_recorded: () =>
    'ringhook could not record how the call ended (the database refused the write), so it was ended as interrupted.',
  no_final_event: () =>
    'The phone system (Asterisk) never said how the call ended, so ringhook gave it up after the ring time.',
  hangup_unconfirmed: () => 'The phone system (Asterisk) did not confirm the end of the call after ringhook hung up.',
  // Never placed.
  expired: (c: ReasonContext) =>
    `Not called: the alert was still waiting when ringhook restarted, and was older than ${minutes(c.freshnessMs)}.`,
  alert_expired: (c: ReasonContext) =>
    `No call started: the alert expired before it could (its sender's expires_in, ${c.expiresInS ?? '?'} s).`,
  account_suspended: () => 'Not called: the account was suspended before the call was placed.',
  backup_gone: () =>
    'Not called at the backup number: it was changed or removed (or has not agreed) while the call waited.',
  no_serve: () =>
    'Not called: no ringhook serve took the test call. Is it running, with telephony on (RINGHOOK_TELEPHONY not off)?',
  unknown: () => 'The call failed for a reason the phone system did not explain; its details say what it reported.',
} satisfies Record<string, (c: ReasonContext) => string>;

export type ReasonCode = keyof typeof REASONS;

/**
 * Calls that never left this server because of its own set-up (no phone registered, no trunk,
 * Asterisk refusing or down, the alert too old after a restart): they give back the monthly
 * allowance they took. Every call that left the server counts, whatever the phone did.
 */
export const SETUP_REASONS: readonly ReasonCode[] = [
  'softphone_not_registered',
  'softphone_refused',
  'trunk_refused',
  'asterisk_no_reply',
  'telephony_unavailable',
  'asterisk_down',
  'expired',
];

/** True when a call that ended for this reason gives its monthly allowance back. */
export function returnsAllowance(code: ReasonCode): boolean {
  return SETUP_REASONS.includes(code);
}

/** The phone's own answers: no fault of the set-up, nothing for the admin to fix. */
export const PHONE_SIDE_REASONS: readonly ReasonCode[] = ['busy', 'no_answer', 'declined', 'phone_unavailable'];

/** True when a call's reason (its sentence) is the phone's own answer. */
export function isPhoneSide(error: string): boolean {
  return PHONE_SIDE_REASONS.some((code) => reasonText(code) === error);
}

/** The sentence of one reason. */
export function reasonText(code: ReasonCode, context: ReasonContext = {}): string {
  return REASONS[code](context);
}

/** A reason as the call keeps it: the sentence (`error`) and the technical detail (`reason_detail`). */
export interface CallReason {
  error: string;
  reasonDetail?: string;
}

export function callReason(code: ReasonCode, context: ReasonContext = {}, detail?: string): CallReason {
  const error = reasonText(code, context);
  return detail === undefined ? { error } : { error, reasonDetail: detail };
}

/**
 * SIP final answers and what they say. Asterisk maps them to Q.850 causes (CAUSES below) and, from
 * 22.7, reports the SIP code itself; the SIP code is the more precise, so it is read first.
 */
export const SIP_REASONS: Readonly<Record<number, ReasonCode>> = {
  401: 'provider_credentials',
  403: 'provider_credentials',
  407: 'provider_credentials',
  404: 'wrong_number',
  410: 'wrong_number',
  484: 'wrong_number',
  485: 'wrong_number',
  604: 'wrong_number',
  408: 'no_response',
  415: 'codecs',
  488: 'codecs',
  606: 'codecs',
  486: 'busy',
  600: 'busy',
  603: 'declined',
  607: 'declined',
  608: 'declined',
  500: 'provider_down',
  502: 'provider_down',
  503: 'provider_down',
  504: 'provider_down',
};

/** Q.850 causes, for an Asterisk that gave no SIP code (older than 22.7, or a cause of its own). */
export const CAUSE_REASONS: Readonly<Record<number, ReasonCode>> = {
  1: 'wrong_number', // unallocated number (404)
  3: 'wrong_number', // no route to destination
  22: 'wrong_number', // number changed (410)
  28: 'wrong_number', // invalid number format (484)
  17: 'busy',
  21: 'declined',
  18: 'no_response', // no user responding (408)
  20: 'phone_unavailable', // subscriber absent
  27: 'phone_unavailable', // destination out of order
  58: 'codecs', // bearer capability not available (488)
  65: 'codecs', // bearer capability not implemented
  88: 'codecs', // incompatible destination
  34: 'provider_down', // no circuit available (503)
  38: 'provider_down', // network out of order
  41: 'provider_down', // temporary failure
  42: 'provider_down', // switching equipment congestion
  44: 'provider_down',
  47: 'provider_down',
  102: 'no_response', // recovery on timer expiry
};

export interface UnansweredReasonFacts {
  cause: number;
  sipCode?: number | undefined;
  /** The far end sent a final answer of its own (a real 480 rather than Asterisk's ring timeout). */
  farEndAnswered: boolean;
  rang: boolean;
}

/** Why a call that was placed was never answered. */
export function unansweredReason(f: UnansweredReasonFacts): ReasonCode {
  // Asterisk reports its own ring timeout as 19/480 too: only a 480 sent by the far end means the
  // phone is unavailable; a timeout after ringing is no answer; silence is no response.
  const timeoutLike = f.sipCode === 480 || (f.sipCode === undefined && (f.cause === 19 || f.cause === 16));
  if (timeoutLike) {
    if (f.farEndAnswered && f.cause !== 16) return 'phone_unavailable';
    return f.rang ? 'no_answer' : 'no_response';
  }
  const bySip = f.sipCode === undefined ? undefined : SIP_REASONS[f.sipCode];
  if (bySip) return bySip;
  if (f.sipCode !== undefined && f.sipCode >= 500 && f.sipCode < 600) return 'provider_down';
  if (f.cause === 16) return f.rang ? 'no_answer' : 'no_response';
  return CAUSE_REASONS[f.cause] ?? 'unknown';
}

export interface RefusalFacts {
  /** The call went to the local softphone (its user name), not through a trunk. */
  softphone?: string | undefined;
  /** Asterisk answered the originate with an HTTP error (it refused); otherwise no answer came. */
  refusedByAsterisk: boolean;
  /** The endpoint was offline when Asterisk refused (for the softphone: none registered). */
  endpointOffline?: boolean | undefined;
}

/** Why Asterisk did not place a call it was asked to (POST /channels failed). */
export function refusalReason(f: RefusalFacts): ReasonCode {
  if (!f.refusedByAsterisk) return 'asterisk_no_reply';
  if (f.softphone === undefined) return 'trunk_refused';
  // Asterisk refuses a call to a softphone when none is registered under that name ("Allocation failed").
  return f.endpointOffline ? 'softphone_not_registered' : 'softphone_refused';
}

/** The technical line of a channel's end: the SIP code and the Q.850 cause, as Asterisk gave them. */
export function hangupDetail(cause: number, causeText: string, sipCode?: number): string {
  const q850 = `cause ${cause}${causeText ? ` (${causeText})` : ''}`;
  return sipCode === undefined ? q850 : `SIP ${sipCode}, ${q850}`;
}

/** A channel's end as Asterisk reported it: its Q.850 cause (and words), and the SIP code behind it. */
export interface HangupFacts {
  cause: number;
  causeText: string;
  sipCode?: number | undefined;
}

/**
 * What a call's end asks of the reasons, once, with all they need: the reason (named, or the facts
 * that choose it: an unanswered call's end, an originate that failed) and its technical detail (words
 * of ringhook's own, the channel's end as Asterisk reported it, or both: "what cut it: SIP …").
 */
export interface ReasonAsk {
  why: ReasonCode | { unanswered: UnansweredReasonFacts } | { refused: RefusalFacts };
  detail?: string;
  hangup?: HangupFacts;
}

/** A call's reason as its record keeps it, and whether the call gives its monthly allowance back. */
export interface EndReason extends CallReason {
  reasonDetail: string;
  returnsAllowance?: true;
}

/** The reason a call's end asked for, in words (see ReasonAsk). */
export function endReason(ask: ReasonAsk, context: ReasonContext): EndReason {
  const { why, detail, hangup } = ask;
  const code =
    typeof why === 'string' ? why : 'unanswered' in why ? unansweredReason(why.unanswered) : refusalReason(why.refused);
  const technical = hangup && hangupDetail(hangup.cause, hangup.causeText, hangup.sipCode);
  const reasonDetail = [detail, technical].filter((part) => part !== undefined).join(': ');
  return {
    error: reasonText(code, context),
    reasonDetail,
    ...(returnsAllowance(code) && { returnsAllowance: true }),
  };
}

/** The SMS backup's own words for an SMS it did not send (its `sms_error`), read back into a sentence by smsReasonText. */
export const SMS_NOT_SENT = {
  notDelivered: 'not delivered: ',
  turnedOff: 'not sent: SMS backup was turned off, or the account suspended, while the SMS waited for the gateway',
  tooOld: 'the SMS gateway took nothing within RINGHOOK_CALL_FRESHNESS; not sent late',
  accountGone: 'the account is gone',
  stoppedHandingOver: 'ringhook stopped while handing the SMS to the gateway; not sent again, to avoid a duplicate',
  // Why no SMS was tried at all (kept with the status `disabled`).
  noGateway: 'no SMS gateway on this server (RINGHOOK_SMS_GATEWAY=none)',
  backupOff: 'SMS backup is off for this account',
  suspended: 'the account is suspended',
  expired: 'the alert had expired (its expires_in)',
} as const;

/**
 * The SMS backup's outcome in a table's few words (`ringhook calls`): `disabled` names its reason,
 * as the switch may be on while the server has no gateway.
 */
export function smsStatusWords(status: string, error: string | null): string {
  if (status !== 'disabled') return status.replace(/_/g, ' ');
  if (error === SMS_NOT_SENT.noGateway) return 'not sent: no SMS gateway';
  if (error === SMS_NOT_SENT.backupOff) return 'not sent: SMS backup off';
  if (error === SMS_NOT_SENT.suspended) return 'not sent: account suspended';
  if (error === SMS_NOT_SENT.accountGone) return 'not sent: account deleted';
  if (error === SMS_NOT_SENT.expired) return 'not sent: alert expired';
  return 'not sent';
}

/**
 * What the owner reads about an SMS backup that did not go (or not yet): a sentence, where the
 * `sms_error` kept on the call is the gateway's or the SMS backup's own words (for the admin).
 * Null when there is nothing to explain (sent, delivered, not needed).
 */
export function smsReasonText(status: string, error: string | null): string | null {
  if (status === 'disabled') {
    if (error === SMS_NOT_SENT.noGateway) return 'No SMS was sent: this server has no SMS gateway.';
    if (error === SMS_NOT_SENT.backupOff) return 'No SMS was sent: SMS backup is off for this account.';
    if (error === SMS_NOT_SENT.suspended) return 'No SMS was sent: the account is suspended.';
    if (error === SMS_NOT_SENT.accountGone) return 'No SMS was sent: the account was deleted.';
    if (error === SMS_NOT_SENT.expired)
      return 'No SMS was sent: the alert had expired (the expires_in its sender gave).';
    // Calls that ended before the reason was kept.
    return 'No SMS was sent: SMS backup was off for this account, or this server has no SMS gateway.';
  }
  if (status === 'waiting')
    return 'The SMS gateway has not taken the SMS yet (down or busy): it is tried again until the alert is too old.';
  if (status !== 'failed') return null;
  const e = error ?? '';
  if (e.startsWith(SMS_NOT_SENT.notDelivered))
    return "The SMS gateway took the SMS, but the phone's network could not deliver it.";
  if (e === SMS_NOT_SENT.turnedOff)
    return 'Not sent: SMS backup was turned off, or the account suspended, while the SMS waited for the gateway.';
  if (e === SMS_NOT_SENT.tooOld)
    return 'Not sent: the SMS gateway did not take the SMS before the alert was too old; it is never sent late.';
  if (e === SMS_NOT_SENT.accountGone) return 'Not sent: the account was deleted.';
  if (e === SMS_NOT_SENT.stoppedHandingOver)
    return 'Maybe not sent: ringhook stopped while handing the SMS to the gateway, and does not send it again (it may have gone).';
  // The gateway's own words stay in sms_error, for the admin (the dashboard's details, `calls --json`).
  return 'Not sent: the SMS gateway refused it or could not be reached.';
}
