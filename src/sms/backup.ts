// The SMS backup: after a call ends unanswered (or never got placed), and when the account has
// SMS backup on, the alert goes out as one SMS. Claimed in the database first, so it is sent at
// most once per alert, even across a crash.
import { decideSms } from '../core/sms-decision.js';
import type { AccountRepo, CallProgressRepo, CallWrites } from '../db/store.js';
import type { CallEvents } from '../events.js';
import type { Logger } from '../log.js';
import type { FinalCall } from '../pbx/call-ledger.js';
import { buildSmsText } from './text.js';
import type { DeliveryReport, SmsSender } from './types.js';

export interface SmsBackupDeps {
  sender: SmsSender;
  progress: CallProgressRepo;
  /** Records go through here, after the call's own steps, without blocking on a locked database. */
  writes: CallWrites;
  accounts: AccountRepo;
  events: CallEvents;
  logger: Logger;
  now: () => number;
  maxParts?: number;
  /** Told of every SMS handed over or failed (metrics). */
  onResult?: (result: 'sent' | 'failed' | 'delivered' | 'undelivered') => void;
}

/** Receipts that came before send() returned the message id are kept this long, at most this many. */
const EARLY_REPORT_MS = 60_000;
const EARLY_REPORT_MAX = 1_000;

export class SmsBackup {
  private readonly stopReports: () => void;
  private readonly pending = new Set<Promise<void>>();
  // A gateway may confirm delivery before it has answered our submit (SMPP receipts can overtake
  // the submit_sm_resp we are still waiting on): such a receipt waits here for its call.
  private readonly earlyReports = new Map<string, { report: DeliveryReport; at: number }>();

  constructor(private readonly deps: SmsBackupDeps) {
    this.stopReports = deps.sender.onDeliveryReport((report) => this.onDeliveryReport(report));
  }

  /** At start: an SMS claimed by a process that died may or may not have left; it is not sent again. */
  async recover(): Promise<void> {
    for (const callId of await this.deps.progress.staleSmsClaims()) {
      await this.deps.progress.setSmsResult(callId, {
        status: 'failed',
        error: 'ringhook stopped while handing the SMS to the gateway; not sent again, to avoid a duplicate',
      });
    }
  }

  /** Called once for each call that reached a final state. */
  afterFinal(call: FinalCall): void {
    const job = this.handle(call).catch((error: Error) => {
      this.deps.logger.error('SMS backup failed', { call_id: call.callId, error });
    });
    this.pending.add(job);
    void job.finally(() => this.pending.delete(job));
  }

  private async handle(call: FinalCall): Promise<void> {
    const { progress, writes } = this.deps;
    const { callId, state } = call;
    // A call that carried several alerts is missed (or heard) for all of them: one decision, one SMS.
    const callIds = [callId, ...call.carried.map((c) => c.callId)];
    const account = await this.deps.accounts.get(call.userId);
    const decision = decideSms(state, account, this.deps.sender.kind !== 'none');
    if (decision !== 'send' || !account) {
      for (const id of callIds)
        await writes.write(`sms ${id} ${decision}`, () => progress.markSmsSkipped(id, decision === 'not_needed' ? 'not_needed' : 'disabled'));
      return;
    }
    // Only the alerts claimed here go out: one claimed before (by a process that died, or by another node) is never sent again.
    const claimed: string[] = [];
    for (const id of callIds) if (await writes.write(`sms ${id} claim`, () => progress.claimSms(id))) claimed.push(id);
    if (claimed.length === 0) return;
    const messages = [call.message, ...call.carried.map((c) => c.message)].filter((_, i) => claimed.includes(callIds[i]!));
    // To the number that was called; an alert never dialed goes to the account's number.
    const result = await this.deps.sender.send({
      to: call.phone ?? account.phone,
      text: buildSmsText(messages, { maxParts: this.deps.maxParts }),
      reference: claimed[0]!,
    });
    if (result.status === 'sent') {
      for (const id of claimed)
        await writes.write(`sms ${id} sent`, () => progress.setSmsResult(id, { status: 'sent', messageId: result.messageId, parts: result.parts }));
      const early = result.messageId ? this.earlyReports.get(result.messageId) : undefined;
      if (early) {
        this.earlyReports.delete(result.messageId!);
        this.onDeliveryReport(early.report);
      }
    } else {
      for (const id of claimed) await writes.write(`sms ${id} failed`, () => progress.setSmsResult(id, { status: 'failed', error: result.error }));
    }
    this.deps.onResult?.(result.status);
    for (const id of claimed) this.deps.events.emit({ callId: id, userId: call.userId, status: state, at: this.deps.now() });
  }

  private onDeliveryReport(report: DeliveryReport): void {
    if (report.status === 'pending') return;
    void this.recordReport(report).catch((error: Error) =>
      this.deps.logger.error('could not record an SMS delivery receipt', { message_id: report.messageId, error }),
    );
  }

  private async recordReport(report: DeliveryReport): Promise<void> {
    const calls = await this.deps.progress.findBySmsMessage(report.messageId);
    if (calls.length === 0) {
      this.keepEarly(report);
      return;
    }
    // A receipt for an SMS settled already (repeated, late, another part's) is not news.
    const sent = calls.filter((call) => call.smsStatus === 'sent');
    if (sent.length === 0) return;
    const result =
      report.status === 'delivered' ? ({ status: 'delivered' } as const) : ({ status: 'failed', error: `not delivered: ${report.detail}` } as const);
    this.deps.onResult?.(report.status === 'delivered' ? 'delivered' : 'undelivered');
    for (const call of sent) {
      void this.deps.writes
        .write(`sms ${call.callId} receipt`, () => this.deps.progress.recordSmsReceipt(call.callId, result), { lazy: true })
        .then(
          (settled) => settled && this.deps.events.emit({ callId: call.callId, userId: call.userId, status: 'sms', at: this.deps.now() }),
          (error: Error) => this.deps.logger.error('could not record an SMS delivery receipt', { call_id: call.callId, error }),
        );
    }
  }

  private keepEarly(report: DeliveryReport): void {
    const now = this.deps.now();
    for (const [id, entry] of this.earlyReports) {
      if (now - entry.at > EARLY_REPORT_MS || this.earlyReports.size >= EARLY_REPORT_MAX) this.earlyReports.delete(id);
      else break;
    }
    this.earlyReports.set(report.messageId, { report, at: now });
  }

  /** Waits for SMS being handed over right now (graceful shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.pending]);
    this.stopReports();
  }
}
