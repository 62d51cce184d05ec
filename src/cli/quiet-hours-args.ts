// The CLI's quiet hours (#41): --quiet-hours, --timezone and --quiet-mode, checked before anything
// is opened; and what `account show` says of them (core/delivery/quiet-delivery, as the dashboard).
import type { Account } from '../core/account.js';
import { describeQuietHours, isQuietMode, QUIET_MODES, smsModeWarning } from '../core/delivery/quiet-delivery.js';
import { formatQuietWindows, isTimeZone, parseQuietWindows, QUIET_HOURS_SYNTAX } from '../core/delivery/quiet-hours.js';
import type { SmsGatewayState } from '../core/delivery/sms-truth.js';
import { UserError } from '../lib/errors.js';

export const quietHoursArgs = {
  'quiet-hours': {
    type: 'string',
    description: `Quiet hours, in the account's time zone: ${QUIET_HOURS_SYNTAX}; days mon…sun, a range (fri-mon) or daily; an end not after the start is on the next day; off removes them`,
  },
  timezone: {
    type: 'string',
    description: 'The time zone of the quiet hours, an IANA name (e.g. Europe/Berlin, America/New_York; default UTC)',
  },
  'quiet-mode': {
    type: 'string',
    description:
      'What happens to an alert in quiet hours: hold (default: called when they end, one call for everything held, newest first), sms (the SMS instead of the call, needs the SMS backup on and a gateway; else held) or call (ignored)',
  },
} as const;

type QuietChanges = Partial<Pick<Account, 'quietHours' | 'timeZone' | 'quietMode'>>;

export function quietHoursChanges(args: {
  'quiet-hours'?: string | undefined;
  timezone?: string | undefined;
  'quiet-mode'?: string | undefined;
}): QuietChanges {
  const changes: QuietChanges = {};
  const text = args['quiet-hours'];
  if (text !== undefined) {
    if (text.trim().toLowerCase() === 'off' || text.trim() === '') changes.quietHours = '';
    else {
      const parsed = parseQuietWindows(text);
      if (!parsed.ok) throw new UserError(`--quiet-hours: ${parsed.error.replace(/^quiet hours: /, '')}`);
      changes.quietHours = formatQuietWindows(parsed.value);
    }
  }
  if (args.timezone !== undefined) {
    if (!isTimeZone(args.timezone))
      throw new UserError(
        `--timezone: '${args.timezone}' is not an IANA time zone name (e.g. Europe/Berlin, America/New_York, UTC)`,
      );
    changes.timeZone = args.timezone;
  }
  const mode = args['quiet-mode'];
  if (mode !== undefined) {
    if (!isQuietMode(mode)) throw new UserError(`--quiet-mode: '${mode}' is not one of ${QUIET_MODES.join(', ')}`);
    changes.quietMode = mode;
  }
  return changes;
}

/** The server sends SMS when a gateway is set and telephony is on (core/delivery/sms-truth). */
function gatewaySends(sms: SmsGatewayState): boolean {
  return sms.state !== 'none' && sms.state !== 'no_telephony';
}

/** What `account show` (and --json) says of the quiet hours: the setting, and what will happen. */
export function quietHoursView(account: Account, sms: SmsGatewayState, now: number) {
  const possible = { gateway: gatewaySends(sms), smsBackup: account.smsBackup };
  const warning = smsModeWarning(account, possible, 'admin');
  return {
    quiet_hours: account.quietHours === '' ? null : account.quietHours,
    time_zone: account.timeZone,
    quiet_mode: account.quietMode,
    quiet_hours_effect: describeQuietHours(account, possible, now),
    ...(warning && { quiet_mode_warning: warning }),
  };
}
