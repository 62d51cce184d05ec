// Turns queued alerts into phone calls: what the rest of ringhook sees of call control. The state
// of the calls and the operations on it are the call desk's (call-desk.ts); here Asterisk's events
// and its connection are wired to the desk, the store is looked at regularly, and recovery runs at
// start, after a reconnect, for a dead node and at stop (call-recovery.ts, through the desk).
import type { CallForDialing } from '../core/records.js';
import { callReason } from '../core/reasons.js';
import type { AriEvent } from '../pbx/index.js';
import { CallDesk } from './call-desk.js';
import { type DialerOptions, type DialerSettings, withDefaults } from './dialer-options.js';
import type { JustQueued } from './waiting-alerts.js';
import { RELEASE_EVERY_MS } from './quiet-hours.js';

/** The regular look at the store waits at least this many times what the last one took, */
const POLL_COST_RATIO = 50;
/** and never longer than this: a look slowed by a lock or a slow network must not park queued calls for minutes. */
const POLL_MAX_GAP_MS = 2_000;

export class Dialer {
  private readonly settings: DialerSettings;
  private readonly desk: CallDesk;
  private pollTimer: NodeJS.Timeout | undefined;
  private polling = false;
  private storeDown = false;
  private releasedAt = Number.NEGATIVE_INFINITY;
  private readonly onAriEvent = (e: AriEvent) => this.desk.route(e);
  // After a reconnect, the calls of before the drop are reconciled first, and only then are queued
  // calls dialed: a call dialed now has no channel yet and must not be taken for one that vanished.
  private readonly onConnected = ({ reconnect }: { reconnect: boolean }) =>
    reconnect ? void this.desk.reconcileAfterReconnect() : this.desk.pump();

  constructor(options: DialerOptions) {
    this.settings = withDefaults(options);
    this.desk = new CallDesk(this.settings);
  }

  get activeCalls(): number {
    return this.desk.activeCalls;
  }

  get queuedCalls(): number {
    return this.desk.queuedCalls;
  }

  /** Recovers what a previous process left, then starts dialing. */
  async start(): Promise<void> {
    const { ari, logger, pollMs } = this.settings;
    ari.on('event', this.onAriEvent);
    ari.on('connected', this.onConnected);
    try {
      await this.desk.recoverAtStart();
    } catch (error) {
      logger.error('could not read the calls left in progress; they are looked at again shortly', { error });
    }
    this.schedulePoll(pollMs);
    this.desk.pump();
  }

  /**
   * A call was accepted: the alert just queued with the account it was read with (by the webhook
   * or a test call: not read again), or the id of one found queued in the store. Dialed as soon as
   * a line is free.
   */
  enqueue(alert: string | JustQueued): void {
    this.desk.enqueue(alert);
  }

  /** Calls of a node that stopped answering (several nodes share the store): ended interrupted here. */
  endAbandoned(calls: readonly CallForDialing[], nodeId: string): void {
    this.desk.interrupt(
      calls,
      callReason('node_stopped', { node: nodeId }, `the ringhook node ${nodeId} stopped answering during the call`),
    );
  }

  /** Stops taking calls; lets active calls end by themselves up to graceMs, then hangs them up. */
  async stop(graceMs = 10_000): Promise<void> {
    this.desk.stop();
    clearTimeout(this.pollTimer);
    await this.desk.endAtStop(graceMs);
    const { ari } = this.settings;
    ari.off('event', this.onAriEvent);
    ari.off('connected', this.onConnected);
  }

  private schedulePoll(ms: number): void {
    if (this.desk.isStopping) return;
    this.pollTimer = setTimeout(() => void this.poll(), ms);
    this.pollTimer.unref();
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    const started = performance.now();
    const { pollMs, logger } = this.settings;
    let gapMs = pollMs;
    try {
      await this.desk.reconcile();
      if (this.settings.now() - this.releasedAt >= RELEASE_EVERY_MS) {
        this.releasedAt = this.settings.now();
        await this.desk.releaseHeld();
      }
      if (this.storeDown) logger.info('the store answers again: calls are looked at again');
      this.storeDown = false;
      gapMs = Math.min(POLL_MAX_GAP_MS, Math.max(pollMs, (performance.now() - started) * POLL_COST_RATIO));
    } catch (error) {
      // Said once, not at every look (4 a second) while the store is down.
      if (!this.storeDown) logger.warn('could not look at the calls in the store; trying again', { error });
      this.storeDown = true;
    } finally {
      this.polling = false;
      // A safety net: with a thousand calls in flight its look costs milliseconds, so it is spaced
      // out to keep it under ~2 % of the loop's time (a failed look is simply tried again).
      this.schedulePoll(gapMs);
    }
  }
}
