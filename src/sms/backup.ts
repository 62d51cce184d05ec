// The SMS backup: after a call ends unanswered (or never got placed), and when the account has
// SMS backup on, the alert goes out as one SMS. Claimed in the database first, so it is sent at
// most once per alert, even across a crash.
import { isFinal } from '../core/call-state.js';
import { decideSms, groupByCarrier, smsOffReason } from '../core/sms-decision.js';
import type { LeftSms } from '../core/records.js';
import type { Store } from '../store/contract/index.js';
import type { ServiceDeps } from '../store/deps.js';
import type { CallChange } from '../core/call-events.js';
import type { FinalCall } from '../calls/index.js';
import { buildSmsText } from './text.js';
import type { DeliveryReport, SmsRequest, SmsResult, SmsSender } from './types.js';
import { SMS_NOT_SENT } from '../core/reasons.js';

export interface SmsBackupDeps extends Omit<ServiceDeps, 'store'> {
  /**
   * The calls' SMS backup, the accounts, and the ordered writes records go through (after the call's
   * own steps, without blocking on a locked database).
   */
  store: Pick<Store, 'sms' | 'writes' | 'accounts'>;
  sender: SmsSender;
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

/** An SMS claimed for its alerts, to be handed to the gateway by the end of its window. */
interface ClaimedSms {
  userId: string;
  request: SmsRequest;
  claimed: readonly string[];
  until: number;
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

  /** At start: settles what the process before this one left (see settleLeft). */
  async recover(): Promise<void> {
    const { now } = this.deps;
    const { sms: smsStore } = this.deps.store;
    // All three are read before any is settled: deciding an ended call's SMS claims it.
    const handingOver = await smsStore.staleSmsClaims();
    const waiting = await smsStore.waitingSmsLeft();
    const ended = await smsStore.endedWithoutSms(now() - this.windowMs);
    await this.settleLeft({ handingOver, waiting, ended });
  }

  /**
   * Settles the SMS a stopped process or a silent node left. One that was being handed to the
   * gateway may or may not have gone: it is not sent again. One waiting for the gateway (it
   * certainly took nothing) is sent now, within its window. A call that ended within that window
   * but whose SMS was never decided (a stop between the two writes) is decided now, as at its end.
   */
  async settleLeft({ handingOver, waiting, ended }: LeftSms): Promise<void> {
    const { now } = this.deps;
    const { sms: smsStore, writes } = this.deps.store;
    // Each ends failed only if it is still as it was left: a node taken for dead may still be sending.
    const fail = (callId: string, from: 'sending' | 'waiting', error: string) =>
      writes.write(`sms ${callId} failed`, () => smsStore.failLeftSms(callId, from, error));
    for (const callId of handingOver) await fail(callId, 'sending', SMS_NOT_SENT.stoppedHandingOver);
    for (const alerts of groupByCarrier(waiting)) {
      const claimed = alerts.map((a) => a.callId);
      const until = Math.min(...alerts.map((a) => a.claimedAt)) + this.windowMs;
      const account = await this.deps.store.accounts.get(alerts[0]!.userId);
      const to = alerts[0]!.phone ?? account?.phone;
      if (now() >= until || !to) {
        const error = to ? SMS_NOT_SENT.tooOld : SMS_NOT_SENT.accountGone;
        for (const id of claimed) await fail(id, 'waiting', error);
        continue;
      }
      const request = this.request(
        to,
        alerts.map((a) => a.message),
        claimed,
      );
      this.track(claimed[0]!, this.deliver({ userId: alerts[0]!.userId, request, claimed, until }, 'sms', true));
    }
    for (const [call, ...carried] of groupByCarrier(ended)) {
      if (!call || !isFinal(call.status)) continue;
      const { callId, userId, message, phone, status: state, endedAt } = call;
      this.afterFinal({
        callId,
        userId,
        message,
        phone,
        state,
        endedAt,
        carried: carried.map((c) => ({ callId: c.callId, message: c.message })),
      });
    }
  }

  /** Called once for each call that reached a final state. */
  afterFinal(call: FinalCall): void {
    this.track(call.callId, this.handle(call));
  }

  private track(callId: string, job: Promise<void>): void {
    const logged = job.catch((error: Error) => this.deps.logger.error('SMS backup failed', { call_id: callId, error }));
    this.pending.add(logged);
    void logged.finally(() => this.pending.delete(logged));
  }

  private async handle(call: FinalCall): Promise<void> {
    const { sms: smsStore, writes } = this.deps.store;
    const { callId, state } = call;
    // A call that carried several alerts is missed (or heard) for all of them: one decision, one SMS.
    const callIds = [callId, ...call.carried.map((c) => c.callId)];
    const account = await this.deps.store.accounts.get(call.userId);
    const gatewayConfigured = this.deps.sender.kind !== 'none';
    const decision = decideSms(state, account, gatewayConfigured);
    if (decision !== 'send' || !account) {
      // A missed call whose SMS did not go says why: no gateway, backup off, suspended.
      const why = decision === 'not_needed' ? undefined : smsOffReason(account, gatewayConfigured);
      for (const id of callIds)
        await writes.write(`sms ${id} ${decision}`, () =>
          smsStore.markSmsSkipped(id, decision === 'not_needed' ? 'not_needed' : 'disabled', why),
        );
      return;
    }
    // Only the alerts claimed here go out: one claimed before (by a process that died, or by another node) is never sent again.
    const claimed: string[] = [];
    for (const id of callIds) if (await writes.write(`sms ${id} claim`, () => smsStore.claimSms(id))) claimed.push(id);
    if (claimed.length === 0) return;
    const messages = [call.message, ...call.carried.map((c) => c.message)].filter((_, i) =>
      claimed.includes(callIds[i]!),
    );
    // To the number that was called; an alert never dialed goes to the account's number.
    const request = this.request(call.phone ?? account.phone, messages, claimed);
    const until = (call.endedAt ?? this.deps.now()) + this.windowMs;
    await this.deliver({ userId: call.userId, request, claimed, until }, state, false);
  }

  /** One SMS for the claimed alerts' messages; its reference is the first alert's. */
  private request(to: string, messages: readonly string[], claimed: readonly string[]): SmsRequest {
    return { to, text: buildSmsText(messages, { maxParts: this.deps.maxParts }), reference: claimed[0]! };
  }

  /** How long after its call's end (or its claim) an SMS may still go out. */
  private get windowMs(): number {
    return this.deps.retryWindowMs ?? 0;
  }

  /** Sends the claimed alerts' SMS and records what became of it; `waiting`: it waits for the gateway now. */
  private async deliver(sms: ClaimedSms, status: CallChange['status'], waiting: boolean): Promise<void> {
    const { sms: smsStore, writes } = this.deps.store;
    const result = await this.sendWithin(sms, waiting);
    if (result === 'left waiting') return;
    if (result.status === 'sent') {
      for (const id of sms.claimed)
        await writes.write(`sms ${id} sent`, () =>
          smsStore.setSmsResult(id, { status: 'sent', messageId: result.messageId, parts: result.parts }),
        );
      const early = result.messageId ? this.earlyReports.get(result.messageId) : undefined;
      if (early) {
        this.earlyReports.delete(result.messageId!);
        this.onDeliveryReport(early.report);
      }
    } else {
      for (const id of sms.claimed)
        await writes.write(`sms ${id} failed`, () =>
          smsStore.setSmsResult(id, { status: 'failed', error: result.error }),
        );
    }
    this.logResult(sms, result);
    this.deps.onResult?.(result.status);
    for (const id of sms.claimed)
      this.deps.events.emit({ callId: id, userId: sms.userId, status, at: this.deps.now() });
  }

  /** One line per SMS at info: sent (its parts and the gateway's id) or refused (why); never its text nor the number. */
  private logResult(sms: ClaimedSms, result: SmsResult): void {
    const [callId, ...carried] = sms.claimed;
    const fields = { call_id: callId, user_id: sms.userId, ...(carried.length > 0 && { carried }) };
    if (result.status === 'sent')
      this.deps.logger.info('SMS sent', { ...fields, parts: result.parts, message_id: result.messageId });
    else this.deps.logger.info('SMS refused', { ...fields, reason: result.error });
  }

  /**
   * Sends, and while the gateway certainly took nothing (down, restarting), tries again until the
   * SMS's window ends: an alert is still sent once, and a gateway back within minutes still sends it.
   * Between tries the SMS is `waiting`, which a stop leaves as it is for the next start to send;
   * while being handed over it is `sending`, which a restart ends failed (it may have gone).
   */
  private async sendWithin(sms: ClaimedSms, waiting: boolean): Promise<SmsResult | 'left waiting'> {
    const { sender, now, logger } = this.deps;
    const { sms: smsStore, writes } = this.deps.store;
    const { claimed } = sms;
    for (let pause = this.deps.retryFirstMs ?? 2_000; ; pause = Math.min(pause * 2, RETRY_MOST_MS)) {
      if (waiting) {
        if (this.stopping) return 'left waiting';
        // The owner may have turned SMS backup off, or the account been suspended, meanwhile.
        if (decideSms('failed', await this.deps.store.accounts.get(sms.userId), true) !== 'send')
          return { status: 'failed', error: SMS_NOT_SENT.turnedOff };
        const resumed = await writes
          .write(`sms ${claimed[0]} resumes`, () => smsStore.resumeSms(claimed))
          .then(
            (taken) => (taken ? 'taken' : 'moved on'),
            (error: Error) => error,
          );
        if (resumed === 'moved on') return 'left waiting';
        if (resumed instanceof Error) {
          // Still waiting in the store: tried again after the next pause, failed once the window is over.
          const failure = {
            status: 'failed',
            error: `the SMS waited for the gateway, then could not be taken back: ${resumed.message}`,
          } as const;
          if (now() + pause >= sms.until) return failure;
          logger.warn('an SMS waiting for the gateway could not be taken back; tried again', {
            call_id: claimed[0],
            in_ms: pause,
            error: resumed,
          });
          await this.pause(pause);
          continue;
        }
      }
      const result = await sender.send(sms.request);
      if (result.status === 'sent' || !result.notSent || now() + pause >= sms.until) return result;
      logger.warn('the SMS gateway took nothing; the SMS is tried again', {
        call_id: claimed[0],
        in_ms: pause,
        error: result.error,
      });
      const waits = await writes
        .write(`sms ${claimed[0]} waits`, () => smsStore.smsWaits(claimed, result.error))
        .catch(() => false);
      if (!waits) return result;
      waiting = true;
      await this.pause(pause);
    }
  }

  private pause(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
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
    const calls = await this.deps.store.sms.findBySmsMessage(report.messageId);
    if (calls.length === 0) {
      this.keepEarly(report);
      return;
    }
    // A receipt for an SMS settled already (repeated, late, another part's) is not news.
    const sent = calls.filter((call) => call.smsStatus === 'sent');
    if (sent.length === 0) return;
    const result =
      report.status === 'delivered'
        ? ({ status: 'delivered' } as const)
        : ({ status: 'failed', error: `${SMS_NOT_SENT.notDelivered}${report.detail}` } as const);
    this.deps.onResult?.(report.status === 'delivered' ? 'delivered' : 'undelivered');
    this.deps.logger.info(report.status === 'delivered' ? 'SMS delivered' : 'SMS not delivered', {
      call_id: sent[0]!.callId,
      message_id: report.messageId,
      ...(result.status === 'failed' && { reason: result.error }),
    });
    for (const call of sent) {
      void this.deps.store.writes
        .write(`sms ${call.callId} receipt`, () => this.deps.store.sms.recordSmsReceipt(call.callId, result), {
          lazy: true,
        })
        .then(
          (settled) =>
            settled &&
            this.deps.events.emit({ callId: call.callId, userId: call.userId, status: 'sms', at: this.deps.now() }),
          (error: Error) =>
            this.deps.logger.error('could not record an SMS delivery receipt', { call_id: call.callId, error }),
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
