// The queued alerts as core/line sees them: in order, each with the phone it would ring.
import { receivesCalls } from '../core/account.js';
import type { WaitingAlert } from '../core/line.js';
import type { AccountStore } from '../db/accounts.js';
import type { CallProgressStore } from '../db/call-progress.js';

export function waitingAlerts(queued: readonly string[], progress: Pick<CallProgressStore, 'get'>, accounts: Pick<AccountStore, 'get'>): WaitingAlert[] {
  const phones = new Map<string, string>();
  const waiting: WaitingAlert[] = [];
  for (const callId of queued) {
    const call = progress.get(callId);
    if (!call) continue;
    let phone = phones.get(call.userId);
    if (phone === undefined) {
      // An account gone or suspended still takes its turn: the dialer ends its alerts, alone.
      const account = accounts.get(call.userId);
      phone = account && receivesCalls(account) ? account.phone : `none:${callId}`;
      if (account) phones.set(call.userId, phone);
    }
    waiting.push({ callId, userId: call.userId, phone, alone: call.kind === 'test' });
  }
  return waiting;
}
