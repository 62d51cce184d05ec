// The keys pressed during each of a list of calls, read from their timelines: the history's cards and
// `ringhook calls --json` show them. Only answered calls are read: a key counts only once answered.
import { type KeyPress, keysPressed } from '../core/calls/keypad.js';
import type { CallRecord } from '../core/records.js';
import type { CallProgressRepo } from './contract/index.js';

export async function keyPressesOf(
  progress: Pick<CallProgressRepo, 'timeline'>,
  calls: readonly Pick<CallRecord, 'callId' | 'answeredAt'>[],
): Promise<Map<string, KeyPress[]>> {
  const presses = new Map<string, KeyPress[]>();
  for (const call of calls) {
    if (call.answeredAt === null) continue;
    const keys = keysPressed(await progress.timeline(call.callId));
    if (keys.length > 0) presses.set(call.callId, keys);
  }
  return presses;
}
