// Sends the outbox: every node claims the deliveries that are due (the store gives each to one
// node at a time, a call's events one after another, each account's oldest first and at most a few
// of an account's at once), posts them signed, and records the answer: 2xx delivered, 410 turns the
// account's callback off, anything else is tried again with backoff and jitter until a day has
// passed (core/callbacks/callback-retry); a try with no answer holds the account's other deliveries as long.
// Each delivery is settled on its own: a free slot is filled at once, never after a whole batch, so
// a receiver that takes the whole try's time to fail delays only its own account.
import { randomBytes } from 'node:crypto';
import {
  CALLBACK_SENDING,
  CALLBACK_TIMEOUT_MS,
  callbackVerdict,
  nextCallbackAttempt,
  receiverHoldUntil,
} from '../core/callbacks/callback-retry.js';
import type { CallbackDelivery, DeliveryAttempt } from '../core/callbacks/callback-records.js';
import type { AddressMatcher } from '../core/connections/address-match.js';
import { type CallbackRepo, isStoreUnavailable } from '../store/index.js';
import type { Logger } from '../lib/log.js';
import type { PostResult } from './https-post.js';
import type { ResolveName } from './resolve-name.js';
import { sendSigned } from './send.js';

export interface SenderDeps {
  store: CallbackRepo;
  logger: Logger;
  now: () => number;
  allow: AddressMatcher;
  nodeId: string;
  /** How often the outbox is looked at when nothing woke the sender. */
  pollMs?: number;
  timeoutMs?: number;
  ca?: string | undefined;
  resolve?: ResolveName | undefined;
  random?: () => number;
}

/** A claim outlives one try's timeout: a node that died mid-send leaves its deliveries to others after it. */
const LEASE_MARGIN_MS = 20_000;

export class CallbackSender {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly sending = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(private readonly deps: SenderDeps) {}

  start(): void {
    this.schedule();
  }

  /** Looks at the outbox now (a delivery was just added). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.round().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.stopping.abort();
    await this.running;
    await Promise.all([...this.sending]);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.wake();
      this.schedule();
    }, this.deps.pollMs ?? 1_000);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    const { store, logger, now } = this.deps;
    const claim = `${this.deps.nodeId}:${randomBytes(6).toString('hex')}`;
    const timeoutMs = this.deps.timeoutMs ?? CALLBACK_TIMEOUT_MS;
    const free = CALLBACK_SENDING.perNode - this.sending.size;
    if (free <= 0) return;
    let due: CallbackDelivery[];
    try {
      due = await store.claimDue(claim, now(), now() + timeoutMs + LEASE_MARGIN_MS, free, CALLBACK_SENDING.perAccount);
    } catch (error) {
      // A store that is down is said once by the node's heartbeat (or the dialer's look); here it only waits.
      if (isStoreUnavailable(error))
        logger.debug('callback outbox not reachable; trying again', { error: error as Error });
      else logger.error('could not read the callback outbox', { error: error as Error });
      return;
    }
    for (const delivery of due) {
      // Settled: its slot is free, and a call's next event (or the account's next) may be due.
      const sending: Promise<void> = this.deliver(delivery, claim, timeoutMs).finally(() => {
        this.sending.delete(sending);
        this.wake();
      });
      this.sending.add(sending);
    }
  }

  private async deliver(delivery: CallbackDelivery, claim: string, timeoutMs: number): Promise<void> {
    const { store, logger, now } = this.deps;
    try {
      const settings = await store.settings(delivery.userId);
      if (!settings?.url || settings.secrets.length === 0) {
        await this.record(delivery, claim, { status: 'gone', error: 'not sent: the callback is off' }, null);
        return;
      }
      const result = await sendSigned(
        {
          url: settings.url,
          secrets: settings.secrets,
          messageId: delivery.messageId,
          body: delivery.body,
          now: now(),
        },
        {
          allow: this.deps.allow,
          timeoutMs,
          ca: this.deps.ca,
          resolve: this.deps.resolve,
          signal: this.stopping.signal,
        },
      );
      await this.settle(delivery, claim, result);
    } catch (error) {
      logger.error('could not send a status callback', { message_id: delivery.messageId, error: error as Error });
    }
  }

  private async settle(delivery: CallbackDelivery, claim: string, result: PostResult): Promise<void> {
    const status = result.kind === 'answered' ? result.status : null;
    const error = result.kind === 'answered' ? (status! >= 300 ? `HTTP ${status}` : null) : result.reason;
    const verdict = callbackVerdict(status);
    const fields = { user_id: delivery.userId, message_id: delivery.messageId, type: delivery.type };
    if (verdict === 'delivered') {
      await this.record(delivery, claim, { status: 'delivered', error: null }, status);
      this.deps.logger.info('status callback delivered', {
        ...fields,
        http_status: status,
        attempt: delivery.attempts + 1,
      });
      return;
    }
    if (verdict === 'gone') {
      const at = this.deps.now();
      await this.record(delivery, claim, { status: 'gone', error: 'HTTP 410: the receiver asked for no more' }, status);
      const note = `Callbacks were turned off on ${new Date(at).toISOString()}: the receiver answered 410 Gone. Set the URL again to turn them back on.`;
      await this.deps.store.turnOff(delivery.userId, note, at);
      this.deps.logger.warn('status callbacks turned off: the receiver answered 410', fields);
      return;
    }
    if (this.stopping.signal.aborted && result.kind === 'failed') {
      // Cut by the service's stop, not the receiver's fault: due again at once (after the restart).
      await this.record(delivery, claim, { status: 'pending', error }, status);
      return;
    }
    const next = nextCallbackAttempt({
      failures: delivery.attempts + 1,
      createdAt: delivery.createdAt,
      now: this.deps.now(),
      random: (this.deps.random ?? Math.random)(),
    });
    // Refused by the SSRF rule: not a fault of the moment, but the URL may be fixed within the day.
    const retry = next === null ? { status: 'failed' as const } : { status: 'pending' as const, nextAttemptAt: next };
    // The account's others held first: none is claimed in between (this one is still being sent).
    const holdUntil = receiverHoldUntil(result.kind === 'answered', next);
    if (holdUntil !== null) await this.deps.store.holdAccount(delivery.userId, holdUntil);
    await this.record(delivery, claim, { ...retry, error }, status);
    this.deps.logger.warn(next === null ? 'status callback given up after a day' : 'status callback not delivered', {
      ...fields,
      reason: error,
      attempt: delivery.attempts + 1,
      ...(next !== null && { next_attempt_at: new Date(next).toISOString() }),
    });
  }

  private async record(
    delivery: CallbackDelivery,
    claim: string,
    outcome: { status: DeliveryAttempt['status']; error: string | null; nextAttemptAt?: number },
    httpStatus: number | null,
  ): Promise<void> {
    const at = this.deps.now();
    const kept = await this.deps.store.record(delivery.id, claim, {
      status: outcome.status,
      at,
      nextAttemptAt: outcome.nextAttemptAt ?? at,
      httpStatus,
      error: outcome.error,
    });
    if (!kept)
      this.deps.logger.warn('a status callback was taken over by another node while it was sent', {
        message_id: delivery.messageId,
      });
  }
}
