// The store's part for status callbacks: the account's settings (its secrets sealed like the
// api_keys) and the outbox every node sends from, each delivery claimed by one node at a time.
import type {
  CallbackDelivery,
  CallbackSettings,
  DeliveryAttempt,
  NewDelivery,
} from '../../core/callbacks/callback-records.js';

type Awaitable<T> = T | Promise<T>;

export interface CallbackRepo {
  /** Undefined: the account never had callbacks. */
  settings(userId: string): Awaitable<CallbackSettings | undefined>;
  /** Sets the URL (null: off) and clears an off note; `secret`, when given, replaces every secret. */
  configure(userId: string, change: { url: string | null; secret?: string }): Awaitable<void>;
  /** The new secret signs from now on; the current one too until `previousUntil`. False: no secret to rotate. */
  rotate(userId: string, secret: string, previousUntil: number): Awaitable<boolean>;
  /** ringhook turns the callback off (the receiver answered 410): the URL cleared, the note kept, its waiting deliveries `gone`. */
  turnOff(userId: string, note: string, at: number): Awaitable<void>;
  /** False when a delivery with the same event key exists (the event was made before). */
  enqueue(delivery: NewDelivery): Awaitable<boolean>;
  /** Keeps a delivery already sent outside the outbox (`callbacks test`), settled as `attempt` says. */
  keepSent(delivery: NewDelivery, attempt: DeliveryAttempt): Awaitable<void>;
  /**
   * Claims up to `limit` deliveries due at `now` (pending, or sending with its lease ended) for
   * `claim` until `leaseUntil`, each only when every earlier one of its call is settled, and no more
   * of an account's than bring its deliveries being sent (by any node) to `perAccount`: each
   * account's oldest first, the accounts' first ones before any account's second.
   */
  claimDue(
    claim: string,
    now: number,
    leaseUntil: number,
    limit: number,
    perAccount: number,
  ): Awaitable<CallbackDelivery[]>;
  /** The account's waiting deliveries are not due before `until` (its receiver gave no answer). */
  holdAccount(userId: string, until: number): Awaitable<void>;
  /** Records a try of a delivery this claim holds; false when the claim was lost (another node took it over). */
  record(id: number, claim: string, attempt: DeliveryAttempt): Awaitable<boolean>;
  /** The account's last deliveries, newest first. */
  recent(userId: string, limit: number): Awaitable<CallbackDelivery[]>;
}
