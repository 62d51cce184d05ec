// The SMS text for a missed-call alert. Pure, no I/O.

import { DEFAULTS } from '../config/index.js';
import { MAX_ALERTS_PER_CALL } from '../core/calls/line.js';
import { countSmsParts } from './segments.js';

export const SMS_PREFIX = 'Missed call alert: ';
/** Quiet hours' SMS (status `sms_instead`): no call was made, so none was missed. */
export const QUIET_HOURS_PREFIX = 'Alert (quiet hours): ';

/** Why the SMS goes: a call that did not reach its person, or quiet hours' SMS instead of a call. */
export type SmsCause = 'missed_call' | 'quiet_hours';
/** Marks a cut text; GSM 7-bit so it never forces UCS-2 by itself. */
export const TRUNCATION_MARK = '...';

/** The prefix of the SMS for several alerts: a missed call that carried them, or quiet hours'. */
export function groupPrefix(count: number, cause: SmsCause = 'missed_call'): string {
  return cause === 'quiet_hours' ? `${count} alerts (quiet hours): ` : `Missed call, ${count} alerts: `;
}

/** The prefix of the SMS for a call that carried more alerts than a merged call may: a released quiet-hours batch. */
export function heldPrefix(count: number, cause: SmsCause = 'missed_call'): string {
  return cause === 'quiet_hours'
    ? `${count} alerts (quiet hours), newest first: `
    : `Missed call, ${count} alerts, newest first: `;
}

/** After the newest alerts an SMS had room for. */
export function olderAlerts(count: number): string {
  return ` and ${count} older ${count === 1 ? 'alert' : 'alerts'}: see your history`;
}

/**
 * "Missed call alert: <message>" (or, for a call that carried several alerts, "Missed call, 3
 * alerts: 1) … 2) … 3) …" in order of arrival; quiet hours' SMS instead of a call: "Alert (quiet
 * hours): <message>"), trimmed, cut between user-perceived characters
 * (never inside a flag, an emoji with its skin tone or family, a letter with its accents) with
 * "..." so that it fits `maxParts` concatenated parts. A call that carried more than a merged
 * call may (a quiet-hours batch: thousands) lists the newest that fit and says how many more.
 */
export function buildSmsText(
  messages: string | readonly string[],
  options: { maxParts?: number; cause?: SmsCause } = {},
): string {
  const maxParts = options.maxParts ?? DEFAULTS.sms.maxParts;
  if (!Number.isInteger(maxParts) || maxParts < 1) throw new RangeError('maxParts must be a positive integer');
  const list = typeof messages === 'string' ? [messages] : messages;
  const cause = options.cause ?? 'missed_call';
  if (list.length > MAX_ALERTS_PER_CALL) return newestThatFit(list, maxParts, cause);
  const single = cause === 'quiet_hours' ? QUIET_HOURS_PREFIX : SMS_PREFIX;
  const prefix = list.length === 1 ? single : groupPrefix(list.length, cause);
  const body = list.length === 1 ? list[0]!.trim() : list.map((m, i) => `${i + 1}) ${m.trim()}`).join(' ');
  return fitted(prefix, body, maxParts);
}

/**
 * The newest messages whole, as many as fit with the count of the others; only those looked at are
 * joined. How many fit is searched (1, 2, 4… then halving): the parts only grow with each message
 * added (it adds at least "N) " where the count of the others loses at most a digit), and counting
 * the text once for each message added held the event loop 37 ms for a night's batch (#51).
 */
function newestThatFit(list: readonly string[], maxParts: number, cause: SmsCause): string {
  const prefix = heldPrefix(list.length, cause);
  const bodies = [''];
  const body = (kept: number) => {
    for (let k = bodies.length; k <= kept; k++)
      bodies.push(`${bodies[k - 1]}${k > 1 ? ' ' : ''}${k}) ${list[list.length - k]!.trim()}`);
    return bodies[kept]!;
  };
  const older = (kept: number) => (kept < list.length ? olderAlerts(list.length - kept) : '');
  const fits = (kept: number) => countSmsParts(prefix + body(kept) + older(kept)) <= maxParts;
  // All of them, with no count of others, is looked at only when all but one fit (as one by one did).
  let lo = 0;
  let hi = list.length - 1;
  for (let step = 1; step <= hi; step *= 2) {
    if (!fits(step)) {
      hi = step - 1;
      break;
    }
    lo = step;
  }
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  const kept = lo === list.length - 1 && fits(list.length) ? list.length : lo;
  if (kept > 0) return prefix + body(kept) + older(kept);
  return fitted(prefix, `1) ${list[list.length - 1]!.trim()}`, maxParts, olderAlerts(list.length - 1));
}

const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** The prefix, as much of the body as fits `maxParts` parts, and the suffix whole. */
function fitted(prefix: string, body: string, maxParts: number, suffix = ''): string {
  const full = prefix + body + suffix;
  if (countSmsParts(full) <= maxParts) return full;
  const chars = Array.from(GRAPHEMES.segment(body), (s) => s.segment);
  // The number of parts only shrinks as the text gets shorter: binary search the longest cut that fits.
  let lo = 0;
  let hi = chars.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countSmsParts(prefix + chars.slice(0, mid).join('').trimEnd() + TRUNCATION_MARK + suffix) <= maxParts) lo = mid;
    else hi = mid - 1;
  }
  return prefix + chars.slice(0, lo).join('').trimEnd() + TRUNCATION_MARK + suffix;
}
