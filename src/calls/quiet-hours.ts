// Quiet hours at the claim (#41): an alert about to be dialed while its account is quiet is held
// in the store until they end (released by whichever node is alive: release.ts), or ended
// `sms_instead` so that the SMS backup sends it in place of the call. The webhook's answer said so
// from the same decision (core/delivery/quiet-delivery).
import type { Account } from '../core/account.js';
import { decideDelivery } from '../core/delivery/quiet-delivery.js';
import type { CallForDialing } from '../core/records.js';
import type { CallLedger } from './call-ledger.js';
import type { DialerSettings } from './dialer-options.js';
import type { JustQueued } from './waiting-alerts.js';
import { nextTurn } from '../lib/sleep.js';

export interface QuietDesk {
  readonly settings: Pick<DialerSettings, 'store' | 'now' | 'sendsSms' | 'logger' | 'events'>;
  readonly ledger: Pick<CallLedger, 'end'>;
}

/** True when the alerts are not to be called now (held, or their SMS sent instead). */
export async function keptQuiet(desk: QuietDesk, calls: readonly CallForDialing[], account: Account): Promise<boolean> {
  const { store, now, sendsSms, logger, events } = desk.settings;
  // A test call is asked for now, by the owner or the admin: it rings whatever the hour.
  if (calls.every((c) => c.kind === 'test')) return false;
  const delivery = decideDelivery(account, now(), { gateway: sendsSms, smsBackup: account.smsBackup });
  if (delivery.delivery === 'call') return false;
  if (delivery.delivery === 'sms') {
    // The SMS goes to the account's phone: the history names it, as it names a called one.
    desk.ledger.end(calls, {
      state: 'sms_instead',
      fields: { endedAt: now(), phone: account.phone },
      detail: 'quiet hours: the SMS instead of the call',
      phone: account.phone,
    });
    return true;
  }
  const until = new Date(delivery.until).toISOString();
  const ids = calls.map((c) => c.callId);
  const held = await store.writes.write(`hold ${ids[0]}`, () =>
    store.held.hold(ids, delivery.until, `quiet hours: called when they end (${until})`),
  );
  for (const callId of held) events.emit({ callId, userId: account.userId, status: 'held', at: now() });
  logger.info('alerts held for quiet hours', { call_id: ids[0], user_id: account.userId, held: held.length, until });
  return true;
}

/** How often a node looks for held alerts whose quiet hours ended. */
export const RELEASE_EVERY_MS = 1_000;

/**
 * Held alerts released in one transaction at most: SQLite's writes run in the event loop's thread
 * (200 took up to 60 ms of CPU in a turn, the first ones reading cold pages: #51).
 */
export const RELEASE_SLICE = 100;

export interface ReleaseDeps {
  readonly settings: Pick<DialerSettings, 'store' | 'now' | 'logger' | 'events'>;
}

/**
 * One account's released alerts, for the desk to queue (call-desk.ts): together, with the account
 * read once; or, the account gone, each alone (it takes its turn and is ended there: waiting-alerts).
 */
export type ReleasedBatch = { together: JustQueued[] } | { alone: string[] };

/**
 * A released alert as the release keeps it until it is queued, its account filled in once read: a
 * night's 10,000 rows are not kept whole, and each alert is one object from its release to the queue.
 */
interface Released extends Omit<JustQueued, 'account'> {
  account: Account | undefined;
}

/**
 * Held alerts whose quiet hours ended: released in the store (exactly one node takes each) slice
 * by slice, a turn of the event loop apart, then handed to the desk to queue together, each
 * account's as one call, read with the account once (the desk queues one before the next account is read). Of each row only what its queueing needs is kept: the objects
 * a batch keeps alive are what each young-generation collection copies (#51).
 */
export async function* releaseHeld(desk: ReleaseDeps): AsyncGenerator<ReleasedBatch, number> {
  const { store, now, logger, events } = desk.settings;
  const byAccount = new Map<string, Released[]>();
  let count = 0;
  for (;;) {
    const slice = await store.held.releaseDue(now(), RELEASE_SLICE);
    for (const { callId, userId, kind, message } of slice) {
      const released = byAccount.get(userId);
      const alert: Released = { callId, kind, message, account: undefined, held: true };
      if (released) released.push(alert);
      else byAccount.set(userId, [alert]);
    }
    count += slice.length;
    if (slice.length < RELEASE_SLICE) break;
    await nextTurn();
  }
  for (const [userId, calls] of byAccount) {
    const account = await store.accounts.get(userId);
    for (let i = 0; i < calls.length; i++) {
      if (i > 0 && i % RELEASE_SLICE === 0) await nextTurn();
      events.emit({ callId: calls[i]!.callId, userId, status: 'queued', at: now() });
    }
    logger.info('held alerts released: quiet hours ended', {
      user_id: userId,
      call_id: calls[0]!.callId,
      held: calls.length,
    });
    if (!account) yield { alone: calls.map((call) => call.callId) };
    else yield { together: calls.map((alert) => withAccount(alert, account)) };
  }
  return count;
}

function withAccount(alert: Released, account: Account): JustQueued {
  alert.account = account;
  return alert as JustQueued;
}
