// The timelines (call_events) of a list of calls, for the history's rows, and what is read from them
// (the keys pressed: key-presses.ts). Only accepted alerts and test calls have one: a refused alert
// never got a step.
import type { CallEventRow, CallRecord } from '../core/records.js';
import type { CallProgressRepo } from './contract/index.js';

type Timelines = Pick<CallProgressRepo, 'timeline'>;

/** What `read` finds in each call's timeline, by call id; calls where it finds nothing are left out. */
export async function readTimelines<T>(
  progress: Timelines,
  callIds: readonly string[],
  read: (events: CallEventRow[]) => T[],
): Promise<Map<string, T[]>> {
  const found = new Map<string, T[]>();
  for (const callId of callIds) {
    const items = read(await progress.timeline(callId));
    if (items.length > 0) found.set(callId, items);
  }
  return found;
}

export const timelinesOf = (
  progress: Timelines,
  calls: readonly Pick<CallRecord, 'callId' | 'accepted'>[],
): Promise<Map<string, CallEventRow[]>> =>
  readTimelines(
    progress,
    calls.filter((call) => call.accepted).map((call) => call.callId),
    (events) => events,
  );
