// The SMS backup: after a call ends unanswered (or never got placed), and when the account has
// SMS backup on, the alert goes out as one SMS. Claimed in the database first, so it is sent at
// most once per alert, even across a crash.
import { isFinal } from '../core/calls/call-state.js';
import { decideSms, groupByCarrier, planSms, soonestExpiry, withoutExpired } from '../core/delivery/sms-decision.js';
import { callbacksFlag, type LeftSms } from '../core/records.js';
import type { ServiceDeps, Store } from '../store/index.js';
import type { FinalCall } from '../calls/index.js';
import { SmsCourier } from './courier.js';
import { buildSmsText } from './text.js';
import type { SmsSender } from './types.js';
import { SMS_NOT_SENT } from '../core/reasons.js';
import { withCutMark } from '../core/webhook/payload.js';

/** Alerts a call may carry for its SMS to be planned in the turn it ended. */
const CARRIED_IN_TURN = 200;
/** SMS claims asked for at once (they land in one transaction). */
const CLAIM_SLICE = 200;

/** A turn of the event loop with its timers run first. */
const afterTimers = () => new Promise((resolve) => setTimeout(resolve, 0));

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

export class SmsBackup {
  private readonly pending = new Set<Promise<void>>();
  private readonly courier: SmsCourier;

  constructor(private readonly deps: SmsBackupDeps) {
    const { accounts } = deps.store;
    this.courier = new SmsCourier({
      ...deps,
      stillWanted: async (userId) => decideSms('failed', await accounts.get(userId), true) === 'send',
    });
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
      const cause = alerts[0]!.status === 'sms_instead' ? 'quiet_hours' : 'missed_call';
      const text = buildSmsText(
        alerts.map((a) => withCutMark(a.message, a.messageTruncated)),
        { maxParts: this.deps.maxParts, cause },
      );
      const sms = { userId: alerts[0]!.userId, to, text, claimed, until };
      this.track(claimed[0]!, this.courier.deliver(sms, 'sms', true));
    }
    for (const [call, ...carried] of groupByCarrier(ended)) {
      if (!call || !isFinal(call.status)) continue;
      const { callId, userId, message, messageTruncated, phone, status: state, endedAt } = call;
      this.afterFinal({
        callId,
        userId,
        message: withCutMark(message, messageTruncated),
        phone,
        state,
        endedAt,
        carried: carried.map((c) => ({ callId: c.callId, message: withCutMark(c.message, c.messageTruncated) })),
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

  /**
   * The call's SMS backup in steps: the account as read with the call, the SMS decided once in core (none, and
   * why; or to whom), the alerts claimed, and the claimed alerts' SMS handed to the courier.
   */
  private async handle(call: FinalCall): Promise<void> {
    // A call that carried a quiet-hours batch (thousands) ended in a turn already long: its SMS is
    // planned in the next, after the timers (#51). Its end comes from Asterisk's socket, and an
    // immediate set from an I/O callback runs before the loop's timers, so that the two were one stretch.
    const batch = call.carried.length > CARRIED_IN_TURN;
    if (batch) await afterTimers();
    const { sms: smsStore, writes, accounts } = this.deps.store;
    // The backup person's verification call: no SMS to a number that has not agreed to anything.
    if (call.verification) {
      await writes.write(`sms ${call.callId} not_needed`, () => smsStore.markSmsSkipped(call.callId, 'not_needed'));
      return;
    }
    // An alert past its own expiry (its sender's expires_in) gets no SMS, alone or carried.
    const { expired, live } = withoutExpired(call, this.deps.now());
    for (const id of expired)
      await writes.write(`sms ${id} disabled`, () => smsStore.markSmsSkipped(id, 'disabled', SMS_NOT_SENT.expired));
    if (!live) return;
    // Read with the call (#55); read here only for an end handed on without it (an older caller).
    const account = call.account !== undefined ? (call.account ?? undefined) : await accounts.get(call.userId);
    if (batch) await afterTimers();
    const plan = planSms(live, account, this.deps.sender.kind !== 'none');
    if (!plan.send) {
      for (const id of plan.callIds)
        await writes.write(`sms ${id} ${plan.status}`, () => smsStore.markSmsSkipped(id, plan.status, plan.why));
      return;
    }
    // Only the alerts claimed here go out: one claimed before (by a process that died, or by another node) is never sent again.
    // Asked for CLAIM_SLICE at a time, they land together (one by one, a batch's 10,000 claims were
    // 10,000 transactions, its SMS sent 15 s after the call).
    const claimed: string[] = [];
    const messages: string[] = [];
    for (let i = 0; i < plan.callIds.length; i += CLAIM_SLICE) {
      const ids = plan.callIds.slice(i, i + CLAIM_SLICE);
      const landed = await Promise.all(ids.map((id) => writes.write(`sms ${id} claim`, () => smsStore.claimSms(id))));
      landed.forEach((took, j) => {
        if (!took) return;
        claimed.push(ids[j]!);
        messages.push(plan.messages[i + j]!);
      });
    }
    if (claimed.length === 0) return;
    if (batch) await afterTimers();
    const until = Math.min((call.endedAt ?? this.deps.now()) + this.windowMs, soonestExpiry(live) ?? Infinity);
    const cause = call.state === 'sms_instead' ? 'quiet_hours' : 'missed_call';
    const text = buildSmsText(messages, { maxParts: this.deps.maxParts, cause });
    const callbacks = callbacksFlag(call.account);
    await this.courier.deliver(
      { userId: call.userId, to: plan.to, text, claimed, until, callbacks },
      call.state,
      false,
    );
  }

  /** How long after its call's end (or its claim) an SMS may still go out. */
  private get windowMs(): number {
    return this.deps.retryWindowMs ?? 0;
  }

  /** Waits for SMS being handed over right now (graceful shutdown). */
  async drain(): Promise<void> {
    this.courier.stop();
    await Promise.allSettled([...this.pending]);
    this.courier.close();
  }
}
