// A test call queued in the store (its own small limits, not the monthly allowance), for serve's dialer
// to place: the account's own (app/test-call.ts follows it) or the backup person's verification
// (app/backup-person.ts). Apart from test-call.ts so that `ringhook account`, which queues the
// verification, does not load the test call's following.
import { receivesCalls, type Account } from '../core/account.js';
import { testCallMessage, type TestCallResult } from '../core/calls/test-call.js';
import type { CallRepo } from '../store/index.js';

export async function requestTestCall(
  calls: Pick<CallRepo, 'acceptTestCall'>,
  account: Account,
  /** Another call with the test call's limits: the backup person's verification (app/backup-person.ts). */
  other?: { message: string; dialTo: string },
): Promise<TestCallResult> {
  if (!receivesCalls(account)) return { accepted: false, reason: 'suspended' };
  const message = other?.message ?? testCallMessage(account.language);
  const result = await calls.acceptTestCall(account.userId, message, undefined, undefined, other?.dialTo);
  if (!result.accepted)
    return {
      accepted: false,
      reason: 'rate_limited',
      retryAfterSeconds: result.decision.limit === 'burst' ? result.decision.retryAfterSeconds : 60,
    };
  const { callId, receivedAt } = result;
  return { accepted: true, callId, receivedAt, ...('outboxed' in result && result.outboxed && { outboxed: true }) };
}
