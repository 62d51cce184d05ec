// What happens to a call after it was accepted, in PostgreSQL, with several nodes: a step locks the
// call's row (two nodes cannot both move a queued call to dialing), a call holds its phone's line
// in phone_lines from dialing to its final state (one call per phone across nodes), and each node
// sees the calls it answers for.
import {
  canTransition,
  FINAL_STATES,
  IN_FLIGHT_STATES,
  isInFlight,
  type CallState,
} from '../../core/calls/call-state.js';
import type { CallEventRow, CallForDialing, CallStepped, CallStepWrite, TransitionFields } from '../../core/records.js';
import { ALLOWANCE_RETURNED, COLUMN, columnEntries } from '../rows.js';
import * as outbox from '../outbox.js';
import { monthWindow } from '../../core/webhook/limits.js';
import { decisionRefusedText, decisionText } from '../../core/calls/decision-keys.js';
import { type CallProgressRepo, type InFlightPage, pageOf } from '../contract/index.js';
import { query, type Queryable, type Sql } from './connect.js';
import { PROGRESS_SQL } from '../sql/calls.js';

/** The call as the desk holds it, with its account's flags (written once: outbox.ts). */
export const SELECT_CALL = outbox.selectCall('json_build_object');

/** Not final and not queued: a node is dialing, ringing or talking. */
export const IN_PROGRESS = `(${IN_FLIGHT_STATES.filter((s) => s !== 'queued')
  .map((s) => `'${s}'`)
  .join(', ')})`;

/** The default bound on a call (1,000 s) and 5 s for the nodes' clocks. */
export const DEFAULT_LINE_HOLD_MS = 1_005_000;

const SQL = {
  ...PROGRESS_SQL,
  get: `${SELECT_CALL} WHERE call_id = $1 AND accepted = 1`,
  // Queued calls are anyone's unless a live node accepted them; a call being dialed is its dialer's.
  inFlight: `${SELECT_CALL}
             WHERE accepted = 1 AND (
               (status = 'queued' AND (accepted_by = $1 OR accepted_by IS NULL OR accepted_by IN (SELECT node_id FROM nodes WHERE gone_at IS NOT NULL)))
               OR (status IN ${IN_PROGRESS} AND node_id = $1))
             ORDER BY id`,
  inFlightPage: `${SELECT_CALL.replace('SELECT ', 'SELECT id AS "pageId", ')}
             WHERE accepted = 1 AND id > $2 AND (
               (status = 'queued' AND (accepted_by = $1 OR accepted_by IS NULL OR accepted_by IN (SELECT node_id FROM nodes WHERE gone_at IS NOT NULL)))
               OR (status IN ${IN_PROGRESS} AND node_id = $1))
             ORDER BY id LIMIT $3`,
  lockCall: `SELECT status, kind, user_id AS "userId", received_at AS "receivedAt" FROM calls
             WHERE call_id = $1 AND accepted = 1 FOR UPDATE`,
  takeLine:
    'INSERT INTO phone_lines (phone, call_id, node_id, since) VALUES ($1, $2, $3, $4) ON CONFLICT (phone) DO NOTHING',
  lineHolder: 'SELECT call_id FROM phone_lines WHERE phone = $1',
  // Only the line this node took: a dead node's, whose call a survivor ends, stays held (staleLine).
  releaseLine: 'DELETE FROM phone_lines WHERE call_id = $1 AND node_id = $2',
  // A line whose call was ended by a survivor (its node died) is free once no call can still be up:
  // Asterisk hangs every call up RINGHOOK_MAX_CALL_SECONDS after it was dialed, with or without serve.
  staleLine: `DELETE FROM phone_lines l USING calls c
              WHERE l.phone = $1 AND c.call_id = l.call_id AND c.status NOT IN (${IN_FLIGHT_STATES.map((s) => `'${s}'`).join(', ')}) AND l.since < $2`,
  detection: `WITH changed AS (UPDATE calls SET amd_status = $1, amd_cause = $2, updated_at = $3 WHERE call_id = $4 RETURNING call_id)
              INSERT INTO call_events (call_id, at, event, detail) SELECT call_id, $3, 'amd', $5 FROM changed`,
  placedAgain: `WITH changed AS (UPDATE calls SET trunk = $1, channel_id = $2, dialed_at = $3, updated_at = $4
                                WHERE call_id = $5 AND status = 'dialing' RETURNING call_id)
                INSERT INTO call_events (call_id, at, event, detail) SELECT call_id, $4, 'trunk', $6 FROM changed`,
  refused: `WITH refused AS (UPDATE calls SET decision_refused = $2, updated_at = $3
                             WHERE call_id = $1 AND decision_key IS NULL AND decision_refused IS NULL RETURNING call_id),
                 noted AS (INSERT INTO call_events (call_id, at, event, detail) SELECT call_id, $3, 'decision', $4 FROM refused)
             SELECT count(*)::int AS refused FROM refused`,
} as const;

/** A call holds its phone's line from dialing until it ends, or waits queued again (a missed call rung again later, #54: the line is free meanwhile). */
function holdsLine(state: CallState): boolean {
  return isInFlight(state) && state !== 'queued';
}

const ALL_STATES: readonly string[] = [...IN_FLIGHT_STATES, ...FINAL_STATES];

/** The states a call may move to `to` from (core/calls/call-state.ts), as a text[] parameter. */
function fromStates(to: CallState): string[] {
  return ALL_STATES.filter((from) => canTransition(from, to));
}

/**
 * A step of a call as one statement (one round trip, atomic on its own): the call's row locked if
 * its state allows the step, the phone's line taken when it starts dialing (or kept, if this call
 * holds it), the row changed, the step on its timeline and, at a final state, the line given back.
 * Parameters: $1 call, $2 states it may come from, $3 time, $4 detail, $5 node, [$6 phone], then the SET values.
 */
function stepStatement(to: CallState, sets: string[], takesLine: boolean): string {
  const first = takesLine ? 7 : 6;
  const assignments = sets.map((column, i) => `${column} = $${i + first}`).join(', ');
  const line = takesLine
    ? `line AS (INSERT INTO phone_lines (phone, call_id, node_id, since) SELECT $6::text, call_id, node, $3::bigint FROM legal
                ON CONFLICT (phone) DO UPDATE SET since = phone_lines.since WHERE phone_lines.call_id = excluded.call_id
                RETURNING call_id),`
    : '';
  const release = holdsLine(to)
    ? ''
    : ', released AS (DELETE FROM phone_lines WHERE call_id IN (SELECT call_id FROM moved) AND node_id = $5)';
  return `WITH legal AS (SELECT call_id, $5::text AS node FROM calls WHERE call_id = $1 AND accepted = 1 AND status = ANY($2::text[]) FOR UPDATE),
          ${line}
          moved AS (UPDATE calls SET ${assignments} WHERE call_id IN (SELECT call_id FROM ${takesLine ? 'line' : 'legal'}) RETURNING call_id),
          noted AS (INSERT INTO call_events (call_id, at, event, detail) SELECT call_id, $3::bigint, '${to}', $4::text FROM moved)${release}
          SELECT (SELECT count(*) FROM legal)::int AS legal, (SELECT count(*) FROM moved)::int AS moved`;
}

/**
 * Writes the deliveries a change of a call makes to the outbox, inside the caller's transaction (#55).
 * Returns how many were added.
 */
export async function outboxInTransaction(
  tx: Queryable,
  callId: string,
  change: outbox.ReportedChange,
  now: number,
): Promise<number> {
  const [row] = await query<outbox.CallWithCallback>(tx, outbox.OUTBOX_SQL.call, [callId]);
  let added = 0;
  for (const delivery of outbox.deliveriesFor(change, row, now))
    added += (await query(tx, outbox.OUTBOX_SQL.enqueue, outbox.enqueueValues(delivery))).count;
  return added;
}

export class PgCallProgressStore implements CallProgressRepo {
  constructor(
    private readonly sql: Sql,
    private readonly nodeId: string,
    private readonly now: () => number = Date.now,
    /** How long a dead node's line stays held after its call was dialed: the bound on a call, and a margin. */
    private readonly lineHoldMs: number = DEFAULT_LINE_HOLD_MS,
  ) {}

  async get(callId: string): Promise<CallForDialing | undefined> {
    const [row] = await query<CallForDialing>(this.sql, SQL.get, [callId]);
    return row && outbox.withAccountFlags(row);
  }

  /** Calls not final yet that this node answers for, oldest first. */
  async inFlight(): Promise<CallForDialing[]> {
    return (await query<CallForDialing>(this.sql, SQL.inFlight, [this.nodeId])).map(outbox.withAccountFlags);
  }

  /**
   * A step and its status-callback events in one transaction (#55). A step that makes none, or of an
   * account read without a callback URL, stays the one statement of `transition`.
   */
  async step({ callId, to, fields = {}, detail, callbacks, decision }: CallStepWrite): Promise<CallStepped> {
    if (!decision && (callbacks === false || outbox.reportsNothing(to)))
      return { moved: await this.transition(callId, to, fields, detail), outboxed: 0 };
    let outboxed = 0;
    const moved = await this.transitionInTransaction(callId, to, fields, detail, async (tx, at) => {
      // The row is locked and moved by this transaction: one decision per call, whichever node presses first.
      if (decision && (await query(tx, SQL.decide, [callId, decision.key, decision.label, at])).count === 1)
        await query(tx, SQL.event, [callId, at, 'decision', decisionText(decision)]);
      outboxed = await outboxInTransaction(tx, callId, to, at);
    });
    return { moved, outboxed };
  }

  /** A decision refused (#56: the PIN wrong each time): kept on the call and its timeline, if it has no decision yet. Nothing is sent. */
  async refuseDecision(callId: string, reason: string): Promise<boolean> {
    const [row] = await query<{ refused: number }>(this.sql, SQL.refused, [
      callId,
      reason,
      this.now(),
      decisionRefusedText(reason),
    ]);
    return row?.refused === 1;
  }

  async inFlightPage(after: number, limit: number): Promise<InFlightPage> {
    const rows = await query<CallForDialing & { pageId: string }>(this.sql, SQL.inFlightPage, [
      this.nodeId,
      after,
      limit,
    ]);
    return pageOf(rows.map(outbox.withAccountFlags), limit);
  }

  /**
   * Moves a call to `to` if that is a legal step from its current state, with the given columns,
   * and writes the step to its timeline. Returns false (and changes nothing) otherwise, and when
   * the call would dial a phone whose line another call holds.
   */
  async transition(callId: string, to: CallState, fields: TransitionFields = {}, detail?: string): Promise<boolean> {
    // Giving the allowance back reads the call's month and writes a second timeline entry after the
    // step's: the transaction of several statements, on this rare path only.
    if (fields.returnsAllowance) return this.transitionInTransaction(callId, to, fields, detail);
    const at = this.now();
    const entries = columnEntries(fields);
    const sets = ['status', 'updated_at', ...(to === 'dialing' ? ['node_id'] : []), ...entries.map(([k]) => COLUMN[k])];
    const values = [to, at, ...(to === 'dialing' ? [this.nodeId] : []), ...entries.map(([, v]) => v)];
    // A carried alert rides in its carrier's call, which holds the line.
    const takesLine = to === 'dialing' && fields.carriedBy === undefined && fields.phone !== undefined;
    const [row] = await query<{ legal: number; moved: number }>(this.sql, stepStatement(to, sets, takesLine), [
      callId,
      fromStates(to),
      at,
      detail ?? fields.error ?? null,
      this.nodeId,
      ...(takesLine ? [fields.phone] : []),
      ...values,
    ]);
    if (row?.moved === 1) return true;
    // Legal, but the phone's line is held: by a call a dead node left (free once no call can still be up), or truly busy.
    if (row?.legal !== 1 || !takesLine) return false;
    return this.transitionInTransaction(callId, to, fields, detail);
  }

  /** The slow way (a transaction of several statements): a line found held (the stale-line check), or an allowance given back. */
  private transitionInTransaction(
    callId: string,
    to: CallState,
    fields: TransitionFields,
    detail: string | undefined,
    /** What is written with the step, in its transaction (its outbox events). */
    also?: (tx: Queryable, at: number) => Promise<void>,
  ): Promise<boolean> {
    return this.sql.begin(async (tx) => {
      const [current] = await query<{ status: string; kind: string; userId: string; receivedAt: number | string }>(
        tx,
        SQL.lockCall,
        [callId],
      );
      if (!current || !canTransition(current.status, to)) return false;
      const at = this.now();
      // A carried alert rides in its carrier's call, which holds the line.
      if (to === 'dialing' && fields.carriedBy === undefined && fields.phone !== undefined) {
        if (!(await this.takeLine(tx, fields.phone, callId, at))) return false;
      }
      const entries = columnEntries(fields);
      const sets = [
        'status',
        'updated_at',
        ...(to === 'dialing' ? ['node_id'] : []),
        ...entries.map(([k]) => COLUMN[k]),
      ];
      const values = [to, at, ...(to === 'dialing' ? [this.nodeId] : []), ...entries.map(([, v]) => v)];
      const assignments = sets.map((column, i) => `${column} = $${i + 2}`).join(', ');
      await query(tx, `UPDATE calls SET ${assignments} WHERE call_id = $1`, [callId, ...values]);
      await query(tx, SQL.event, [callId, at, to, detail ?? fields.error ?? null]);
      if (!holdsLine(to)) await query(tx, SQL.releaseLine, [callId, this.nodeId]);
      // A call that never left this server does not spend the alert's monthly allowance.
      if (fields.returnsAllowance && current.kind === 'alert' && !isInFlight(to)) {
        await query(tx, SQL.giveBack, [current.userId, monthWindow(Number(current.receivedAt)).key]);
        await query(tx, SQL.event, [callId, at, 'allowance', ALLOWANCE_RETURNED]);
      }
      await also?.(tx, at);
      return true;
    });
  }

  /** True when the call holds the phone's line now (it took it, or already had it). */
  private async takeLine(tx: Queryable, phone: string, callId: string, at: number): Promise<boolean> {
    if ((await query(tx, SQL.takeLine, [phone, callId, this.nodeId, at])).count === 1) return true;
    const [holder] = await query<{ call_id: string }>(tx, SQL.lineHolder, [phone]);
    if (holder?.call_id === callId) return true;
    if ((await query(tx, SQL.staleLine, [phone, at - this.lineHoldMs])).count === 0) return false;
    return (await query(tx, SQL.takeLine, [phone, callId, this.nodeId, at])).count === 1;
  }

  /** Answering-machine detection's verdict (HUMAN, MACHINE, NOTSURE) and cause, kept on the call and its timeline. */
  async recordDetection(callId: string, status: string, cause: string): Promise<void> {
    await query(this.sql, SQL.detection, [status, cause, this.now(), callId, `${status} ${cause}`.trim()]);
  }

  /** The call goes out again through another trunk (the first did not take it): still dialing. */
  async placedAgain(
    callId: string,
    placement: { trunk: string; channelId: string; dialedAt: number },
    detail: string,
  ): Promise<void> {
    await query(this.sql, SQL.placedAgain, [
      placement.trunk,
      placement.channelId,
      placement.dialedAt,
      this.now(),
      callId,
      detail,
    ]);
  }

  /** A note on the timeline that is not a state change (a digit pressed, a playback). */
  async note(callId: string, event: string, detail?: string): Promise<void> {
    await query(this.sql, SQL.event, [callId, this.now(), event, detail ?? null]);
  }

  async timeline(callId: string): Promise<CallEventRow[]> {
    return [...(await query<CallEventRow>(this.sql, SQL.events, [callId]))];
  }
}
