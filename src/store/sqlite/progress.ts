// What happens to a call after it was accepted: state transitions with their times, the
// timeline (call_events), and the SMS backup, claimed once so it is never sent twice.
import { canTransition, FINAL_STATES, IN_FLIGHT_STATES, isFinal, type CallState } from '../../core/call-state.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from './connect.js';
import type {
  CallEventRow,
  CallForDialing,
  EndedWithoutSms,
  SmsStatus,
  TransitionFields,
  WaitingSms,
} from '../../core/records.js';
import { ALLOWANCE_RETURNED, COLUMN, columnEntries } from '../rows.js';
import { monthWindow } from '../../core/limits.js';
import type { CallProgressRepo } from '../contract.js';

export const SELECT_CALL = `SELECT call_id AS callId, user_id AS userId, kind, status, message, received_at AS receivedAt, phone,
                            dialed_at AS dialedAt, ringing_at AS ringingAt, answered_at AS answeredAt, sms_status AS smsStatus,
                            carried_by AS carriedBy, held_until AS heldUntil
                     FROM calls`;

const SQL = {
  get: `${SELECT_CALL} WHERE call_id = ? AND accepted = 1`,
  inFlight: `${SELECT_CALL} WHERE status IN (${IN_FLIGHT_STATES.map((s) => `'${s}'`).join(', ')}) AND accepted = 1 ORDER BY id`,
  event: 'INSERT INTO call_events (call_id, at, event, detail) VALUES (?, ?, ?, ?)',
  giveBack: 'UPDATE usage SET calls = calls - 1 WHERE user_id = ? AND month = ? AND calls > 0',
  events: 'SELECT at, event, detail FROM call_events WHERE call_id = ? ORDER BY id',
  claimSms: `UPDATE calls SET sms_status = 'sending', sms_at = ?, updated_at = ? WHERE call_id = ? AND sms_status IS NULL`,
  setSms: `UPDATE calls SET sms_status = @status, sms_message_id = coalesce(@message_id, sms_message_id), sms_parts = coalesce(@parts, sms_parts),
                            sms_error = @error, sms_at = @at, updated_at = @at WHERE call_id = @call_id`,
  markSms: `UPDATE calls SET sms_status = ?, sms_error = ?, updated_at = ? WHERE call_id = ? AND sms_status IS NULL`,
  // Only the SMS last sent with this id (its alerts: within a minute of it): an SMSC that restarts reuses its ids.
  bySmsMessage: `SELECT call_id AS callId, user_id AS userId, sms_status AS smsStatus FROM calls
                 WHERE sms_message_id = @id AND sms_at >= (SELECT max(sms_at) FROM calls WHERE sms_message_id = @id) - 60000 ORDER BY id`,
  // A receipt settles a sent SMS once: a repeated, late or reordered one changes nothing.
  smsReceipt: `UPDATE calls SET sms_status = @status, sms_error = @error, sms_at = @at, updated_at = @at WHERE call_id = @call_id AND sms_status = 'sent'`,
  detection: 'UPDATE calls SET amd_status = ?, amd_cause = ?, updated_at = ? WHERE call_id = ?',
  placedAgain:
    "UPDATE calls SET trunk = ?, channel_id = ?, dialed_at = ?, updated_at = ? WHERE call_id = ? AND status = 'dialing'",
  staleSending: `SELECT call_id AS callId FROM calls WHERE sms_status = 'sending'`,
  smsWaits:
    "UPDATE calls SET sms_status = 'waiting', sms_error = ?, updated_at = ? WHERE call_id = ? AND sms_status = 'sending'",
  smsResumes: "UPDATE calls SET sms_status = 'sending', updated_at = ? WHERE call_id = ? AND sms_status = 'waiting'",
  smsLeftFails:
    "UPDATE calls SET sms_status = 'failed', sms_error = ?, sms_at = ?, updated_at = ? WHERE call_id = ? AND sms_status = ?",
  endedWithoutSms: `SELECT call_id AS callId, user_id AS userId, message, phone, status, carried_by AS carriedBy, updated_at AS endedAt FROM calls
                    WHERE accepted = 1 AND sms_status IS NULL AND status IN (${FINAL_STATES.map((s) => `'${s}'`).join(', ')}) AND updated_at >= ?
                    ORDER BY id`,
  waitingSms: `SELECT call_id AS callId, user_id AS userId, message, phone, carried_by AS carriedBy, sms_at AS claimedAt
               FROM calls WHERE sms_status = 'waiting' ORDER BY id`,
} as const;

export class SqliteCallProgressStore implements CallProgressRepo {
  private readonly stmt;
  /** The UPDATE of each combination of columns a transition sets, prepared once. */
  private readonly updates = new Map<string, Statement>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.stmt = {
      get: db.prepare<[string], CallForDialing>(SQL.get),
      inFlight: db.prepare<[], CallForDialing>(SQL.inFlight),
      event: db.prepare(SQL.event),
      giveBack: db.prepare(SQL.giveBack),
      events: db.prepare<[string], CallEventRow>(SQL.events),
      claimSms: db.prepare(SQL.claimSms),
      setSms: db.prepare(SQL.setSms),
      markSms: db.prepare(SQL.markSms),
      bySmsMessage: db.prepare<[{ id: string }], { callId: string; userId: string; smsStatus: SmsStatus | null }>(
        SQL.bySmsMessage,
      ),
      smsReceipt: db.prepare(SQL.smsReceipt),
      staleSending: db.prepare<[], { callId: string }>(SQL.staleSending),
      smsWaits: db.prepare(SQL.smsWaits),
      smsResumes: db.prepare(SQL.smsResumes),
      smsLeftFails: db.prepare(SQL.smsLeftFails),
      waitingSms: db.prepare<[], WaitingSms>(SQL.waitingSms),
      endedWithoutSms: db.prepare<[number], EndedWithoutSms>(SQL.endedWithoutSms),
      detection: db.prepare(SQL.detection),
      placedAgain: db.prepare(SQL.placedAgain),
    };
  }

  get(callId: string): CallForDialing | undefined {
    return this.stmt.get.get(callId);
  }

  /** Calls that are not final yet, oldest first. */
  inFlight(): CallForDialing[] {
    return this.stmt.inFlight.all();
  }

  /**
   * Moves a call to `to` if that is a legal step from its current state, with the given columns,
   * and writes the step to its timeline. Returns false (and changes nothing) otherwise.
   */
  transition(callId: string, to: CallState, fields: TransitionFields = {}, detail?: string): boolean {
    return this.db
      .transaction(() => {
        const current = this.stmt.get.get(callId);
        if (!current || !canTransition(current.status, to)) return false;
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

  /** Takes the right to send the SMS backup; true for exactly one caller, ever. */
  claimSms(callId: string): boolean {
    const at = this.now();
    return this.stmt.claimSms.run(at, at, callId).changes === 1;
  }

  /** Records that no SMS is due (answered, or backup off), unless one was already claimed. */
  markSmsSkipped(callId: string, status: 'not_needed' | 'disabled', why?: string): void {
    this.stmt.markSms.run(status, why ?? null, this.now(), callId);
  }

  setSmsResult(
    callId: string,
    result: { status: 'sent' | 'failed' | 'delivered'; messageId?: string | null; parts?: number; error?: string },
  ): void {
    this.stmt.setSms.run({
      call_id: callId,
      status: result.status,
      message_id: result.messageId ?? null,
      parts: result.parts ?? null,
      error: result.error ?? null,
      at: this.now(),
    });
    this.note(callId, `sms_${result.status}`, result.error ?? result.messageId ?? undefined);
  }

  /** The alerts one SMS was sent for (several when it carried the alerts of a merged call). */
  findBySmsMessage(messageId: string): Array<{ callId: string; userId: string; smsStatus: SmsStatus | null }> {
    return this.stmt.bySmsMessage.all({ id: messageId });
  }

  /** A delivery receipt for the call's sent SMS; false (nothing changed) when it was settled already. */
  recordSmsReceipt(callId: string, result: { status: 'delivered' | 'failed'; error?: string }): boolean {
    return this.db
      .transaction(() => {
        if (
          this.stmt.smsReceipt.run({
            call_id: callId,
            status: result.status,
            error: result.error ?? null,
            at: this.now(),
          }).changes === 0
        )
          return false;
        this.note(callId, `sms_${result.status}`, result.error);
        return true;
      })
      .immediate();
  }

  /** SMS claims left "sending" by a process that died: the SMS may or may not have gone out. */
  staleSmsClaims(): string[] {
    return this.stmt.staleSending.all().map((r) => r.callId);
  }

  /** The gateway took nothing: the SMS of these alerts waits (a restart then sends it, not one being sent). */
  smsWaits(callIds: readonly string[], error: string): boolean {
    return this.allOrNothing(callIds, (callId, at) => {
      if (this.stmt.smsWaits.run(error, at, callId).changes === 0) return false;
      this.stmt.event.run(callId, at, 'sms_waiting', error);
      return true;
    });
  }

  /** Takes a waiting SMS back to be sent now; false when any of its alerts is no longer waiting. */
  resumeSms(callIds: readonly string[]): boolean {
    return this.allOrNothing(callIds, (callId, at) => this.stmt.smsResumes.run(at, callId).changes === 1);
  }

  /** The SMS left waiting for the gateway (by the process before this one). */
  waitingSmsLeft(): WaitingSms[] {
    return this.stmt.waitingSms.all();
  }

  /** An SMS left `from` (being handed over, or waiting) ends failed; false when it has moved on meanwhile. */
  failLeftSms(callId: string, from: 'sending' | 'waiting', error: string): boolean {
    return this.db
      .transaction(() => {
        const at = this.now();
        if (this.stmt.smsLeftFails.run(error, at, at, callId, from).changes === 0) return false;
        this.stmt.event.run(callId, at, 'sms_failed', error);
        return true;
      })
      .immediate();
  }

  /** Calls that ended since `since` whose SMS backup was never decided (a stop between the two writes). */
  endedWithoutSms(since: number): EndedWithoutSms[] {
    return this.stmt.endedWithoutSms.all(since);
  }

  private allOrNothing(callIds: readonly string[], step: (callId: string, at: number) => boolean): boolean {
    const rollback = new Error('rollback');
    try {
      return this.db
        .transaction(() => {
          const at = this.now();
          for (const callId of callIds) if (!step(callId, at)) throw rollback;
          return true;
        })
        .immediate();
    } catch (error) {
      if (error === rollback) return false;
      throw error;
    }
  }
}
