// The backup person's verification call (#54, core/calls/backup-person): queued in the store beside serve
// (the CLI) for serve's dialer to place at the backup number, like a test call (its own small limits,
// not the monthly allowance). Their 1 makes the number `verified` (telephony.ts, at the call's end).
import type { Account } from '../core/account.js';
import { verificationMessage } from '../core/calls/backup-person.js';
import type { TestCallResult } from '../core/calls/test-call.js';
import type { CallRepo } from '../store/index.js';
import { requestTestCall } from './queue-test-call.js';

export async function requestVerificationCall(
  calls: Pick<CallRepo, 'acceptTestCall'>,
  account: Account,
): Promise<TestCallResult | undefined> {
  if (account.backupPhone === null || account.backupPhoneStatus !== 'pending') return undefined;
  return requestTestCall(calls, account, { message: verificationMessage(account), dialTo: account.backupPhone });
}
