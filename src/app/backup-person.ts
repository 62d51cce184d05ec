// The backup person's verification call (#54, core/calls/backup-person): queued in the store beside serve
// (the CLI) for serve's dialer to place at the backup number, like a test call (its own small limits,
// not the monthly allowance). Their 1 makes the number `verified` (telephony.ts, at the call's end).
import { receivesCalls, type Account } from '../core/account.js';
import { verificationMessage } from '../core/calls/backup-person.js';
import type { TestCallResult } from '../core/calls/test-call.js';
import type { CallRepo } from '../store/index.js';

export async function requestVerificationCall(
  calls: Pick<CallRepo, 'acceptTestCall'>,
  account: Account,
): Promise<TestCallResult | undefined> {
  if (account.backupPhone === null || account.backupPhoneStatus !== 'pending') return undefined;
  if (!receivesCalls(account)) return { accepted: false, reason: 'suspended' };
  const message = verificationMessage(account);
  const result = await calls.acceptTestCall(account.userId, message, undefined, undefined, account.backupPhone);
  if (!result.accepted)
    return {
      accepted: false,
      reason: 'rate_limited',
      retryAfterSeconds: result.decision.limit === 'burst' ? result.decision.retryAfterSeconds : 60,
    };
  return { accepted: true, callId: result.callId, receivedAt: result.receivedAt };
}
