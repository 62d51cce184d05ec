// Keeps the database and the calls in progress in agreement: after a crash (calls left in progress
// are interrupted, never redialed; fresh queued ones are dialed), while running (calls queued by
// another process, queued calls grown too old, calls left in progress with nothing behind them),
// after the events connection came back (calls whose channel vanished meanwhile), and at stop
// (calls still going after the grace period are hung up and end interrupted). Each is a function
// over views of the desk's calls that returns what it found; the desk applies it (call-desk.ts).
import { type CallReason, callReason } from '../core/reasons.js';
import type { CallForDialing } from '../core/records.js';
import type { CallFlow } from './call-flow.js';
import type { CallLedger } from './call-ledger.js';
import type { CallQueue } from './call-queue.js';
import type { CallSession, CallSessions } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';
import { hangUp } from './hang-up.js';
import { nextTurn } from '../lib/sleep.js';

/**
 * What recovery is given: views of the desk's calls, never the desk. What it finds that changes
 * the desk's calls (alerts to queue, calls lost, calls to end) it returns, and the desk applies it.
 */
export interface RecoveryDeps {
  readonly settings: Pick<DialerSettings, 'store' | 'ari' | 'logger' | 'now'>;
  readonly ledger: Pick<CallLedger, 'end' | 'settle' | 'endIfStale'>;
  readonly sessions: Pick<CallSessions, 'all' | 'has' | 'byChannel' | 'whenEmpty'>;
  readonly queue: Pick<CallQueue, 'ids' | 'has'>;
  readonly flow: Pick<CallFlow, 'cutAtStop'>;
  /** The alert is between the queue and its call (being claimed). */
  isStarting(callId: string): boolean;
}

/** At start: what a previous process left. Returns the alerts to queue (fresh, queued ones). */
export async function recoverAtStart(deps: RecoveryDeps): Promise<string[]> {
  const inFlight = await deps.settings.store.progress.inFlight();
  interrupt(
    deps,
    inFlight.filter((c) => c.status !== 'queued'),
    callReason('ringhook_stopped', {}, 'ringhook stopped during the call'),
  );
  return inFlight
    .filter((call) => call.status === 'queued' && !deps.ledger.endIfStale(call, 'at start'))
    .map((call) => call.callId);
}

/**
 * Ends calls that were in progress with nothing left behind them (this process's before a crash,
 * or a dead node's): interrupted, never redialed, and the SMS backup applies. A call that carried
 * several alerts ends with them together (one SMS for all).
 */
export function interrupt(
  deps: Pick<RecoveryDeps, 'ledger' | 'settings'>,
  calls: readonly CallForDialing[],
  why: CallReason,
): void {
  const carried = new Map<string, CallForDialing[]>();
  for (const c of calls) if (c.carriedBy !== null) carried.set(c.carriedBy, [...(carried.get(c.carriedBy) ?? []), c]);
  for (const call of calls) {
    if (call.carriedBy !== null && calls.some((c) => c.callId === call.carriedBy)) continue;
    deps.ledger.end([call, ...(carried.get(call.callId) ?? [])], {
      state: 'interrupted',
      fields: { endedAt: deps.settings.now(), ...why },
      phone: call.phone,
    });
  }
}

/**
 * At stop: calls still going after `graceMs` are hung up. Returns those that did not end even so:
 * the desk ends them `stopped` (interrupted, never redialed; the SMS backup applies).
 */
export async function hangUpAtStop(deps: RecoveryDeps, graceMs: number): Promise<CallSession[]> {
  const { sessions, settings } = deps;
  await sessions.whenEmpty(graceMs);
  for (const session of sessions.all()) {
    deps.flow.cutAtStop(session);
    await hangUp(settings, session.channelId, { why: 'ringhook stopped', callId: session.call.callId });
  }
  await sessions.whenEmpty(2_000);
  return sessions.all();
}

/** The calls in flight read and looked at in one turn at most: a quiet-hours batch puts 10,000 in flight at once. */
export const RECONCILE_PAGE = 500;

/** What one page of the store's calls in flight came to, for the desk to apply in the turn it was read. */
export interface PageFindings {
  /** Queued in the store: queued here too (or ended, too old to place: CallLedger.endIfStale). */
  queued: CallForDialing[];
  /** Waiting in the queue here, but no longer queued in the store. */
  notQueued: string[];
}

/**
 * Regularly: the database's view of the calls in flight, against the desk's. Read a page a turn
 * (10,000 rows read in one turn held the event loop 60 ms and more: #51), each page's findings
 * yielded in the turn it was read, for the desk to apply as it is then. Returns the alerts waiting
 * here that are no longer in flight at all (ended meanwhile: a row is in flight until its end), or
 * undefined when the look was cut short: while call steps wait for the database, it may still show
 * a finished call as queued.
 */
export async function* reconcilePages(deps: RecoveryDeps): AsyncGenerator<PageFindings, string[] | undefined> {
  const { writes, progress } = deps.settings.store;
  const seen = new Set<string>();
  for (let after: number | undefined = 0; after !== undefined; ) {
    if (after > 0) await nextTurn();
    if (writes.waiting > 0) return undefined;
    const page = await progress.inFlightPage(after, RECONCILE_PAGE);
    // Steps written while the store answered may have made the page old already.
    if (writes.waiting > 0) return undefined;
    const findings: PageFindings = { queued: [], notQueued: [] };
    for (const call of page.calls) {
      seen.add(call.callId);
      if (call.status === 'queued') {
        findings.queued.push(call);
        continue;
      }
      if (!deps.sessions.has(call.callId) && !deps.isStarting(call.callId)) sweep(deps, call);
      if (deps.queue.has(call.callId)) findings.notQueued.push(call.callId);
    }
    yield findings;
    after = page.next;
  }
  return deps.queue.ids().filter((callId) => !seen.has(callId));
}

/** A call found after the events connection came back: its channel gone, or answered while the events were cut off. */
export interface ReconnectFinding {
  session: CallSession;
  found: 'lost' | 'answered';
}

/** After the events connection came back: events may have been lost meanwhile. Returns what the desk applies. */
export async function reconcileAfterReconnect(deps: RecoveryDeps): Promise<ReconnectFinding[]> {
  const { sessions, settings } = deps;
  // Only calls Asterisk took: one held for its speech, or whose originate is still on its way, has no channel yet.
  const ids = sessions
    .all()
    .filter((session) => session.placement.originated)
    .map((session) => session.channelId);
  if (ids.length === 0) return [];
  let alive: Map<string, string>;
  try {
    alive = await settings.ari.channelsStillUp(ids);
  } catch (error) {
    settings.logger.warn('could not reconcile calls after reconnecting', { error });
    return [];
  }
  const found: ReconnectFinding[] = [];
  for (const id of ids) {
    const session = sessions.byChannel(id);
    if (!session) continue;
    if (!alive.has(id)) found.push({ session, found: 'lost' });
    // Answered while the events were cut off: its StasisStart is lost, and the phone would hear silence.
    else if (alive.get(id) === 'Up' && session.line.answeredAt === undefined)
      found.push({ session, found: 'answered' });
  }
  return found;
}

/**
 * A call the database shows in progress with no call behind it here: its end was not recorded
 * (a write that failed, a disk that was full). It is ended rather than left in progress.
 */
function sweep(deps: Pick<RecoveryDeps, 'ledger' | 'settings'>, call: CallForDialing): void {
  const { ledger, settings } = deps;
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
