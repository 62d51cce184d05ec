// The SMS backup: after a call ends unanswered (or never got placed), and when the account has
// SMS backup on, the alert goes out as one SMS. Claimed in the database first, so it is sent at
// most once per alert, even across a crash.
import { decideSms } from '../core/sms-decision.js';
import type { AccountRepo, CallProgressRepo, CallWrites } from '../db/store.js';
import type { CallEvents } from '../events.js';
import type { Logger } from '../log.js';
import type { FinalCall } from '../pbx/call-ledger.js';
import { buildSmsText } from './text.js';
import type { DeliveryReport, SmsRequest, SmsResult, SmsSender } from './types.js';

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
  /**
   * How long an SMS the gateway certainly did not take (down, restarting, 503) is tried again
   * (RINGHOOK_CALL_FRESHNESS, as a call waits for Asterisk); 0: not tried again.
   */
  retryWindowMs?: number;
  /** The first pause before it is tried again (doubled each time, up to 30 s); 2 s by default. */
  retryFirstMs?: number;
  /** Told of every SMS handed over or failed (metrics). */
  onResult?: (result: 'sent' | 'failed' | 'delivered' | 'undelivered') => void;
}

/** Pauses between the tries of an SMS the gateway did not take: doubled from the first, up to this. */
const RETRY_MOST_MS = 30_000;

/** Receipts that came before send() returned the message id are kept this long, at most this many. */
const EARLY_REPORT_MS = 60_000;
const EARLY_REPORT_MAX = 1_000;

export class SmsBackup {
  private readonly stopReports: () => void;
  private readonly pending = new Set<Promise<void>>();
  // A gateway may confirm delivery before it has answered our submit (SMPP receipts can overtake
  // the submit_sm_resp we are still waiting on): such a receipt waits here for its call.
  private readonly earlyReports = new Map<string, { report: DeliveryReport; at: number }>();
  private stopping = false;
  /** Wakes the SMS waiting to be tried again, at stop. */
  private readonly wake = new Set<() => void>();

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
    const request = { to: call.phone ?? account.phone, text: buildSmsText(messages, { maxParts: this.deps.maxParts }), reference: claimed[0]! };
    const result = await this.sendWithin(request, claimed);
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

  /**
   * Sends, and while the gateway certainly took nothing (down, restarting), tries again within the
   * retry window: an alert is still sent once, and a gateway back within minutes still sends it.
   * The SMS stays `sending` meanwhile (a restart then marks it failed, as for any claim it left).
   */
  private async sendWithin(request: SmsRequest, claimed: readonly string[]): Promise<SmsResult> {
    const { sender, now, logger, progress, writes } = this.deps;
    const until = now() + (this.deps.retryWindowMs ?? 0);
    let result = await sender.send(request);
    for (
      let pause = this.deps.retryFirstMs ?? 2_000;
      result.status === 'failed' && result.notSent && !this.stopping && now() + pause < until;
      pause = Math.min(pause * 2, RETRY_MOST_MS)
    ) {
      logger.warn('the SMS gateway took nothing; the SMS is tried again', { call_id: claimed[0], in_ms: pause, error: result.error });
      for (const id of claimed)
        void writes
          .write(`sms ${id} waits`, () => progress.note(id, 'sms_waiting', result.status === 'failed' ? result.error : undefined), { lazy: true })
          .catch(() => {});
      await this.pause(pause);
      if (this.stopping) return { status: 'failed', error: `ringhook stopped while the SMS gateway was not taking messages (${result.error})` };
      result = await sender.send(request);
    }
    return result;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake.add(done);
    });
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
    this.stopping = true;
    for (const wake of [...this.wake]) wake();
    await Promise.allSettled([...this.pending]);
    this.stopReports();
  }
}
