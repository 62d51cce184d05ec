// Keeps the database and the calls in progress in agreement: after a crash (calls left in progress
// are interrupted, never redialed; fresh queued ones are dialed), while running (calls queued by
// another process, queued calls grown too old, calls left in progress with nothing behind them),
// after the events connection came back (calls whose channel vanished meanwhile), and at stop
// (calls still going after the grace period are hung up and end interrupted). Each is a function
// over what it uses of the call desk, which holds the calls (call-desk.ts).
import type { CallStop } from '../core/calls/call-end.js';
import { type CallReason, callReason } from '../core/reasons.js';
import type { CallForDialing } from '../core/records.js';
import type { CallLedger } from './call-ledger.js';
import type { CallQueue } from './call-queue.js';
import type { CallSession, CallSessions } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';
import { hangUp } from './hang-up.js';

/** What recovery uses of the call desk (call-desk.ts). */
export interface RecoveryDesk {
  readonly settings: Pick<DialerSettings, 'store' | 'ari' | 'logger' | 'now'>;
  readonly ledger: Pick<CallLedger, 'end' | 'settle'>;
  readonly sessions: Pick<CallSessions, 'all' | 'has' | 'byChannel' | 'whenEmpty'>;
  readonly queue: Pick<CallQueue, 'ids' | 'has' | 'remove'>;
  /** The alert is between the queue and its call (being claimed). */
  isStarting(callId: string): boolean;
  endIfStale(call: CallForDialing, when: 'at start' | 'waiting'): boolean;
  enqueue(callId: string): void;
  pump(): void;
  end(session: CallSession, stop: CallStop): void;
  /** The call was found answered (call-flow.ts). */
  answered(session: CallSession): void;
}

/** At start: what a previous process left. */
export async function recoverAtStart(desk: RecoveryDesk): Promise<void> {
  const inFlight = await desk.settings.store.progress.inFlight();
  interrupt(
    desk,
    inFlight.filter((c) => c.status !== 'queued'),
    callReason('ringhook_stopped', {}, 'ringhook stopped during the call'),
  );
  for (const call of inFlight)
    if (call.status === 'queued' && !desk.endIfStale(call, 'at start')) desk.enqueue(call.callId);
}

/**
 * Ends calls that were in progress with nothing left behind them (this process's before a crash,
 * or a dead node's): interrupted, never redialed, and the SMS backup applies. A call that carried
 * several alerts ends with them together (one SMS for all).
 */
export function interrupt(desk: RecoveryDesk, calls: readonly CallForDialing[], why: CallReason): void {
  const carried = new Map<string, CallForDialing[]>();
  for (const c of calls) if (c.carriedBy !== null) carried.set(c.carriedBy, [...(carried.get(c.carriedBy) ?? []), c]);
  for (const call of calls) {
    if (call.carriedBy !== null && calls.some((c) => c.callId === call.carriedBy)) continue;
    desk.ledger.end([call, ...(carried.get(call.callId) ?? [])], {
      state: 'interrupted',
      fields: { endedAt: desk.settings.now(), ...why },
      phone: call.phone,
    });
  }
}

/** At stop: calls still going after `graceMs` are hung up; whatever does not end is interrupted. */
export async function endAtStop(desk: RecoveryDesk, graceMs: number): Promise<void> {
  const { sessions, settings } = desk;
  await sessions.whenEmpty(graceMs);
  for (const session of sessions.all()) {
    session.cutBecause = 'ringhook_stopped';
    await hangUp(settings, session.channelId, { why: 'ringhook stopped', callId: session.call.callId });
  }
  await sessions.whenEmpty(2_000);
  // Never redialed; the SMS backup applies.
  for (const session of sessions.all()) desk.end(session, { kind: 'stopped' });
}

/** The calls in flight read and looked at in one turn at most: a quiet-hours batch puts 10,000 in flight at once. */
export const RECONCILE_PAGE = 500;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Regularly: the database's view of the calls in flight, against the desk's. Read a page a turn
 * (10,000 rows read in one turn held the event loop 60 ms and more: #51), each page looked at in the
 * turn it was read, against the desk as it is then.
 */
export async function reconcile(desk: RecoveryDesk): Promise<void> {
  const { writes, progress } = desk.settings.store;
  const seen = new Set<string>();
  for (let after: number | undefined = 0; after !== undefined; ) {
    if (after > 0) await nextTurn();
    // While call steps wait for the database, it may still show a finished call as queued.
    if (writes.waiting > 0) return;
    const page = await progress.inFlightPage(after, RECONCILE_PAGE);
    // Steps written while the store answered may have made the page old already.
    if (writes.waiting > 0) return;
    for (const call of page.calls) {
      seen.add(call.callId);
      reconcileOne(desk, call);
    }
    after = page.next;
  }
  // Waiting calls no longer in flight at all (ended meanwhile: a row is in flight until its end).
  for (const callId of [...desk.queue.ids()]) if (!seen.has(callId)) desk.queue.remove(callId);
  desk.pump();
}

/** One call in flight: queued again when it is not (or ended when too old), swept when nothing is behind it. */
function reconcileOne(desk: RecoveryDesk, call: CallForDialing): void {
  const { queue } = desk;
  if (call.status !== 'queued') {
    if (!desk.sessions.has(call.callId) && !desk.isStarting(call.callId)) sweep(desk, call);
    // Waiting in the queue but no longer queued in the store.
    if (queue.has(call.callId)) queue.remove(call.callId);
    return;
  }
  desk.enqueue(call.callId);
  if (queue.has(call.callId) && desk.endIfStale(call, 'waiting')) queue.remove(call.callId);
}

/** After the events connection came back: events may have been lost meanwhile. */
export async function reconcileAfterReconnect(desk: RecoveryDesk): Promise<void> {
  const { sessions, settings } = desk;
  // Only calls Asterisk took: one held for its speech, or whose originate is still on its way, has no channel yet.
  const ids = sessions
    .all()
    .filter((session) => session.originated)
    .map((session) => session.channelId);
  if (ids.length > 0) {
    let alive: Map<string, string>;
    try {
      alive = await settings.ari.channelsStillUp(ids);
    } catch (error) {
      settings.logger.warn('could not reconcile calls after reconnecting', { error });
      desk.pump();
      return;
    }
    for (const id of ids) {
      const session = sessions.byChannel(id);
      if (!session) continue;
      if (!alive.has(id)) desk.end(session, { kind: 'lost' });
      // Answered while the events were cut off: its StasisStart is lost, and the phone would hear silence.
      else if (alive.get(id) === 'Up' && session.answeredAt === undefined) desk.answered(session);
    }
  }
  desk.pump();
}

/**
 * A call the database shows in progress with no call behind it here: its end was not recorded
 * (a write that failed, a disk that was full). It is ended rather than left in progress.
 */
function sweep(desk: RecoveryDesk, call: CallForDialing): void {
  const { ledger, settings } = desk;
  // Its end was decided and handed on here, and only its record failed: written again, not ended twice.
  if (ledger.settle(call)) return;
  const was = call.status;
  const reason = callReason('end_not_recorded', {}, 'no call in progress for it: its end was not recorded');
  if (ledger.end(call, { state: 'interrupted', fields: { endedAt: settings.now(), ...reason }, phone: call.phone })) {
    settings.logger.warn('a call left in progress in the database was ended', {
      call_id: call.callId,
      status_was: was,
    });
  }
}
