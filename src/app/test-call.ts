// The test call to an account's phone, all its I/O in one place (what it says and its limits are
// core/calls/test-call.ts): queued in the store by the dashboard (inside serve) and the CLI (beside it),
// placed by serve's dialer, followed by the CLI until it ends. It has its own limits and does not
// use the monthly allowance.
import type { Account } from '../core/account.js';
import type { CallEvents } from '../core/calls/call-events.js';
import { isFinal } from '../core/calls/call-state.js';
import { callReason } from '../core/reasons.js';
import { testCallMessage, type TestCallResult } from '../core/calls/test-call.js';
import type { Dialer } from '../calls/index.js';
import { sleep } from '../lib/sleep.js';
import type { CallEventRow } from '../core/records.js';
import type { CallProgressRepo, CallRepo } from '../store/index.js';
import { requestTestCall } from './queue-test-call.js';

export { requestTestCall } from './queue-test-call.js';

/** Inside serve (the dashboard's button): queued, told, and handed to the dialer with its account (no read again). */
export async function placeTestCall(
  deps: { calls: Pick<CallRepo, 'acceptTestCall'>; events: CallEvents; dialer: Pick<Dialer, 'enqueue'> },
  account: Account,
): Promise<TestCallResult> {
  const result = await requestTestCall(deps.calls, account);
  if (!result.accepted) return result;
  const { callId, receivedAt, outboxed } = result;
  deps.events.emit({ callId, userId: account.userId, status: 'queued', at: receivedAt, ...(outboxed && { outboxed }) });
  deps.dialer.enqueue({ callId: result.callId, kind: 'test', message: testCallMessage(account.language), account });
  return result;
}

/**
 * Beside serve (the CLI): watches the queued call's timeline until it is final, handing each new step to `onStep`.
 * A call still queued after `pickupMs` was picked up by no serve: it is ended as failed (no_serve) and false returned.
 */
export async function followTestCall(
  progress: Pick<CallProgressRepo, 'timeline' | 'get' | 'transition'>,
  call: { callId: string; receivedAt: number },
  options: { pickupMs: number; onStep: (step: CallEventRow) => void },
): Promise<boolean> {
  let shown = 0;
  for (;;) {
    await sleep(100);
    const timeline = await progress.timeline(call.callId);
    for (const step of timeline.slice(shown)) options.onStep(step);
    shown = timeline.length;
    const now = (await progress.get(call.callId))!;
    if (isFinal(now.status)) return true;
    if (now.status === 'queued' && Date.now() - call.receivedAt > options.pickupMs) {
      await progress.transition(call.callId, 'failed', {
        endedAt: Date.now(),
        ...callReason('no_serve', {}, 'no ringhook serve placed the call'),
      });
      return false;
    }
  }
}
