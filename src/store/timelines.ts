// The timelines (call_events) of a list of calls, for the history's rows. Only accepted alerts and
// test calls have one: a refused alert never got a step.
import type { CallEventRow, CallRecord } from '../core/records.js';
import type { CallProgressRepo } from './contract/index.js';

export async function timelinesOf(
  progress: Pick<CallProgressRepo, 'timeline'>,
  calls: readonly Pick<CallRecord, 'callId' | 'accepted'>[],
): Promise<Map<string, CallEventRow[]>> {
  const timelines = new Map<string, CallEventRow[]>();
  for (const call of calls) {
    if (!call.accepted) continue;
    const events = await progress.timeline(call.callId);
    if (events.length > 0) timelines.set(call.callId, events);
  }
  return timelines;
}
