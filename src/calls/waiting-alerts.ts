// A queued alert as core/calls/line sees it: the phone it would ring, read once when it joins the queue,
// with what its call would say alone (for speech made ahead: speech-ahead.ts), and the account it
// is called for, which the claim uses rather than reading it again (call-claim.ts).
import { receivesCalls } from '../core/account.js';
import { callSpeech, type CallSpeech } from '../core/speech/languages.js';
import { markedShortened } from '../core/speech/spoken-alerts.js';
import type { WaitingAlert } from '../core/calls/line.js';
import type { AccountRepo, CallProgressRepo } from '../store/index.js';
import type { Account } from '../core/account.js';
import type { CallForDialing, CallKind } from '../core/records.js';
import type { FinalState } from '../core/calls/call-state.js';
import { readAttempts } from '../core/calls/ring-again.js';
import { nextTurn } from '../lib/sleep.js';

export interface QueuedAlert extends WaitingAlert {
  /** The account as it was read on the alert's way in; undefined when the account is gone. */
  account?: Account;
  /** An alert of an account that takes calls: its message and how its call speaks. */
  speaks?: { message: string; speech: CallSpeech };
  /** A missed call rung again (core/calls/ring-again): it joins the line when it is due, not before. */
  retryAt?: number;
  /** Its row, and how its last call ended: what it ends as when a newer alert rings its phone as it comes due. */
  retry?: { call: CallForDialing; lastOutcome: FinalState };
}

/** An alert just queued, handed to the dialer by whoever queued it (the webhook, a test call) with what it read. */
export interface JustQueued {
  callId: string;
  kind: CallKind;
  message: string;
  account: Account;
  /** Held for quiet hours and released with the account's others: one call carries them all (core/calls/line). */
  held?: boolean;
  /** Cut at the webhook's limit: its call says so (core/speech/speech-text/shortened.ts). */
  messageTruncated?: boolean | number | undefined;
  /** It rings the backup person's number instead of the account's (core/calls/backup-person): that number's line. */
  dialTo?: string | null | undefined;
}

/** The alert as it waits for its phone's line. */
export function waitingAlert(
  { callId, kind, message, account, held, messageTruncated, dialTo }: JustQueued,
  speech: (account: Account) => CallSpeech = callSpeech,
): QueuedAlert {
  // An account suspended still takes its turn: the dialer ends its alerts, alone.
  if (!receivesCalls(account))
    return { callId, userId: account.userId, phone: `none:${callId}`, alone: kind === 'test', account };
  const phone = dialTo ?? account.phone;
  const alert: QueuedAlert = { callId, userId: account.userId, phone, alone: kind === 'test', account };
  if (held) alert.held = true;
  if (kind === 'alert') alert.speaks = { message: markedShortened(message, messageTruncated), speech: speech(account) };
  return alert;
}

/** The alert as it waits for its phone's line, read from the store; undefined when it is not queued any more. */
export async function loadWaitingAlert(
  callId: string,
  store: { progress: Pick<CallProgressRepo, 'get'>; accounts: Pick<AccountRepo, 'get'> },
): Promise<QueuedAlert | undefined> {
  const call = await store.progress.get(callId);
  if (call?.status !== 'queued') return undefined;
  const account = await store.accounts.get(call.userId);
  // An account gone takes its turn too: the dialer ends its alerts, alone.
  if (!account) return { callId, userId: call.userId, phone: `none:${callId}`, alone: call.kind === 'test' };
  const alert = waitingAlert({
    callId,
    kind: call.kind,
    message: call.message,
    account,
    held: (call.heldUntil ?? null) !== null,
    messageTruncated: call.messageTruncated,
    dialTo: call.dialTo,
  });
  const lastOutcome = readAttempts(call.attempts).at(-1)?.outcome;
  if (call.retryAt) alert.retryAt = call.retryAt;
  // One for the backup person waits for their line whatever rings it: no newer alert of theirs carries this news.
  if (lastOutcome && !call.dialTo) alert.retry = { call, lastOutcome };
  return alert;
}

/** Released alerts made ready for the queue in one turn at most. */
const READY_SLICE = 200;

/** The alerts made ready for the queue, a slice a turn: a night of quiet hours may release 10,000. */
export async function waitingAlertsInSlices(alerts: readonly JustQueued[]): Promise<QueuedAlert[]> {
  const ready: QueuedAlert[] = [];
  // One account's alerts share how their call speaks (one object, not 10,000).
  const speeches = new Map<Account, CallSpeech>();
  const speech = (account: Account) => {
    const made = speeches.get(account) ?? callSpeech(account);
    speeches.set(account, made);
    return made;
  };
  for (let i = 0; i < alerts.length; i += READY_SLICE) {
    if (i > 0) await nextTurn();
    for (let j = i; j < Math.min(i + READY_SLICE, alerts.length); j++) ready.push(waitingAlert(alerts[j]!, speech));
  }
  return ready;
}
