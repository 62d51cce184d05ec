// How each call status is named and coloured in the history, and the filter choices. Pure.
import { IN_FLIGHT_STATES, isInFlight } from '../../core/calls/call-state.js';

export type Tone = 'ok' | 'warn' | 'bad' | 'progress' | 'muted';

interface StatusInfo {
  label: string;
  tone: Tone;
  /** One sentence for the badge's title and screen readers. */
  explain: string;
}

/** A status's name from its key: no_answer is "No answer". */
const named = (status: string): string => {
  const words = status.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** A status's tone and sentence, and its label where its name does not say it. */
const badge = (tone: Tone, explain: string, label?: string) => ({ tone, explain, label });

const BADGES: Record<string, ReturnType<typeof badge>> = {
  queued: badge('progress', 'Accepted; the call is about to be placed.'),
  dialing: badge('progress', 'The call is being placed.'),
  ringing: badge('progress', 'The phone is ringing.'),
  answered: badge('progress', 'Answered; the message is being spoken.'),
  completed: badge('ok', 'Answered and the message was spoken (confirmation not required).'),
  acknowledged: badge('ok', 'Answered, and the listener pressed 1 to confirm.'),
  voicemail: badge('warn', 'A voicemail or answering machine took the call; the message was left on it.'),
  unconfirmed: badge('warn', 'Answered, but 1 was not pressed to confirm.'),
  busy: badge('warn', 'The line was busy.'),
  no_answer: badge('warn', 'The phone rang but nobody answered.'),
  unreachable: badge('warn', 'The phone could not be reached.'),
  rejected: badge('bad', 'The call was declined, by the phone or by the provider: the reason says which.', 'Declined'),
  failed: badge('bad', 'The call could not be placed (telephony unavailable or an internal error).'),
  interrupted: badge('bad', 'The service stopped during the call; it was not dialed again.'),
  held: badge('progress', 'Quiet hours: held, and called when they end (one call for everything held).'),
  sms_instead: badge('ok', 'Quiet hours: the SMS went out instead of the call.', 'SMS instead'),
  expired: badge('bad', 'The call waited too long to be placed and was dropped.'),
  rate_limited: badge('muted', 'Not called: the per-minute limit of the plan was exceeded.'),
  limit_exceeded: badge('muted', 'Not called: the monthly call allowance was used up.'),
  invalid_payload: badge('muted', 'Not called: the alert body was invalid.', 'Rejected payload'),
  suspended: badge('muted', 'Not called: the account was suspended.'),
  duplicate: badge(
    'muted',
    'Not called: the same alert came within the duplicate window, and the first one was called.',
  ),
  source_not_allowed: badge('muted', 'Not called: the alert came from an address the allowed sources do not include.'),
};

export const STATUSES: Record<string, StatusInfo> = Object.fromEntries(
  Object.entries(BADGES).map(([status, { tone, explain, label }]) => [
    status,
    { label: label ?? named(status), tone, explain },
  ]),
);

export function statusInfo(status: string): StatusInfo {
  if (STATUSES[status]) return STATUSES[status];
  const label = named(status);
  return { label, tone: 'muted', explain: `${label}.` };
}

/** What the SMS backup did, as the end of a badge's sentence: only what happened (a server without a gateway sent none). */
const SMS_OUTCOME: Record<string, string> = {
  sending: 'the SMS backup is being sent.',
  waiting: 'the SMS backup waits for the SMS gateway.',
  sent: 'the SMS backup went out.',
  delivered: 'the SMS backup went out and was delivered.',
  failed: 'the SMS backup failed.',
  disabled: 'no SMS was sent.',
};

/** The statuses whose outcome sends the SMS backup: their sentence says what became of it. */
const SMS_AFTER = new Set(['voicemail', 'unconfirmed']);

/** The badge's sentence for a call: its status's, and for a status that sends an SMS, what the SMS did. */
export function statusExplain(status: string, smsStatus: string | null): string {
  const explain = statusInfo(status).explain;
  if (!SMS_AFTER.has(status) || smsStatus === null) return explain;
  const sms = SMS_OUTCOME[smsStatus];
  return sms ? `${explain} Then ${sms}` : explain;
}

/** The history filter: one choice per status, plus every in-progress status together. */
export const FILTERS: ReadonlyArray<{ value: string; label: string; statuses: readonly string[] }> = [
  { value: 'in_progress', label: 'In progress', statuses: IN_FLIGHT_STATES },
  ...Object.entries(STATUSES)
    .filter(([status]) => !isInFlight(status))
    .map(([status, info]) => ({ value: status, label: info.label, statuses: [status] })),
];

export function filterStatuses(filter: string | undefined): readonly string[] {
  return FILTERS.find((f) => f.value === filter)?.statuses ?? [];
}
