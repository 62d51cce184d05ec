// The SMS text for a missed-call alert. Pure, no I/O.

import { DEFAULTS } from '../config/defaults.js';
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

/**
 * "Missed call alert: <message>" (or, for a call that carried several alerts, "Missed call, 3
 * alerts: 1) … 2) … 3) …" in order of arrival; quiet hours' SMS instead of a call: "Alert (quiet
 * hours): <message>"), trimmed, cut between user-perceived characters
 * (never inside a flag, an emoji with its skin tone or family, a letter with its accents) with
 * "..." so that it fits `maxParts` concatenated parts.
 */
export function buildSmsText(
  messages: string | readonly string[],
  options: { maxParts?: number; cause?: SmsCause } = {},
): string {
  const maxParts = options.maxParts ?? DEFAULTS.sms.maxParts;
  if (!Number.isInteger(maxParts) || maxParts < 1) throw new RangeError('maxParts must be a positive integer');
  const list = typeof messages === 'string' ? [messages] : messages;
  const cause = options.cause ?? 'missed_call';
  const single = cause === 'quiet_hours' ? QUIET_HOURS_PREFIX : SMS_PREFIX;
  const prefix = list.length === 1 ? single : groupPrefix(list.length, cause);
  const body = list.length === 1 ? list[0]!.trim() : list.map((m, i) => `${i + 1}) ${m.trim()}`).join(' ');
  return fitted(prefix, body, maxParts);
}

const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** The prefix and as much of the body as fits `maxParts` parts. */
function fitted(prefix: string, body: string, maxParts: number): string {
  const full = prefix + body;
  if (countSmsParts(full) <= maxParts) return full;
  const chars = Array.from(GRAPHEMES.segment(body), (s) => s.segment);
  // The number of parts only shrinks as the text gets shorter: binary search the longest cut that fits.
  let lo = 0;
  let hi = chars.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countSmsParts(prefix + chars.slice(0, mid).join('').trimEnd() + TRUNCATION_MARK) <= maxParts) lo = mid;
    else hi = mid - 1;
  }
  return prefix + chars.slice(0, lo).join('').trimEnd() + TRUNCATION_MARK;
}
