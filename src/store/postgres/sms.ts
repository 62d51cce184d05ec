// The SMS backup of a call in PostgreSQL, with several nodes: claimed once on any node (the claim
// names the node), its result and receipts with their timeline entries, and what a node that
// stopped or left has waiting.
import { FINAL_STATES } from '../../core/calls/call-state.js';
import type { EndedWithoutSms, SmsStatus, WaitingSms } from '../../core/records.js';
import type { SmsBackupRepo } from '../contract/index.js';
import { allOrNothing } from '../all-or-nothing.js';
import { outboxInTransaction } from './progress.js';
import { query, type Queryable, type Sql } from './connect.js';
import { PROGRESS_SQL } from '../sql/calls.js';
import { SMS_SQL } from '../sql/sms.js';

/**
 * Calls of node $1 (or, never dialed, of the node that accepted them) that ended since $2 with
 * their SMS backup undecided: a starting node looks at its own, a survivor at a silent node's.
 */
export const ENDED_WITHOUT_SMS = `SELECT call_id AS "callId", user_id AS "userId", message, message_truncated AS "messageTruncated", phone, status, carried_by AS "carriedBy", updated_at AS "endedAt" FROM calls
                                  WHERE coalesce(node_id, accepted_by) = $1 AND accepted = 1 AND sms_status IS NULL
                                    AND status IN (${FINAL_STATES.map((s) => `'${s}'`).join(', ')}) AND updated_at >= $2
                                  ORDER BY id`;

const SQL = {
  ...SMS_SQL,
  event: PROGRESS_SQL.event,
  claimSms: `UPDATE calls SET sms_status = 'sending', sms_at = $1, updated_at = $1, sms_node = $2 WHERE call_id = $3 AND sms_status IS NULL`,
  setSms: `WITH changed AS (UPDATE calls SET sms_status = $2, sms_message_id = coalesce($3, sms_message_id), sms_parts = coalesce($4, sms_parts),
                                           sms_error = $5, sms_at = $6, updated_at = $6
                            WHERE call_id = $1 AND ($9::boolean OR NOT EXISTS (SELECT 1 FROM callback_settings s WHERE s.user_id = calls.user_id AND s.url IS NOT NULL))
                            RETURNING call_id)
           INSERT INTO call_events (call_id, at, event, detail) SELECT call_id, $6, $7, $8 FROM changed`,
  staleSending: `SELECT call_id AS "callId" FROM calls WHERE sms_status = 'sending' AND sms_node = $1 ORDER BY id`,
  endedWithoutSms: ENDED_WITHOUT_SMS,
  // This node's, and those of nodes that left (a rolling deploy gives new node ids): now this node's.
  waitingSmsLeft: `UPDATE calls SET sms_node = $1
                   WHERE sms_status = 'waiting' AND (sms_node = $1 OR sms_node IN (SELECT node_id FROM nodes WHERE gone_at IS NOT NULL))
                   RETURNING id, call_id AS "callId", user_id AS "userId", status, message, message_truncated AS "messageTruncated", phone, carried_by AS "carriedBy", sms_at AS "claimedAt"`,
} as const;

export class PgSmsStore implements SmsBackupRepo {
  constructor(
    private readonly sql: Sql,
    private readonly nodeId: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes the right to send the SMS backup; true for exactly one caller on any node, ever. */
  async claimSms(callId: string): Promise<boolean> {
    return (await query(this.sql, SQL.claimSms, [this.now(), this.nodeId, callId])).count === 1;
  }

  /** Records that no SMS is due (answered, or backup off), unless one was already claimed. */
  async markSmsSkipped(callId: string, status: 'not_needed' | 'disabled', why?: string): Promise<void> {
    await query(this.sql, SQL.markSms, [status, this.now(), callId, why ?? null]);
  }

  async setSmsResult(
    callId: string,
    result: { status: 'sent' | 'failed' | 'delivered'; messageId?: string | null; parts?: number; error?: string },
    callbacks?: boolean,
  ): Promise<number> {
    // Not known whether the account has a callback URL: one statement writes it if it has none (the
    // common case); otherwise (or for a call not there) the transaction below.
    if (callbacks !== true && (await this.writeSmsResult(this.sql, callId, result, this.now(), callbacks === false)))
      return 0;
    if (callbacks === false) return 0;
    return this.sql.begin(async (tx) => {
      const at = this.now();
      await this.writeSmsResult(tx, callId, result, at, true);
      return outboxInTransaction(tx, callId, 'sms', at);
    }) as Promise<number>;
  }

  private async writeSmsResult(
    db: Queryable,
    callId: string,
    result: { status: 'sent' | 'failed' | 'delivered'; messageId?: string | null; parts?: number; error?: string },
    at: number,
    /** false: written only when the account has no callback URL (its events need the transaction). */
    always: boolean,
  ): Promise<boolean> {
    const written = await query(db, SQL.setSms, [
      callId,
      result.status,
      result.messageId ?? null,
      result.parts ?? null,
      result.error ?? null,
      at,
      `sms_${result.status}`,
      result.error ?? result.messageId ?? null,
      always,
    ]);
    return written.count > 0;
  }

  /** The alerts one SMS was sent for (several when it carried the alerts of a merged call). */
  async findBySmsMessage(
    messageId: string,
  ): Promise<Array<{ callId: string; userId: string; smsStatus: SmsStatus | null }>> {
    return [
      ...(await query<{ callId: string; userId: string; smsStatus: SmsStatus | null }>(this.sql, SQL.bySmsMessage, [
        messageId,
      ])),
    ];
  }

  /** A delivery receipt for the call's sent SMS; false (nothing changed) when it was settled already. */
  async recordSmsReceipt(callId: string, result: { status: 'delivered' | 'failed'; error?: string }): Promise<boolean> {
    return this.sql.begin(async (tx) => {
      const at = this.now();
      const updated = await query(tx, SQL.smsReceipt, [callId, result.status, result.error ?? null, at]);
      if (updated.count === 0) return false;
      await query(tx, SQL.event, [callId, at, `sms_${result.status}`, result.error ?? null]);
      await outboxInTransaction(tx, callId, 'sms', at);
      return true;
    }) as Promise<boolean>;
  }

  /** SMS claims this node left "sending" when it died (restarted with the same node id). */
  async staleSmsClaims(): Promise<string[]> {
    return (await query<{ callId: string }>(this.sql, SQL.staleSending, [this.nodeId])).map((r) => r.callId);
  }

  /** The gateway took nothing: the SMS of these alerts waits (a restart then sends it, not one being sent). */
  smsWaits(callIds: readonly string[], error: string): Promise<boolean> {
    return this.allOrNothing(callIds, async (tx, callId, at) => {
      if ((await query(tx, SQL.smsWaits, [error, at, callId])).count === 0) return false;
      await query(tx, SQL.event, [callId, at, 'sms_waiting', error]);
      return true;
    });
  }

  /** Takes a waiting SMS back to be sent now; false when any of its alerts is no longer waiting. */
  resumeSms(callIds: readonly string[]): Promise<boolean> {
    return this.allOrNothing(
      callIds,
      async (tx, callId, at) => (await query(tx, SQL.smsResumes, [at, callId])).count === 1,
    );
  }

  /** Calls of this node that ended since `since` whose SMS backup was never decided (a stop between the two writes). */
  async endedWithoutSms(since: number): Promise<EndedWithoutSms[]> {
    return [...(await query<EndedWithoutSms>(this.sql, SQL.endedWithoutSms, [this.nodeId, since]))];
  }

  async waitingSmsLeft(): Promise<WaitingSms[]> {
    const rows = await query<WaitingSms & { id: number }>(this.sql, SQL.waitingSmsLeft, [this.nodeId]);
    return [...rows].sort((a, b) => a.id - b.id).map(({ id: _, ...sms }) => sms);
  }

  /** An SMS left `from` (being handed over, or waiting) ends failed; false when it has moved on meanwhile. */
  failLeftSms(callId: string, from: 'sending' | 'waiting', error: string): Promise<boolean> {
    return this.sql.begin(async (tx) => {
      const at = this.now();
      if ((await query(tx, SQL.smsLeftFails, [callId, from, error, at])).count === 0) return false;
      await query(tx, SQL.event, [callId, at, 'sms_failed', error]);
      return true;
    }) as Promise<boolean>;
  }

  /** Every call's step in one transaction, at one time, or none of them (store/all-or-nothing.ts). */
  private allOrNothing(
    callIds: readonly string[],
    step: (tx: Queryable, callId: string, at: number) => Promise<boolean>,
  ): Promise<boolean> {
    return allOrNothing(
      (body: (tx: { tx: Queryable; at: number }) => Promise<true>) =>
        this.sql.begin((tx) => body({ tx, at: this.now() })) as Promise<true>,
      callIds,
      ({ tx, at }, callId) => step(tx, callId, at),
    );
  }
}
