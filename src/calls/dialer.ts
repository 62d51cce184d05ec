// Turns queued alerts into phone calls: what the rest of ringhook sees of call control. The state
// of the calls and the operations on it are the call desk's (call-desk.ts); here Asterisk's events
// and its connection are wired to the desk and the flow (call-flow.ts), the store is looked at
// regularly, and recovery runs at start, after a reconnect, for a dead node and at stop
// (call-recovery.ts).
import type { CallForDialing } from '../core/records.js';
import { callReason } from '../core/reasons.js';
import type { AriEvent } from '../pbx/ari.js';
import { CallDesk } from './call-desk.js';
import { CallFlow } from './call-flow.js';
import { endAtStop, interrupt, reconcile, reconcileAfterReconnect, recoverAtStart } from './call-recovery.js';
import type { DialerOptions } from './dialer-options.js';
import type { JustQueued } from './waiting-alerts.js';

/** The regular look at the store waits at least this many times what the last one took, */
const POLL_COST_RATIO = 50;
/** and never longer than this: a look slowed by a lock or a slow network must not park queued calls for minutes. */
const POLL_MAX_GAP_MS = 2_000;

export class Dialer {
  private readonly desk: CallDesk;
  private readonly flow: CallFlow;
  private pollTimer: NodeJS.Timeout | undefined;
  private polling = false;
  private storeDown = false;
  private readonly onAriEvent = (e: AriEvent) => this.flow.route(e);
  // After a reconnect, the calls of before the drop are reconciled first, and only then are queued
  // calls dialed: a call dialed now has no channel yet and must not be taken for one that vanished.
  private readonly onConnected = ({ reconnect }: { reconnect: boolean }) =>
    reconnect ? void reconcileAfterReconnect(this.desk, this.flow) : this.desk.pump();

  constructor(options: DialerOptions) {
    this.desk = new CallDesk(options);
    this.flow = new CallFlow(this.desk);
  }

  get activeCalls(): number {
    return this.desk.sessions.size;
  }

  get queuedCalls(): number {
    return this.desk.queue.length;
  }

  /** Recovers what a previous process left, then starts dialing. */
  async start(): Promise<void> {
    const { ari, logger, pollMs } = this.desk.settings;
    ari.on('event', this.onAriEvent);
    ari.on('connected', this.onConnected);
    try {
      await recoverAtStart(this.desk);
    } catch (error) {
      logger.error('could not read the calls left in progress; they are looked at again shortly', { error });
    }
    this.schedulePoll(pollMs);
    this.desk.pump();
  }

  /**
   * A call was accepted (by the webhook or a test call, which hand over what they read: it is not
   * read again; or found queued in the store): dial it as soon as a line is free.
   */
  enqueue(callId: string, queued?: JustQueued): void {
    this.desk.enqueue(callId, queued);
  }

  /** Calls of a node that stopped answering (several nodes share the store): ended interrupted here. */
  endAbandoned(calls: readonly CallForDialing[], nodeId: string): void {
    interrupt(
      this.desk,
      calls,
      callReason('node_stopped', { node: nodeId }, `the ringhook node ${nodeId} stopped answering during the call`),
    );
  }

  /** Stops taking calls; lets active calls end by themselves up to graceMs, then hangs them up. */
  async stop(graceMs = 10_000): Promise<void> {
    this.desk.stop();
    clearTimeout(this.pollTimer);
    await endAtStop(this.desk, graceMs);
    const { ari } = this.desk.settings;
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
    const { pollMs, logger } = this.desk.settings;
    let gapMs = pollMs;
    try {
      await reconcile(this.desk);
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
