// Places a call through Asterisk and says what a refusal means: the call's outcome (one attempt
// only), or nothing dialed at all (Asterisk down or stopping), when the alerts wait in the queue
// for it. A call the first trunk did not take, and that never rang, goes out once more through the
// backup trunk.
import { goesToBackupTrunk } from '../core/backup-trunk.js';
import { describeStop, type CallStop } from '../core/call-end.js';
import { AriError, type AriCallControl } from '../pbx/ari.js';
import type { CallLedger } from './call-ledger.js';
import type { CallQueue } from './call-queue.js';
import { alertsOf, arm, newSession, type CallSession, type CallSessions } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';
import type { Endpoint } from '../pbx/endpoint.js';
import { TALK_DETECT_ON } from './machine-detection.js';
import { judgeRefusal } from './originate-refusal.js';

export type Placement = { placed: true } | { placed: false; outcome: CallStop } | { placed: false; waitFor: string };

export interface PlacementOptions {
  callerId?: string | undefined;
  ringTimeoutSec: number;
  /** Asterisk hangs the call up after this many seconds, ring included, whatever serve does. */
  maxCallSec: number;
  /** The channel listens for the phone's talk from its start (answering-machine detection). */
  detectMachine?: boolean;
}

export async function placeCall(
  ari: Pick<AriCallControl, 'originate' | 'getEndpoint'>,
  session: CallSession,
  endpoint: Endpoint,
  options: PlacementOptions,
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
    return { placed: false, outcome: { kind: 'originate-failed', refusedByAsterisk, endpointOffline: refusal.endpointOffline, message } };
  }
}

export interface CallPlacementDeps {
  ari: Pick<AriCallControl, 'originate' | 'getEndpoint' | 'hangup'>;
  settings: Pick<DialerSettings, 'callerId' | 'ringTimeoutSec' | 'maxCallSec' | 'backupEndpointFor' | 'now'>;
  sessions: CallSessions;
  ledger: CallLedger;
  queue: CallQueue;
  enqueue: (callId: string) => void;
  giveUp: (session: CallSession, why: string) => void;
  end: (session: CallSession, stop: CallStop) => void;
  /** ringhook is stopping: no call goes out again through the backup trunk. */
  stopping: () => boolean;
}

export class CallPlacement {
  constructor(private readonly deps: CallPlacementDeps) {}

  async place(session: CallSession, endpoint: Endpoint): Promise<void> {
    const { settings, queue } = this.deps;
    const alerts = alertsOf(session);
    // A call to the local softphone is told apart in its reasons (no phone registered, not a trunk refusing).
    if (endpoint.trunk === undefined) session.softphone = endpoint.resource;
    arm(session, (settings.ringTimeoutSec + 15) * 1000, () => this.deps.giveUp(session, 'no final event from Asterisk after the ring timeout'));
    const placement = await placeCall(this.deps.ari, session, endpoint, settings);
    if (placement.placed) {
      session.originated = true;
      for (const alert of alerts) queue.taken(alert.callId);
    } else if ('outcome' in placement) {
      // No answer to the originate (a timeout, a connection cut): Asterisk may have made the
      // channel all the same, and its phone may ring. It is hung up, so that nobody answers a call
      // ringhook no longer follows (one that starts later is hung up at its StasisStart: dialer.ts).
      if (placement.outcome.kind === 'originate-failed' && !placement.outcome.refusedByAsterisk) void this.deps.ari.hangup(session.channelId).catch(() => {});
      this.deps.end(session, placement.outcome);
    } else {
      // Asterisk is down or stopping (a restart not yet seen on the events socket, or a graceful
      // restart waiting for calls to end): nothing was dialed, so the alerts go back to the queue
      // and wait for Asterisk, within the freshness window.
      for (const callId of this.putBack(session, placement.waitFor)) queue.holdBack(callId, (id) => this.deps.enqueue(id));
    }
  }

  /** A call not dialed after all: its alerts are `queued` again (with why); returns the ids of those that are. */
  putBack(session: CallSession, why: string): string[] {
    this.deps.sessions.remove(session);
    return alertsOf(session)
      .filter((alert) => this.deps.ledger.transition(alert, 'queued', {}, why))
      .map((alert) => alert.callId);
  }

  /** At the call's end: true when it goes out once more, through the backup trunk, instead of ending. */
  placedAgain(previous: CallSession, stop: CallStop): boolean {
    const { settings, sessions, ledger } = this.deps;
    const backup = previous.onBackupTrunk || this.deps.stopping() ? undefined : settings.backupEndpointFor?.(previous.phone);
    if (!backup || !goesToBackupTrunk(previous, stop)) return false;
    sessions.remove(previous);
    const session = newSession(alertsOf(previous), previous.phone, previous.requireConfirm ?? false, settings.now(), '-b', previous.speech);
    session.onBackupTrunk = true;
    if (previous.messageMedia) session.messageMedia = previous.messageMedia;
    sessions.add(session);
    const { channelId, dialedAt } = session;
    const trunk = backup.trunk ?? backup.resource;
    ledger.placedAgain(
      alertsOf(session),
      { trunk, channelId, dialedAt },
      `the first trunk did not take the call (${describeStop(stop)}): placed through ${trunk}`,
    );
    void this.place(session, backup);
    return true;
  }
}
