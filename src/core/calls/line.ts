// One line per phone: a phone is never rung twice at once. Alerts that wait while their phone's
// line is busy are carried together by its next call. Pure: which waiting alerts the next calls
// carry, from the waiting alerts and the phones whose line is busy.

export interface WaitingAlert {
  callId: string;
  userId: string;
  /** The number the alert's call goes to. */
  phone: string;
  /** Waits for the line like the others but is never merged (a test call). */
  alone?: boolean;
  /** Held for quiet hours: a released batch is one call, however many it holds (core/speech/held-speech). */
  held?: boolean;
}

/** At most this many alerts are spoken in one call; more wait for the next one. */
export const MAX_ALERTS_PER_CALL = 10;

/**
 * The calls to place now, each a list of the alerts it carries (the first is the call's own, the
 * rest ride along), in the order the alerts wait (oldest first), at most `freeLines` calls. A
 * phone whose line is busy gets no call; a phone gets one call, carrying its waiting alerts of
 * the same account in order (an alert of another account for the same phone, and a test call,
 * wait for the line and go alone).
 */
export function nextCalls(
  waiting: readonly WaitingAlert[],
  busyPhones: ReadonlySet<string>,
  freeLines: number,
  maxPerCall = MAX_ALERTS_PER_CALL,
): WaitingAlert[][] {
  const calls: WaitingAlert[][] = [];
  const byPhone = new Map<string, WaitingAlert[]>();
  for (const alert of waiting) {
    if (busyPhones.has(alert.phone)) continue;
    const call = byPhone.get(alert.phone);
    if (call) {
      const [own] = call as [WaitingAlert];
      const room = call.length < maxPerCall || (own.held === true && alert.held === true);
      if (own.userId === alert.userId && !own.alone && !alert.alone && room) call.push(alert);
      continue;
    }
    if (calls.length >= freeLines) continue;
    const started = [alert];
    byPhone.set(alert.phone, started);
    calls.push(started);
  }
  return calls;
}
