// Places a call through Asterisk and says what a refusal means: the call's outcome (one attempt
// only), or nothing dialed at all (Asterisk down or stopping), when the alerts wait in the queue
// for it. (A call the first trunk did not take goes out once more through the backup trunk: that is
// a new placement the call desk makes at the first one's end, decided in core/calls/backup-trunk.)
import type { CallStop } from '../core/calls/call-end.js';
import { TALK } from '../core/calls/talk-verdict.js';
import { AriError } from '../pbx/index.js';
import type { AriCallControl } from '../pbx/index.js';
import type { CallLedger } from './call-ledger.js';
import { alertsOf, type CallSession, type CallSessions, type PlacementRecord } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';
import type { Endpoint } from '../pbx/index.js';
import { hangUp } from './hang-up.js';
import { judgeRefusal } from './originate-refusal.js';

/**
 * Answering-machine detection listens from the channel's start: set with the originate, not over
 * ARI at the answer, since a channel's ARI commands wait while it plays (Asterisk 22 runs them on
 * the channel's own thread), and the message starts at the answer.
 */
export const TALK_DETECT_ON = { 'TALK_DETECT(set)': `${TALK.silenceMs},${TALK.energy}` };

export type Placement = { placed: true } | { placed: false; outcome: CallStop } | { placed: false; waitFor: string };

export interface PlacementOptions {
  callerId?: string | undefined;
  ringTimeoutSec: number;
  /** Asterisk hangs the call up after this many seconds, ring included, whatever serve does. */
  maxCallSec: number;
  /** The channel listens for the phone's talk from its start (answering-machine detection). */
  detectMachine?: boolean;
}

/** One call to place: its session, where it goes, and how. */
export interface PlacementOrder extends PlacementOptions {
  session: CallSession;
  endpoint: Endpoint;
}

export async function placeCall(
  ari: Pick<AriCallControl, 'originate' | 'getEndpoint'>,
  { session, endpoint, ...options }: PlacementOrder,
): Promise<Placement> {
  try {
    await ari.originate({
      channelId: session.channelId,
      endpoint: endpoint.dial,
      appArgs: [session.call.callId],
      ...(options.callerId && { callerId: options.callerId }),
      timeoutSec: options.ringTimeoutSec,
      variables: { 'TIMEOUT(absolute)': String(options.maxCallSec), ...(options.detectMachine && TALK_DETECT_ON) },
    });
    return { placed: true };
  } catch (error) {
    const message = (error as Error).message;
    const refusal = await judgeRefusal(error, endpoint, ari);
    if (!('endpointOffline' in refusal)) return { placed: false, waitFor: `${refusal.waitFor}: ${message}` };
    const refusedByAsterisk = error instanceof AriError && error.kind === 'http';
    return {
      placed: false,
      outcome: { kind: 'originate-failed', refusedByAsterisk, endpointOffline: refusal.endpointOffline, message },
    };
  }
}

/** What placement is given. */
export type PlacementSettings = Pick<
  DialerSettings,
  'ari' | 'logger' | 'callerId' | 'ringTimeoutSec' | 'maxCallSec' | 'detectMachine'
>;

/**
 * Places the call and returns Asterisk's answer for the desk to apply (call-desk.ts): placed, its
 * one attempt's outcome, or nothing dialed (its alerts wait again). The only writer of the call's
 * placement record (session.placement).
 */
export async function place(settings: PlacementSettings, session: CallSession, endpoint: Endpoint): Promise<Placement> {
  // A call to the local softphone is told apart in its reasons (no phone registered, not a trunk refusing).
  const record = session.placement as PlacementRecord;
  if (endpoint.trunk === undefined) record.softphone = endpoint.resource;
  else record.trunk = endpoint.trunk;
  const placement = await placeCall(settings.ari, { ...settings, session, endpoint });
  if (placement.placed) record.originated = true;
  // No answer to the originate (a timeout, a connection cut): Asterisk may have made the channel
  // all the same, and its phone may ring. It is hung up, so that nobody answers a call ringhook no
  // longer follows (one that starts later is hung up at its StasisStart: call-flow.ts).
  else if (
    'outcome' in placement &&
    placement.outcome.kind === 'originate-failed' &&
    !placement.outcome.refusedByAsterisk
  )
    void hangUp(settings, session.channelId, { why: 'its originate went unanswered', callId: session.call.callId });
  return placement;
}

/** A call not dialed after all (the desk's own, handed its parts): its alerts are `queued` again (with why); returns the ids of those that are. */
export function putBack(
  desk: { sessions: Pick<CallSessions, 'remove'>; ledger: Pick<CallLedger, 'transition'> },
  session: CallSession,
  why: string,
): string[] {
  desk.sessions.remove(session);
  return alertsOf(session)
    .filter((alert) => desk.ledger.transition(alert, 'queued', { detail: why }))
    .map((alert) => alert.callId);
}
