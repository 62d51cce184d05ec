// What happens to an alert that arrives now, for an account with quiet hours (#41): rung as a call,
// sent as an SMS instead, or held until the quiet hours end. Pure: the instant and what the server
// can send are passed in. The webhook's answer, the dialer's claim, `account show` and the
// dashboard all read their words here, so what is said is what happens.
import { formatQuietWindows, parseQuietWindows, type QuietHours, quietState } from './quiet-hours.js';

export const QUIET_MODES = ['hold', 'sms', 'call'] as const;
export type QuietMode = (typeof QUIET_MODES)[number];

/** An account's quiet hours as stored: the windows' canonical text ('' = none), the zone and the mode. */
export interface QuietSettings {
  quietHours: string;
  timeZone: string;
  quietMode: QuietMode;
}

export const NO_QUIET_HOURS: QuietSettings = { quietHours: '', timeZone: 'UTC', quietMode: 'hold' };

/** What happens to an alert: `call` and `sms` at once, `held` until the quiet hours end. */
export type Delivery = { delivery: 'call' } | { delivery: 'sms' } | { delivery: 'held'; until: number };

/** Whether the SMS that `sms` mode sends instead of the call can go out: the account's SMS backup on and a gateway set. */
export interface SmsPossible {
  /** The server sends SMS at all (a gateway set, telephony on). */
  gateway: boolean;
  /** The account's SMS backup switch. */
  smsBackup: boolean;
}

export function isQuietMode(text: string): text is QuietMode {
  return (QUIET_MODES as readonly string[]).includes(text);
}

/** The windows of stored settings; null when none are set (or the stored text no longer parses). */
export function quietHoursOf(settings: QuietSettings): QuietHours | null {
  if (settings.quietHours === '') return null;
  const parsed = parseQuietWindows(settings.quietHours);
  return parsed.ok ? { timeZone: settings.timeZone, windows: parsed.value } : null;
}

/** The mode that applies: `sms` when its SMS cannot go out holds instead (quiet is kept, nothing is lost). */
export function effectiveMode(mode: QuietMode, sms: SmsPossible): QuietMode {
  return mode === 'sms' && !(sms.gateway && sms.smsBackup) ? 'hold' : mode;
}

export function decideDelivery(settings: QuietSettings, now: number, sms: SmsPossible): Delivery {
  const hours = quietHoursOf(settings);
  if (!hours) return { delivery: 'call' };
  const mode = effectiveMode(settings.quietMode, sms);
  if (mode === 'call') return { delivery: 'call' };
  const state = quietState(hours, now);
  if (!state.quiet) return { delivery: 'call' };
  return mode === 'sms' ? { delivery: 'sms' } : { delivery: 'held', until: state.endsAt };
}

/** The webhook answer's field for it (SPEC: added only when quiet hours are set). */
export function deliveryField(delivery: Delivery): { delivery: 'call' | 'sms' } | { held_until: string } {
  return delivery.delivery === 'held'
    ? { held_until: new Date(delivery.until).toISOString() }
    : { delivery: delivery.delivery };
}

/** Why `sms` mode holds instead on this server, in a sentence for whoever reads it; null when it sends. */
export function smsModeWarning(settings: QuietSettings, sms: SmsPossible, audience: 'owner' | 'admin'): string | null {
  if (settings.quietMode !== 'sms' || settings.quietHours === '') return null;
  if (!sms.gateway)
    return audience === 'admin'
      ? 'quiet mode sms: this server sends no SMS (no gateway, or telephony off), so alerts in quiet hours are held and called when they end.'
      : 'this server cannot send SMS at the moment, so alerts in quiet hours are held and called when they end. Ask your administrator.';
  if (!sms.smsBackup)
    return 'quiet mode sms needs the SMS backup on: while it is off, alerts in quiet hours are held and called when they end.';
  return null;
}

const MODE_WORDS: Record<QuietMode, string> = {
  hold: 'held, and called when they end: one call for everything held, newest first, each with how long ago it came',
  sms: 'sent as an SMS instead of a call',
  call: 'called as usual (quiet hours ignored)',
};

/** One sentence for `account show` and the dashboard: the windows, the zone and what happens to an alert in them. */
export function describeQuietHours(settings: QuietSettings, sms: SmsPossible, now: number): string {
  const hours = quietHoursOf(settings);
  if (!hours) return 'none: every alert is called at once';
  const mode = effectiveMode(settings.quietMode, sms);
  const state = quietState(hours, now);
  const current = state.quiet
    ? ` Quiet now, until ${new Date(state.endsAt).toISOString().slice(0, 16).replace('T', ' ')} UTC.`
    : '';
  return `${formatQuietWindows(hours.windows)} (${hours.timeZone}); alerts in them are ${MODE_WORDS[mode]}.${current}`;
}
