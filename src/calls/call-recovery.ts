// Keeps the database and the calls in progress in agreement: after a crash (calls left in progress
// are interrupted, never redialed; fresh queued ones are dialed), while running (calls queued by
// another process, queued calls grown too old, calls left in progress with nothing behind them),
// after the events connection came back (calls whose channel vanished meanwhile), and at stop
// (calls still going after the grace period are hung up and end interrupted).
import type { CallStop } from '../core/call-end.js';
import { queuedFate } from '../core/call-end.js';
import { type CallReason, callReason } from '../core/reasons.js';
import type { CallForDialing } from '../core/records.js';
import type { CallProgressRepo, CallWrites } from '../store/contract.js';
import type { Logger } from '../lib/log.js';
import type { AriClient } from '../pbx/ari.js';
import type { CallLedger } from './call-ledger.js';
import type { CallQueue } from './call-queue.js';
import type { CallSession, CallSessions } from './call-session.js';

/** What recovery needs of the dialer. */
export interface DialerView {
  enqueue(callId: string): void;
  /** The alert is between the queue and its call (loaded, being claimed). */
  isStarting(callId: string): boolean;
  end(session: CallSession, stop: CallStop): void;
  /** The call was answered: what its StasisStart does. */
  answered(session: CallSession): void;
  pump(): void;
}

export interface CallRecoveryDeps {
  progress: CallProgressRepo;
  writes: CallWrites;
  ari: Pick<AriClient, 'channelsStillUp' | 'hangup'>;
  ledger: CallLedger;
  queue: CallQueue;
  sessions: CallSessions;
  logger: Logger;
  now: () => number;
  freshnessMs: number;
}

export class CallRecovery {
  constructor(
    private readonly deps: CallRecoveryDeps,
    private readonly dialer: DialerView,
  ) {}

  /** At start: what a previous process left. */
  async atStart(): Promise<void> {
    const inFlight = await this.deps.progress.inFlight();
    this.interrupt(
      inFlight.filter((c) => c.status !== 'queued'),
      callReason('ringhook_stopped', {}, 'ringhook stopped during the call'),
    );
    for (const call of inFlight) if (call.status === 'queued' && !this.endedStale(call, 'at start')) this.dialer.enqueue(call.callId);
  }

  /** Ends a queued alert too old to place (expired at a start, failed while waiting: the SMS backup applies); false when it is fresh. */
  endedStale(call: CallForDialing, when: 'at start' | 'waiting'): boolean {
    const { ledger, now, freshnessMs } = this.deps;
    const fate = queuedFate(call.receivedAt, now(), freshnessMs, when);
    if (!fate.dial)
      ledger.end(call, fate.state, { endedAt: now(), error: fate.error, ...(fate.reasonDetail && { reasonDetail: fate.reasonDetail }) }, undefined, null);
    return !fate.dial;
  }

  /**
   * Ends calls that were in progress with nothing left behind them (this process's before a crash,
   * or a dead node's): interrupted, never redialed, and the SMS backup applies. A call that carried
   * several alerts ends with them together (one SMS for all).
   */
  interrupt(calls: readonly CallForDialing[], why: CallReason): void {
    const { ledger, now } = this.deps;
    const carried = new Map<string, CallForDialing[]>();
    for (const c of calls) if (c.carriedBy !== null) carried.set(c.carriedBy, [...(carried.get(c.carriedBy) ?? []), c]);
    for (const call of calls) {
      if (call.carriedBy !== null && calls.some((c) => c.callId === call.carriedBy)) continue;
      ledger.end([call, ...(carried.get(call.callId) ?? [])], 'interrupted', { endedAt: now(), ...why }, undefined, call.phone);
    }
  }

  /** At stop: calls still going after `graceMs` are hung up; whatever does not end is interrupted. */
  async atStop(graceMs: number): Promise<void> {
    const { sessions, ari } = this.deps;
    await sessions.whenEmpty(graceMs);
    for (const session of sessions.all()) {
      session.cutBecause = 'ringhook_stopped';
      await ari.hangup(session.channelId).catch(() => {});
    }
    await sessions.whenEmpty(2_000);
    // Never redialed; the SMS backup applies.
    for (const session of sessions.all()) this.dialer.end(session, { kind: 'stopped' });
  }

  /** Regularly: the database's view of the calls in flight, against the dialer's. */
  async tick(): Promise<void> {
    // While call steps wait for the database, it may still show a finished call as queued.
    if (this.deps.writes.waiting > 0) return;
    const inFlight = new Map((await this.deps.progress.inFlight()).map((call) => [call.callId, call]));
    // Steps written while the store answered may have made the list old already.
    if (this.deps.writes.waiting > 0) return;
    for (const call of inFlight.values()) {
      if (call.status === 'queued') this.dialer.enqueue(call.callId);
      else if (!this.deps.sessions.has(call.callId) && !this.dialer.isStarting(call.callId)) this.sweep(call);
    }
    this.expireStale(inFlight);
    this.dialer.pump();
  }

  /** After the events connection came back: events may have been lost meanwhile. */
  async afterReconnect(): Promise<void> {
    // Only calls Asterisk took: one held for its speech, or whose originate is still on its way, has no channel yet.
    const ids = this.deps.sessions
      .all()
      .filter((session) => session.originated)
      .map((session) => session.channelId);
    if (ids.length > 0) {
      let alive: Map<string, string>;
      try {
        alive = await this.deps.ari.channelsStillUp(ids);
      } catch (error) {
        this.deps.logger.warn('could not reconcile calls after reconnecting', { error });
        this.dialer.pump();
        return;
      }
      for (const id of ids) {
        const session = this.deps.sessions.byChannel(id);
        if (!session) continue;
        if (!alive.has(id)) this.dialer.end(session, { kind: 'lost' });
        // Answered while the events were cut off: its StasisStart is lost, and the phone would hear silence.
        else if (alive.get(id) === 'Up' && session.answeredAt === undefined) this.dialer.answered(session);
      }
    }
    this.dialer.pump();
  }

  /**
   * A call the database shows in progress with no call behind it here: its end was not recorded
   * (a write that failed, a disk that was full). It is ended rather than left in progress.
   */
  private sweep(call: CallForDialing): void {
    // Its end was decided and handed on here, and only its record failed: written again, not ended twice.
    if (this.deps.ledger.settle(call)) return;
    const was = call.status;
    if (
      this.deps.ledger.end(
        call,
        'interrupted',
        { endedAt: this.deps.now(), ...callReason('end_not_recorded', {}, 'no call in progress for it: its end was not recorded') },
        undefined,
        call.phone,
      )
    ) {
      this.deps.logger.warn('a call left in progress in the database was ended', { call_id: call.callId, status_was: was });
    }
  }

  /** Drops waiting calls that are no longer queued; ends those too old to place. */
  private expireStale(inFlight: ReadonlyMap<string, CallForDialing>): void {
    const { queue } = this.deps;
    for (const callId of [...queue.ids()]) {
      const call = inFlight.get(callId);
      if (call?.status !== 'queued') {
        queue.remove(callId);
        continue;
      }
      if (this.endedStale(call, 'waiting')) queue.remove(callId);
    }
  }
}
