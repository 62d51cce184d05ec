// What happens to a call after it was accepted: state transitions with their times, the
// timeline (call_events). The SMS backup's columns are sms.ts's.
import { canTransition, IN_FLIGHT_STATES, isFinal, type CallState } from '../../core/calls/call-state.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from './connect.js';
import { SqliteRepo } from './repo.js';
import type { CallEventRow, CallForDialing, CallStepped, CallStepWrite, TransitionFields } from '../../core/records.js';
import { ALLOWANCE_RETURNED, COLUMN, columnEntries } from '../rows.js';
import * as outbox from '../outbox.js';
import { positional, prepared, valuesOf } from './named.js';
import { PROGRESS_SQL } from '../sql/calls.js';
import { monthWindow } from '../../core/webhook/limits.js';
import { decisionRefusedText, decisionText } from '../../core/calls/decision-keys.js';
import { type CallProgressRepo, type InFlightPage, pageOf } from '../contract/index.js';

/** The call as the desk holds it, with its account's flags (written once: outbox.ts). */
export const SELECT_CALL = outbox.selectCall('json_object');

const SQL = {
  ...PROGRESS_SQL,
  get: `${SELECT_CALL} WHERE call_id = ? AND accepted = 1`,
  inFlight: `${SELECT_CALL} WHERE status IN (${IN_FLIGHT_STATES.map((s) => `'${s}'`).join(', ')}) AND accepted = 1 ORDER BY id`,
  inFlightPage: `${SELECT_CALL.replace('SELECT ', 'SELECT id AS "pageId", ')} WHERE status IN (${IN_FLIGHT_STATES.map((s) => `'${s}'`).join(', ')}) AND accepted = 1 AND id > ? ORDER BY id LIMIT ?`,
  detection: 'UPDATE calls SET amd_status = ?, amd_cause = ?, updated_at = ? WHERE call_id = ?',
  placedAgain:
    "UPDATE calls SET trunk = ?, channel_id = ?, dialed_at = ?, updated_at = ? WHERE call_id = ? AND status = 'dialing'",
} as const;

/**
 * Writes the deliveries a change of a call makes to the outbox, inside the caller's transaction (#55):
 * nothing is read when the account is known to have no callback URL. Returns how many were added.
 */
export function outboxInTransaction(
  db: Db,
  callId: string,
  change: outbox.ReportedChange,
  callbacks: outbox.CallbacksFlag,
  now: number,
): number {
  if (callbacks === false || outbox.reportsNothing(change)) return 0;
  const statement = (sql: string) => prepared(db, sql);
  const row = statement(outbox.OUTBOX_SQL.call).get(valuesOf([callId])) as outbox.CallWithCallback | undefined;
  let added = 0;
  for (const delivery of outbox.deliveriesFor(change, row, now))
    added += statement(outbox.OUTBOX_SQL.enqueue).run(valuesOf(outbox.enqueueValues(delivery))).changes;
  return added;
}

export class SqliteCallProgressStore extends SqliteRepo implements CallProgressRepo {
  private readonly stmt = {
    get: this.db.prepare<[string], CallForDialing>(SQL.get),
    inFlight: this.db.prepare<[], CallForDialing>(SQL.inFlight),
    inFlightPage: this.db.prepare<[number, number], CallForDialing & { pageId: number }>(SQL.inFlightPage),
    event: positional(this.db, SQL.event),
    giveBack: positional(this.db, SQL.giveBack),
    events: positional<CallEventRow>(this.db, SQL.events),
    detection: this.db.prepare(SQL.detection),
    decide: positional(this.db, SQL.decide),
    refuseDecision: positional(this.db, SQL.refuseDecision),
    placedAgain: this.db.prepare(SQL.placedAgain),
  };
  /** The UPDATE of each combination of columns a transition sets, prepared once. */
  private readonly updates = new Map<string, Statement>();

  get(callId: string): CallForDialing | undefined {
    const row = this.stmt.get.get(callId);
    return row && outbox.withAccountFlags(row);
  }

  /** Calls that are not final yet, oldest first. */
  inFlight(): CallForDialing[] {
    return this.stmt.inFlight.all().map(outbox.withAccountFlags);
  }

  inFlightPage(after: number, limit: number): InFlightPage {
    return pageOf(this.stmt.inFlightPage.all(after, limit).map(outbox.withAccountFlags), limit);
  }

  /**
   * Moves a call to `to` if that is a legal step from its current state, with the given columns,
   * and writes the step to its timeline. Returns false (and changes nothing) otherwise.
   */
  transition(callId: string, to: CallState, fields: TransitionFields = {}, detail?: string): boolean {
    return this.step({ callId, to, fields, detail, callbacks: false }).moved;
  }

  /** A step and its status-callback events in one transaction (#55). */
  step({ callId, to, fields = {}, detail, callbacks, decision }: CallStepWrite): CallStepped {
    return this.db
      .transaction((): CallStepped => {
        const current = this.stmt.get.get(callId);
        if (!current || !canTransition(current.status, to)) return { moved: false, outboxed: 0 };
        const entries = columnEntries(fields);
        const sets = ['status = @status', 'updated_at = @now', ...entries.map(([k]) => `${COLUMN[k]} = @${k}`)];
        const at = this.now();
        this.update(sets.join(', ')).run({ ...Object.fromEntries(entries), status: to, now: at, callId });
        this.stmt.event.run(callId, at, to, detail ?? fields.error ?? null);
        // A call that never left this server does not spend the alert's monthly allowance.
        if (fields.returnsAllowance && current.kind === 'alert' && isFinal(to)) {
          this.stmt.giveBack.run(current.userId, monthWindow(current.receivedAt).key);
          this.stmt.event.run(callId, at, 'allowance', ALLOWANCE_RETURNED);
        }
        // The decision's event is made from the row as it leaves this transaction: looked for even if the call was read without a callback URL.
        if (decision && this.stmt.decide.run(callId, decision.key, decision.label, at).changes === 1)
          this.stmt.event.run(callId, at, 'decision', decisionText(decision));
        const looked = decision && callbacks === false ? undefined : callbacks;
        return { moved: true, outboxed: outboxInTransaction(this.db, callId, to, looked, at) };
      })
      .immediate();
  }

  /** A decision refused (#56: the PIN wrong each time): kept on the call and its timeline, if it has no decision yet. Nothing is sent. */
  refuseDecision(callId: string, reason: string): boolean {
    return this.db
      .transaction(() => {
        const at = this.now();
        if (this.stmt.refuseDecision.run(callId, reason, at).changes !== 1) return false;
        this.stmt.event.run(callId, at, 'decision', decisionRefusedText(reason));
        return true;
      })
      .immediate();
  }

  private update(sets: string): Statement {
    let stmt = this.updates.get(sets);
    if (!stmt) {
      stmt = this.db.prepare(`UPDATE calls SET ${sets} WHERE call_id = @callId`);
      this.updates.set(sets, stmt);
    }
    return stmt;
  }

  /** Answering-machine detection's verdict (HUMAN, MACHINE, NOTSURE) and cause, kept on the call and its timeline. */
  recordDetection(callId: string, status: string, cause: string): void {
    this.db
      .transaction(() => {
        const at = this.now();
        this.stmt.detection.run(status, cause, at, callId);
        this.stmt.event.run(callId, at, 'amd', `${status} ${cause}`.trim());
      })
      .immediate();
  }

  /** The call goes out again through another trunk (the first did not take it): still dialing. */
  placedAgain(callId: string, placement: { trunk: string; channelId: string; dialedAt: number }, detail: string): void {
    this.db
      .transaction(() => {
        const at = this.now();
        if (
          this.stmt.placedAgain.run(placement.trunk, placement.channelId, placement.dialedAt, at, callId).changes === 1
        )
          this.stmt.event.run(callId, at, 'trunk', detail);
      })
      .immediate();
  }

  /** A note on the timeline that is not a state change (a digit pressed, a playback). */
  note(callId: string, event: string, detail?: string): void {
    this.stmt.event.run(callId, this.now(), event, detail ?? null);
  }

  timeline(callId: string): CallEventRow[] {
    return this.stmt.events.all(callId);
  }
}
