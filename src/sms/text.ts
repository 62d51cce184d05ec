// The SMS text for a missed-call alert. Pure, no I/O.

import { DEFAULTS } from '../config/defaults.js';
import { countSmsParts } from './segments.js';

export const SMS_PREFIX = 'Missed call alert: ';
/** Marks a cut text; GSM 7-bit so it never forces UCS-2 by itself. */
export const TRUNCATION_MARK = '...';

/**
 * "Missed call alert: <message>", trimmed, cut at a character boundary (never inside a surrogate
 * pair) with "..." so that it fits `maxParts` concatenated parts.
 */
export function buildSmsText(message: string, options: { maxParts?: number } = {}): string {
  const maxParts = options.maxParts ?? DEFAULTS.sms.maxParts;
  if (!Number.isInteger(maxParts) || maxParts < 1) throw new RangeError('maxParts must be a positive integer');
  const body = message.trim();
  const full = SMS_PREFIX + body;
  if (countSmsParts(full) <= maxParts) return full;
  const chars = Array.from(body);
  // The number of parts only shrinks as the text gets shorter: binary search the longest cut that fits.
  let lo = 0;
  let hi = chars.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countSmsParts(SMS_PREFIX + chars.slice(0, mid).join('').trimEnd() + TRUNCATION_MARK) <= maxParts) lo = mid;
    else hi = mid - 1;
  }
  return SMS_PREFIX + chars.slice(0, lo).join('').trimEnd() + TRUNCATION_MARK;
}
