// One way for tests to make an account: the usual one (a premium plan, no SMS backup, the test
// phone) unless a test says otherwise.
import type { Account } from '../../src/core/account.js';
import type { SqliteAccountStore } from '../../src/store/sqlite/accounts.js';
import type { NewAccount } from '../../src/core/records.js';
import type { AccountRepo, Awaitable } from '../../src/store/contract.js';

export const TEST_PHONE = '+14155550123';

/** With SQLite's own SqliteAccountStore the account at once; with any store's AccountRepo, to await. */
export function createAccount(accounts: Pick<SqliteAccountStore, 'create'>, overrides?: Partial<NewAccount>): Account;
export function createAccount(
  accounts: Pick<AccountRepo, 'create'>,
  overrides?: Partial<NewAccount>,
): Awaitable<Account>;
export function createAccount(
  accounts: Pick<AccountRepo, 'create'>,
  overrides: Partial<NewAccount> = {},
): Awaitable<Account> {
  return accounts.create({ phone: TEST_PHONE, plan: 'premium', smsBackup: false, name: '', ...overrides });
}
