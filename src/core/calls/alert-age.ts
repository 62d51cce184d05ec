// The alert's age said (#54): a call that starts 30 s or more after its alert was received (a busy
// line, a second attempt, a held alert) says how old the alert is before its message ("2 minutes
// ago: …"), in the account's language. Held alerts keep their own order and ages (held-speech).
// Pure: the instant is passed in.
import { agoText, type HeldMessage, messagesToSay, wereHeld } from '../speech/held-speech.js';
import type { Language } from '../speech/language-types.js';

/** From this late on, a call says how old its alert is. */
export const LATE_ALERT_MS = 30_000;

/** The messages a call says, each late one after its age. */
export function messagesWithAge(alerts: readonly HeldMessage[], now: number, lang: Language): string[] {
  if (wereHeld(alerts)) return messagesToSay(alerts, now, lang);
  return alerts.map((a) =>
    now - a.receivedAt >= LATE_ALERT_MS ? `${agoText(lang, now - a.receivedAt)}: ${a.message}` : a.message,
  );
}
