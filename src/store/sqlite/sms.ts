// The SMS backup of a call in SQLite: claimed once so it is never sent twice, its result and
// receipts written with their timeline entries, and what the process before this one left.
import { FINAL_STATES } from '../../core/calls/call-state.js';
import { SqliteRepo } from './repo.js';
import type { EndedWithoutSms, SmsStatus, WaitingSms } from '../../core/records.js';
import type { SmsBackupRepo } from '../contract/index.js';
import { allOrNothing } from '../all-or-nothing.js';
import { PROGRESS_SQL } from '../sql/calls.js';
import { SMS_SQL } from '../sql/sms.js';
import { positional } from './named.js';
import { outboxInTransaction } from './progress.js';

const SQL = {
  ...SMS_SQL,
  event: PROGRESS_SQL.event,
  claimSms: `UPDATE calls SET sms_status = 'sending', sms_at = ?, updated_at = ? WHERE call_id = ? AND sms_status IS NULL`,
  setSms: `UPDATE calls SET sms_status = @status, sms_message_id = coalesce(@message_id, sms_message_id), sms_parts = coalesce(@parts, sms_parts),
                            sms_error = @error, sms_at = @at, updated_at = @at WHERE call_id = @call_id`,
  staleSending: `SELECT call_id AS callId FROM calls WHERE sms_status = 'sending'`,
  endedWithoutSms: `SELECT call_id AS callId, user_id AS userId, message, message_truncated AS messageTruncated, phone, status, carried_by AS carriedBy, updated_at AS endedAt FROM calls
                    WHERE accepted = 1 AND sms_status IS NULL AND status IN (${FINAL_STATES.map((s) => `'${s}'`).join(', ')}) AND updated_at >= ?
                    ORDER BY id`,
  waitingSms: `SELECT call_id AS callId, user_id AS userId, status, message, message_truncated AS messageTruncated, phone, carried_by AS carriedBy, sms_at AS claimedAt
               FROM calls WHERE sms_status = 'waiting' ORDER BY id`,
} as const;

export class SqliteSmsStore extends SqliteRepo implements SmsBackupRepo {
  private readonly stmt = {
    event: positional(this.db, SQL.event),
    claimSms: this.db.prepare(SQL.claimSms),
    setSms: this.db.prepare(SQL.setSms),
    markSms: positional(this.db, SQL.markSms),
    bySmsMessage: positional<{ callId: string; userId: string; smsStatus: SmsStatus | null }>(
      this.db,
      SQL.bySmsMessage,
    ),
    smsReceipt: positional(this.db, SQL.smsReceipt),
    staleSending: this.db.prepare<[], { callId: string }>(SQL.staleSending),
    smsWaits: positional(this.db, SQL.smsWaits),
    smsResumes: positional(this.db, SQL.smsResumes),
    smsLeftFails: positional(this.db, SQL.smsLeftFails),
    waitingSms: this.db.prepare<[], WaitingSms>(SQL.waitingSms),
    endedWithoutSms: this.db.prepare<[number], EndedWithoutSms>(SQL.endedWithoutSms),
  };

  /** Takes the right to send the SMS backup; true for exactly one caller, ever. */
  claimSms(callId: string): boolean {
    const at = this.now();
    return this.stmt.claimSms.run(at, at, callId).changes === 1;
  }

  /** Records that no SMS is due (answered, or backup off), unless one was already claimed. */
  markSmsSkipped(callId: string, status: 'not_needed' | 'disabled', why?: string): void {
    this.stmt.markSms.run(status, this.now(), callId, why ?? null);
  }

  setSmsResult(
    callId: string,
    result: { status: 'sent' | 'failed' | 'delivered'; messageId?: string | null; parts?: number; error?: string },
    callbacks?: boolean,
  ): number {
    return this.db
      .transaction(() => {
        const at = this.now();
        this.stmt.setSms.run({
          call_id: callId,
          status: result.status,
          message_id: result.messageId ?? null,
          parts: result.parts ?? null,
          error: result.error ?? null,
          at,
        });
        this.note(callId, `sms_${result.status}`, result.error ?? result.messageId ?? undefined);
        return outboxInTransaction(this.db, callId, 'sms', callbacks, at);
      })
      .immediate();
  }

  /** The alerts one SMS was sent for (several when it carried the alerts of a merged call). */
  findBySmsMessage(messageId: string): Array<{ callId: string; userId: string; smsStatus: SmsStatus | null }> {
    return this.stmt.bySmsMessage.all(messageId);
  }

  /** A delivery receipt for the call's sent SMS; false (nothing changed) when it was settled already. */
  recordSmsReceipt(callId: string, result: { status: 'delivered' | 'failed'; error?: string }): boolean {
    return this.db
      .transaction(() => {
        if (this.stmt.smsReceipt.run(callId, result.status, result.error ?? null, this.now()).changes === 0)
          return false;
        this.note(callId, `sms_${result.status}`, result.error);
        outboxInTransaction(this.db, callId, 'sms', undefined, this.now());
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
        if (this.stmt.smsLeftFails.run(callId, from, error, at).changes === 0) return false;
        this.stmt.event.run(callId, at, 'sms_failed', error);
        return true;
      })
      .immediate();
  }

  /** Calls that ended since `since` whose SMS backup was never decided (a stop between the two writes). */
  endedWithoutSms(since: number): EndedWithoutSms[] {
    return this.stmt.endedWithoutSms.all(since);
  }

  /** Every call's step in one immediate transaction, at one time, or none of them (store/all-or-nothing.ts). */
  private allOrNothing(callIds: readonly string[], step: (callId: string, at: number) => boolean): boolean {
    return allOrNothing(
      (body: (at: number) => true) => this.db.transaction(() => body(this.now())).immediate(),
      callIds,
      (at, callId) => step(callId, at),
    );
  }

  private note(callId: string, event: string, detail?: string): void {
    this.stmt.event.run(callId, this.now(), event, detail ?? null);
  }
}
