// What the SMS backup switch can do on this server, for the account commands: the configured
// gateway and the server's last SMS attempts (core/delivery/sms-truth decides the words).
import type { Account } from '../core/account.js';
import {
  SMS_ATTEMPTS_READ,
  smsBackupWarning,
  smsGatewaySetting,
  smsGatewayState,
  smsGatewayWord,
  type SmsGatewayState,
} from '../core/delivery/sms-truth.js';
import type { Config } from '../config/index.js';
import type { Stores } from '../app/open-stores.js';

export async function smsGatewayNow(
  stores: Stores,
  config: Pick<Config, 'sms' | 'telephony'>,
): Promise<SmsGatewayState> {
  const setting = smsGatewaySetting(config.telephony.mode === 'off', config.sms.gateway);
  const attempts =
    setting === 'http' || setting === 'smpp' ? await stores.calls.recentSmsAttempts(SMS_ATTEMPTS_READ) : [];
  return smsGatewayState(setting, attempts);
}

/** The account's SMS fields beside `sms_backup`: the gateway's state, and what stands in the switch's way. */
export function smsBackupFields(account: Pick<Account, 'smsBackup'>, state: SmsGatewayState) {
  return {
    sms_gateway: smsGatewayWord(state),
    sms_backup_note: account.smsBackup ? smsBackupNote(state) : null,
  };
}

function smsBackupNote(state: SmsGatewayState): string | null {
  const warning = smsBackupWarning(state, 'admin');
  return warning === null ? null : `on, but ${warning}`;
}

/** `--sms-backup on` on a server where it cannot send: stored as asked, and said on stderr. */
export function warnSmsBackupOn(account: Pick<Account, 'smsBackup'>, state: SmsGatewayState): void {
  const warning = account.smsBackup ? smsBackupWarning(state, 'admin') : null;
  if (warning) process.stderr.write(`ringhook: warning: SMS backup is on for this account, but ${warning}\n`);
}
