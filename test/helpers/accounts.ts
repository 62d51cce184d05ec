// One way for tests to make an account: the usual one (a premium plan, no SMS backup, the test
// phone) unless a test says otherwise.
import type { Account } from '../../src/core/account.js';
import type { AccountStore, NewAccount } from '../../src/db/accounts.js';

export const TEST_PHONE = '+14155550123';

export function createAccount(accounts: Pick<AccountStore, 'create'>, overrides: Partial<NewAccount> = {}): Account {
  return accounts.create({ phone: TEST_PHONE, plan: 'premium', smsBackup: false, name: '', ...overrides });
}
