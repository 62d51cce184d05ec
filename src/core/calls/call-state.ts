// The states of a call and the transitions allowed between them. Pure.

export const IN_FLIGHT_STATES = ['queued', 'dialing', 'ringing', 'answered'] as const;
export const UNANSWERED_OUTCOMES = ['busy', 'no_answer', 'unreachable', 'rejected', 'failed'] as const;
/** Answered, but nobody is known to have heard it: a machine took the call, or 1 was never pressed while the account requires it. */
export const UNHEARD_OUTCOMES = ['voicemail', 'unconfirmed'] as const;
export const FINAL_STATES = [
  'completed',
  'acknowledged',
  ...UNHEARD_OUTCOMES,
  ...UNANSWERED_OUTCOMES,
  'interrupted',
  'expired',
  /** Quiet hours in `sms` mode: the SMS went out instead of the call (core/delivery/quiet-delivery). */
  'sms_instead',
] as const;

export type InFlightState = (typeof IN_FLIGHT_STATES)[number];
export type UnansweredOutcome = (typeof UNANSWERED_OUTCOMES)[number];
export type FinalState = (typeof FINAL_STATES)[number];
export type CallState = InFlightState | FinalState;

/** Final states after which the SMS backup is sent (when the account has it on). */
export const SMS_BACKUP_STATES: ReadonlySet<CallState> = new Set([
  ...UNHEARD_OUTCOMES,
  ...UNANSWERED_OUTCOMES,
  'expired',
  'interrupted',
  'sms_instead',
]);

/** A call held for quiet hours: neither in flight nor final, released to queued when they end. */
export const HELD = 'held';

const NEXT: Record<InFlightState, readonly CallState[]> = {
  // queued → a missed outcome: an alert waiting to be rung again ends as its last call did, when a
  // newer alert rings its phone when it comes due (core/calls/ring-again).
  queued: ['dialing', 'expired', 'failed', 'sms_instead', ...UNANSWERED_OUTCOMES, ...UNHEARD_OUTCOMES],
  // dialing → queued when the originate never reached Asterisk (connection refused), or (from
  // any step of a call) when a missed call is rung again later (core/calls/ring-again).
  dialing: ['queued', 'ringing', 'answered', 'interrupted', ...UNANSWERED_OUTCOMES],
  ringing: ['queued', 'answered', 'interrupted', ...UNANSWERED_OUTCOMES],
  answered: ['queued', 'completed', 'acknowledged', ...UNHEARD_OUTCOMES, 'failed', 'interrupted'],
};

export function isFinal(state: string): state is FinalState {
  return (FINAL_STATES as readonly string[]).includes(state);
}

export function isInFlight(state: string): state is InFlightState {
  return (IN_FLIGHT_STATES as readonly string[]).includes(state);
}

export function canTransition(from: string, to: CallState): boolean {
  return isInFlight(from) && NEXT[from].includes(to);
}
