// A test call as both stores accept it: no monthly allowance, limits of its own per minute and per
// hour, and a plain text alert. The stores only read the times and write the row.
import { decideBurst, HOUR_MS, type LimitDecision } from '../core/webhook/limits.js';
import type { Alert } from '../core/webhook/payload.js';

/** The minute's limit, then the hour's, over the account's accepted test calls (newest first). */
export function decideTestCall(
  now: number,
  limits: { perMinute: number; perHour: number },
  lastMinute: readonly number[],
  lastHour: readonly number[],
): LimitDecision {
  const minute = decideBurst(limits.perMinute, now, lastMinute);
  return minute.allowed ? decideBurst(limits.perHour, now, lastHour, HOUR_MS) : minute;
}

/** The test call's alert: its message as plain text, no fields. */
export function testCallAlert(message: string): Alert {
  return { form: 'text', message, truncated: false, originalLength: message.length, fields: {}, extra: {} };
}
