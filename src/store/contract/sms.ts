// The SMS backup of a call: claimed once so it is never sent twice, its result and receipts,
// and what a stopped process (or a node that left) left waiting.
import type { EndedWithoutSms, SmsStatus, WaitingSms } from '../../core/records.js';
import type { Awaitable } from './awaitable.js';

export interface SmsBackupRepo {
  claimSms(callId: string): Awaitable<boolean>;
  /** `why`: the reason a `disabled` SMS backup sent nothing (core/reasons SMS_NOT_SENT), kept as its sms_error. */
  markSmsSkipped(callId: string, status: 'not_needed' | 'disabled', why?: string): Awaitable<void>;
  /**
   * The SMS's result, and its status-callback event in the same transaction (#55; `callbacks` as in
   * CallStepWrite); resolves to the deliveries added to the outbox.
   */
  setSmsResult(
    callId: string,
    result: { status: 'sent' | 'failed' | 'delivered'; messageId?: string | null; parts?: number; error?: string },
    callbacks?: boolean,
  ): Awaitable<number>;
  findBySmsMessage(
    messageId: string,
  ): Awaitable<Array<{ callId: string; userId: string; smsStatus: SmsStatus | null }>>;
  /** A receipt settles a sent SMS once (false: settled already), its event written with it (#55). */
  recordSmsReceipt(callId: string, result: { status: 'delivered' | 'failed'; error?: string }): Awaitable<boolean>;
  staleSmsClaims(): Awaitable<string[]>;
  smsWaits(callIds: readonly string[], error: string): Awaitable<boolean>;
  resumeSms(callIds: readonly string[]): Awaitable<boolean>;
  /** The SMS left waiting for the gateway by this node's last process (PostgreSQL: and by nodes that left), now this node's. */
  waitingSmsLeft(): Awaitable<WaitingSms[]>;
  /** Calls of this node that ended since `since` with their SMS backup undecided. */
  endedWithoutSms(since: number): Awaitable<EndedWithoutSms[]>;
  failLeftSms(callId: string, from: 'sending' | 'waiting', error: string): Awaitable<boolean>;
}
