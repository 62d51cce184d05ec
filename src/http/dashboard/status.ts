// How each call status is named and coloured in the history, and the filter choices. Pure.
import { IN_FLIGHT_STATES, isInFlight } from '../../core/call-state.js';

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
    explain: 'A voicemail or answering machine took the call; the message was left on it and the SMS backup went out.',
  },
  unconfirmed: {
    label: 'Unconfirmed',
    tone: 'warn',
    explain: 'Answered, but 1 was not pressed to confirm; the SMS backup went out.',
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
    label: 'Rate-limited',
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
};

export function statusInfo(status: string): StatusInfo {
  return STATUSES[status] ?? { label: status.replace(/_/g, ' '), tone: 'muted', explain: `Status ${status}.` };
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
