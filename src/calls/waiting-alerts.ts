// A queued alert as core/line sees it: the phone it would ring, read once when it joins the queue,
// with what its call would say alone (for speech made ahead: speech-ahead.ts).
import { receivesCalls } from '../core/account.js';
import { callSpeech, type CallSpeech } from '../core/languages.js';
import type { WaitingAlert } from '../core/line.js';
import type { AccountRepo, CallProgressRepo } from '../store/contract.js';

export interface QueuedAlert extends WaitingAlert {
  /** An alert of an account that takes calls: its message and how its call speaks. */
  speaks?: { message: string; speech: CallSpeech };
}

/** The alert as it waits for its phone's line; undefined when it is not queued any more. */
export async function loadWaitingAlert(
  callId: string,
  progress: Pick<CallProgressRepo, 'get'>,
  accounts: Pick<AccountRepo, 'get'>,
): Promise<QueuedAlert | undefined> {
  const call = await progress.get(callId);
  if (call?.status !== 'queued') return undefined;
  // An account gone or suspended still takes its turn: the dialer ends its alerts, alone.
  const account = await accounts.get(call.userId);
  if (!account || !receivesCalls(account)) return { callId, userId: call.userId, phone: `none:${callId}`, alone: call.kind === 'test' };
  const alert: QueuedAlert = { callId, userId: call.userId, phone: account.phone, alone: call.kind === 'test' };
  if (call.kind === 'alert') alert.speaks = { message: call.message, speech: callSpeech(account) };
  return alert;
}
