// How each call status is named and coloured in the history, and the filter choices. Pure.
import { IN_FLIGHT_STATES, isInFlight } from '../../core/calls/call-state.js';

export type Tone = 'ok' | 'warn' | 'bad' | 'progress' | 'muted';

interface StatusInfo {
  label: string;
  tone: Tone;
  /** One sentence for the badge's title and screen readers. */
  explain: string;
}

export const STATUSES: Record<string, StatusInfo> = {
  queued: { label: 'Queued', tone: 'progress', explain: 'Accepted; the call is about to be placed.' },
  dialing: { label: 'Dialing', tone: 'progress', explain: 'The call is being placed.' },
  ringing: { label: 'Ringing', tone: 'progress', explain: 'The phone is ringing.' },
  answered: { label: 'Answered', tone: 'progress', explain: 'Answered; the message is being spoken.' },
  completed: {
    label: 'Completed',
    tone: 'ok',
    explain: 'Answered and the message was spoken (confirmation not required).',
  },
  acknowledged: { label: 'Acknowledged', tone: 'ok', explain: 'Answered, and the listener pressed 1 to confirm.' },
  voicemail: {
    label: 'Voicemail',
    tone: 'warn',
    explain: 'A voicemail or answering machine took the call; the message was left on it.',
  },
  unconfirmed: {
    label: 'Unconfirmed',
    tone: 'warn',
    explain: 'Answered, but 1 was not pressed to confirm.',
  },
  busy: { label: 'Busy', tone: 'warn', explain: 'The line was busy.' },
  no_answer: { label: 'No answer', tone: 'warn', explain: 'The phone rang but nobody answered.' },
  unreachable: { label: 'Unreachable', tone: 'warn', explain: 'The phone could not be reached.' },
  rejected: {
    label: 'Declined',
    tone: 'bad',
    explain: 'The call was declined, by the phone or by the provider: the reason says which.',
  },
  failed: {
    label: 'Failed',
    tone: 'bad',
    explain: 'The call could not be placed (telephony unavailable or an internal error).',
  },
  interrupted: {
    label: 'Interrupted',
    tone: 'bad',
    explain: 'The service stopped during the call; it was not dialed again.',
  },
  held: {
    label: 'Held',
    tone: 'progress',
    explain: 'Quiet hours: held, and called when they end (one call for everything held).',
  },
  sms_instead: {
    label: 'SMS instead',
    tone: 'ok',
    explain: 'Quiet hours: the SMS went out instead of the call.',
  },
  expired: { label: 'Expired', tone: 'bad', explain: 'The call waited too long to be placed and was dropped.' },
  rate_limited: {
    label: 'Rate limited',
    tone: 'muted',
    explain: 'Not called: the per-minute limit of the plan was exceeded.',
  },
  limit_exceeded: {
    label: 'Limit exceeded',
    tone: 'muted',
    explain: 'Not called: the monthly call allowance was used up.',
  },
  invalid_payload: { label: 'Rejected payload', tone: 'muted', explain: 'Not called: the alert body was invalid.' },
  suspended: { label: 'Suspended', tone: 'muted', explain: 'Not called: the account was suspended.' },
  duplicate: {
    label: 'Duplicate',
    tone: 'muted',
    explain: 'Not called: the same alert came within the duplicate window, and the first one was called.',
  },
  source_not_allowed: {
    label: 'Source not allowed',
    tone: 'muted',
    explain: 'Not called: the alert came from an address the allowed sources do not include.',
  },
};

export function statusInfo(status: string): StatusInfo {
  if (STATUSES[status]) return STATUSES[status];
  const words = status.replace(/_/g, ' ');
  const label = words.charAt(0).toUpperCase() + words.slice(1);
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
