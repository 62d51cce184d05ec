// The SMS backup's courier: hands an SMS claimed for its alerts to the gateway by the end of its
// window, tries again while the gateway certainly took nothing (down, restarting), and records what
// became of it, its delivery receipts included. Whether an SMS is owed, and claiming it, is the
// SMS backup's (backup.ts); the courier is told only whether a waiting SMS is still wanted.
import type { CallChange } from '../core/calls/call-events.js';
import { SMS_NOT_SENT } from '../core/reasons.js';
import type { ServiceDeps, Store } from '../store/index.js';
import type { DeliveryReport, SmsRequest, SmsResult, SmsSender } from './types.js';

/** An SMS claimed for its alerts (its text holds their messages), to be handed to the gateway by the end of its window. */
export interface ClaimedSms {
  userId: string;
  to: string;
  text: string;
  claimed: readonly string[];
  until: number;
  /** Whether its result looks for status-callback events (as CallStepWrite's): false, the account has no callback URL. */
  callbacks?: boolean | undefined;
}

/** What the courier is handed by the SMS backup (see SmsBackupDeps for each). */
export interface CourierDeps extends Omit<ServiceDeps, 'store'> {
  store: Pick<Store, 'sms' | 'writes'>;
  sender: SmsSender;
  retryFirstMs?: number | undefined;
  onResult?: ((result: 'sent' | 'failed' | 'delivered' | 'undelivered') => void) | undefined;
  /**
   * Whether the owner still wants an SMS that waited for the gateway: SMS backup may have been turned
   * off, or the account suspended, meanwhile (read again before each try, as it can change).
   */
  stillWanted: (userId: string) => Promise<boolean>;
}

/** Pauses between the tries of an SMS the gateway did not take: doubled from the first, up to this. */
const RETRY_MOST_MS = 30_000;

/** Receipts that came before send() returned the message id are kept this long, at most this many. */
const EARLY_REPORT_MS = 60_000;
const EARLY_REPORT_MAX = 1_000;

export class SmsCourier {
  private readonly stopReports: () => void;
  // A gateway may confirm delivery before it has answered our submit (SMPP receipts can overtake
  // the submit_sm_resp we are still waiting on): such a receipt waits here for its call.
  private readonly earlyReports = new Map<string, { report: DeliveryReport; at: number }>();
  private stopping = false;
  /** Wakes the SMS waiting to be tried again, at stop. */
  private readonly wake = new Set<() => void>();

  constructor(private readonly deps: CourierDeps) {
    this.stopReports = deps.sender.onDeliveryReport((report) => this.onDeliveryReport(report));
  }

  /** Sends the claimed alerts' SMS and records what became of it; `waiting`: it waits for the gateway now. */
  async deliver(sms: ClaimedSms, status: CallChange['status'], waiting: boolean): Promise<void> {
    const { sms: smsStore, writes } = this.deps.store;
    // Its reference is the first claimed alert's.
    const result = await this.sendWithin(sms, { to: sms.to, text: sms.text, reference: sms.claimed[0]! }, waiting);
    if (result === 'left waiting') return;
    let outboxed = 0;
    if (result.status === 'sent') {
      for (const id of sms.claimed)
        outboxed += await writes.write(`sms ${id} sent`, () =>
          smsStore.setSmsResult(
            id,
            { status: 'sent', messageId: result.messageId, parts: result.parts },
            sms.callbacks,
          ),
        );
      const early = result.messageId ? this.earlyReports.get(result.messageId) : undefined;
      if (early) {
        this.earlyReports.delete(result.messageId!);
        this.onDeliveryReport(early.report);
      }
    } else {
      for (const id of sms.claimed)
        outboxed += await writes.write(`sms ${id} failed`, () =>
          smsStore.setSmsResult(id, { status: 'failed', error: result.error }, sms.callbacks),
        );
    }
    this.logResult(sms, result);
    this.deps.onResult?.(result.status);
    for (const id of sms.claimed)
      this.deps.events.emit({
        callId: id,
        userId: sms.userId,
        status,
        at: this.deps.now(),
        ...(outboxed > 0 && { outboxed: true }),
      });
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
  private async sendWithin(
    sms: ClaimedSms,
    request: SmsRequest,
    waiting: boolean,
  ): Promise<SmsResult | 'left waiting'> {
    const { sender, now, logger } = this.deps;
    const { sms: smsStore, writes } = this.deps.store;
    const { claimed } = sms;
    for (let pause = this.deps.retryFirstMs ?? 2_000; ; pause = Math.min(pause * 2, RETRY_MOST_MS)) {
      if (waiting) {
        if (this.stopping) return 'left waiting';
        // The owner may have turned SMS backup off, or the account been suspended, meanwhile.
        if (!(await this.deps.stillWanted(sms.userId))) return { status: 'failed', error: SMS_NOT_SENT.turnedOff };
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
      const result = await sender.send(request);
      if (result.status === 'sent' || !result.notSent || now() + pause >= sms.until) return result;
      logger.warn('the SMS gateway took nothing; the SMS is tried again', {
        call_id: claimed[0],
        in_ms: pause,
        error: result.error,
      });
      const waits = await writes
        .write(`sms ${claimed[0]} waits`, () => smsStore.smsWaits(claimed, result.error))
        .catch((error: unknown) => {
          // Not recorded as waiting, so not waited for: the failed try is this SMS's result.
          logger.debug('an SMS could not be recorded as waiting for the gateway', { call_id: claimed[0], error });
          return false;
        });
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
            this.deps.events.emit({
              callId: call.callId,
              userId: call.userId,
              status: 'sms',
              at: this.deps.now(),
              outboxed: true,
            }),
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
  /** At stop: the SMS waiting to be tried again stop waiting (a waiting SMS is left for the next start); no more receipts. */
  stop(): void {
    this.stopping = true;
    for (const wake of [...this.wake]) wake();
  }

  /** Once nothing is being handed over any more. */
  close(): void {
    this.stopReports();
  }
}
