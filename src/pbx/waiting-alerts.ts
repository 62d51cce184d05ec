// A queued alert as core/line sees it: the phone it would ring, read once when it joins the queue.
import { receivesCalls } from '../core/account.js';
import type { WaitingAlert } from '../core/line.js';
import type { AccountRepo, CallProgressRepo } from '../db/store.js';

/** The alert as it waits for its phone's line; undefined when it is not queued any more. */
export async function loadWaitingAlert(
  callId: string,
  progress: Pick<CallProgressRepo, 'get'>,
  accounts: Pick<AccountRepo, 'get'>,
): Promise<WaitingAlert | undefined> {
  const call = await progress.get(callId);
  if (call?.status !== 'queued') return undefined;
  // An account gone or suspended still takes its turn: the dialer ends its alerts, alone.
  const account = await accounts.get(call.userId);
  const phone = account && receivesCalls(account) ? account.phone : `none:${callId}`;
  return { callId, userId: call.userId, phone, alone: call.kind === 'test' };
}
