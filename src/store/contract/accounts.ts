// The accounts: created by the admin CLI, read by the webhook to authenticate an alert.
import type { Account } from '../../core/account.js';
import type { AccountChanges, NewAccount } from '../../core/records.js';
import type { Awaitable } from './awaitable.js';

export interface AccountRepo {
  create(input: NewAccount): Awaitable<Account>;
  get(userId: string): Awaitable<Account | undefined>;
  list(): Awaitable<Account[]>;
  /** How many accounts there are, without reading (or unsealing) any. */
  count(): Awaitable<number>;
  /** The languages at least one account speaks in. */
  languagesInUse(): Awaitable<string[]>;
  update(userId: string, changes: AccountChanges): Awaitable<Account | undefined>;
  regenerateKey(userId: string): Awaitable<Account | undefined>;
  /** The backup person at `phone` pressed 1 in their verification call: verified, if it is still the account's pending backup number (true). */
  verifyBackupPhone(userId: string, phone: string): Awaitable<boolean>;
  /** Whether `pin` is the account's decision PIN (#56; false when none is set): compared with its scrypt hash, never read out. */
  verifyDecisionPin(userId: string, pin: string): Promise<boolean>;
  regenerateAllKeys(): Awaitable<Account[]>;
  delete(userId: string): Awaitable<boolean>;
  /** The account the webhook credentials belong to; a wrong key and an unknown user_id cost the same. */
  authenticate(userId: string, apiKey: string): Awaitable<Account | undefined>;
}
