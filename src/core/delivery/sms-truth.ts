// What the SMS backup switch may promise on this server: an account's "on" means an SMS only when
// the server has a gateway and that gateway took its last SMS. The CLI and the dashboard say the
// same from the same facts: the configured gateway and the server's last SMS attempts. Pure.
import type { SmsStatus } from '../records.js';
import { SMS_NOT_SENT } from '../reasons.js';

/** The gateway this server is set up with; `no_telephony`: serve places no calls (RINGHOOK_TELEPHONY=off), so sends no SMS. */
export type SmsGatewaySetting = 'none' | 'http' | 'smpp' | 'no_telephony';

/** The setting from the configuration: serve sends SMS only with telephony on and a gateway set. */
export function smsGatewaySetting(telephonyOff: boolean, gateway: 'none' | 'http' | 'smpp'): SmsGatewaySetting {
  return telephonyOff ? 'no_telephony' : gateway;
}

/** One SMS the server tried to send, newest first as the store lists them. */
export interface SmsAttempt {
  status: SmsStatus;
  /** The gateway's or the SMS backup's own words (`sms_error`). */
  error: string | null;
  at: number;
}

export type SmsGatewayState =
  | { state: 'none' }
  | { state: 'no_telephony' }
  /** Configured, and no SMS tried yet (or none recently): nothing known either way. */
  | { state: 'untried' }
  | { state: 'working'; at: number }
  /** Its last SMS was refused, or it could not be reached (`waiting`: it is being tried again now). */
  | { state: 'failing'; at: number; error: string; waiting: boolean };

/** What one attempt says about the gateway: it took the SMS, it failed it, or nothing (ringhook's own reason). */
function verdict(attempt: SmsAttempt): 'took' | 'failed' | 'silent' {
  if (attempt.status === 'sent' || attempt.status === 'delivered') return 'took';
  if (attempt.status === 'waiting') return 'failed';
  if (attempt.status !== 'failed') return 'silent';
  const error = attempt.error ?? '';
  // The gateway took it; the phone's network did not deliver it: the gateway works.
  if (error.startsWith(SMS_NOT_SENT.notDelivered)) return 'took';
  if (error === SMS_NOT_SENT.tooOld) return 'failed';
  if (
    error === SMS_NOT_SENT.turnedOff ||
    error === SMS_NOT_SENT.accountGone ||
    error === SMS_NOT_SENT.stoppedHandingOver
  )
    return 'silent';
  return 'failed';
}

/** The gateway's state from the setting and the server's last SMS attempts (newest first). */
export function smsGatewayState(setting: SmsGatewaySetting, attempts: readonly SmsAttempt[]): SmsGatewayState {
  if (setting === 'none') return { state: 'none' };
  if (setting === 'no_telephony') return { state: 'no_telephony' };
  for (const attempt of attempts) {
    const said = verdict(attempt);
    if (said === 'took') return { state: 'working', at: attempt.at };
    if (said === 'failed')
      return {
        state: 'failing',
        at: attempt.at,
        error: attempt.error ?? 'the gateway gave no reason',
        waiting: attempt.status === 'waiting',
      };
  }
  return { state: 'untried' };
}

/** Who reads the words: the owner (dashboard) can only ask; the admin (CLI) can fix the server. */
export type Audience = 'owner' | 'admin';

function when(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * Why the SMS backup, switched on, will not (or may not) send an SMS on this server, in a
 * sentence; null when nothing stands in its way that the server knows of.
 */
export function smsBackupWarning(state: SmsGatewayState, audience: Audience): string | null {
  const admin = audience === 'admin';
  switch (state.state) {
    case 'none':
      return admin
        ? 'this server has no SMS gateway (RINGHOOK_SMS_GATEWAY=none), so no SMS will be sent when a call is missed: set RINGHOOK_SMS_GATEWAY to http or smpp (`ringhook sms-test` checks it).'
        : 'this server has no SMS gateway, so no SMS will be sent when a call is missed. Ask your administrator to set one up.';
    case 'no_telephony':
      return admin
        ? 'serve runs with telephony off (RINGHOOK_TELEPHONY=off): it places no calls and sends no SMS.'
        : 'this server places no calls and sends no SMS at the moment. Ask your administrator.';
    case 'failing': {
      const how = state.waiting
        ? `the SMS gateway has not taken the last SMS (since ${when(state.at)}; it is being tried again)`
        : `the SMS gateway failed the last SMS it was given (${when(state.at)})`;
      return admin
        ? `${how}: ${state.error}. An SMS may not go out until it works again (\`ringhook sms-test\` checks it).`
        : `${how}, so an SMS may not go out until it works again. Ask your administrator.`;
    }
    case 'untried':
    case 'working':
      return null;
  }
}

/** The one-word state for scripts (`--json`): what the switch can do on this server. */
export function smsGatewayWord(state: SmsGatewayState): 'none' | 'no_telephony' | 'untried' | 'working' | 'failing' {
  return state.state;
}

/** How many of the latest attempts are read: enough to skip a few of ringhook's own, bounded. */
export const SMS_ATTEMPTS_READ = 5;
