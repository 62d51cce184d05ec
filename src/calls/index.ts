// Call control as the rest of ringhook sees it: the Dialer, what it is given, and what it tells
// (every call's end, for the SMS backup and the metrics). The claim, placement, the script, the
// session and the desk behind it are this folder's own.
import { CallFlow } from './call-flow.js';

export type { FinalCall } from './final-call.js';
export { Dialer } from './dialer.js';
export type { DialerOptions, DialerStore } from './dialer-options.js';
export type { JustQueued } from './waiting-alerts.js';

/** The ARI events call control reads: Asterisk is asked to send no other (AriClientOptions.events). */
export const CALL_EVENTS = CallFlow.EVENTS;
