// Queues a test call to an account's phone: the one way in for the dashboard (inside serve) and
// the CLI (beside it). It has its own limits and does not use the monthly allowance.
import { receivesCalls, type Account } from '../core/account.js';
import { testCallMessage, type TestCallResult } from '../core/test-call.js';
import type { CallRepo } from '../store/contract/index.js';

export async function requestTestCall(
  calls: Pick<CallRepo, 'acceptTestCall'>,
  account: Account,
): Promise<TestCallResult> {
  if (!receivesCalls(account)) return { accepted: false, reason: 'suspended' };
  const result = await calls.acceptTestCall(account.userId, testCallMessage(account.language));
  if (!result.accepted)
    return {
      accepted: false,
      reason: 'rate_limited',
      retryAfterSeconds: result.decision.limit === 'burst' ? result.decision.retryAfterSeconds : 60,
    };
  return { accepted: true, callId: result.callId, receivedAt: result.receivedAt };
}
