// Whether a call that reached its final state is followed by the SMS backup. Pure.
import { receivesCalls, type Account } from './account.js';
import { SMS_BACKUP_STATES, type FinalState } from './call-state.js';

/** send; not_needed: the call reached the owner; disabled: the account has no SMS backup (or is suspended, or no gateway is set). */
export type SmsDecision = 'send' | 'not_needed' | 'disabled';

export function decideSms(
  state: FinalState,
  account: Pick<Account, 'smsBackup' | 'status'> | undefined,
  gatewayConfigured: boolean,
): SmsDecision {
  if (!SMS_BACKUP_STATES.has(state)) return 'not_needed';
  if (!account?.smsBackup || !receivesCalls(account) || !gatewayConfigured) return 'disabled';
  return 'send';
}

/**
 * Alerts a stopped process left, as the calls that carried them: a merged call's alerts together,
 * its carrier's first (they share one SMS, as they would have), each other alert alone.
 */
export function groupByCarrier<T extends { callId: string; carriedBy: string | null }>(rows: readonly T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const carrier = row.carriedBy ?? row.callId;
    const group = groups.get(carrier) ?? [];
    if (row.callId === carrier) group.unshift(row);
    else group.push(row);
    groups.set(carrier, group);
  }
  return [...groups.values()];
}
