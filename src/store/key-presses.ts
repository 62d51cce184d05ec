// The keys pressed during each of a list of calls, read from their timelines: the history's cards and
// `ringhook calls --json` show them. Only answered calls are read: a key counts only once answered.
import { type KeyPress, keysPressed } from '../core/calls/keypad.js';
import type { CallRecord } from '../core/records.js';
import type { CallProgressRepo } from './contract/index.js';
import { readTimelines } from './timelines.js';

export const keyPressesOf = (
  progress: Pick<CallProgressRepo, 'timeline'>,
  calls: readonly Pick<CallRecord, 'callId' | 'answeredAt'>[],
): Promise<Map<string, KeyPress[]>> =>
  readTimelines(
    progress,
    calls.filter((call) => call.answeredAt !== null).map((call) => call.callId),
    keysPressed,
  );
