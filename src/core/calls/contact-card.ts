// The caller id as a contact card (vCard 3.0), so that an owner can save ringhook's number and let
// it through Do Not Disturb and "silence unknown callers". Pure.

export const CONTACT_NAME = 'ringhook alerts';

/** The number in a caller id: `+14155550100`, `<+14155550100>` or `"Alerts" <+14155550100>`. */
export function callerIdNumber(callerId: string): string | undefined {
  const number = /<([^>]+)>\s*$/.exec(callerId)?.[1] ?? callerId.trim();
  return /^\+?[0-9*#]{2,32}$/.test(number) ? number : undefined;
}

/** RFC 6350 3.4: backslash, comma, semicolon and line breaks are escaped in text values. */
function escapeText(value: string): string {
  return value.replace(/[\\,;]/g, (c) => `\\${c}`).replace(/\r?\n/g, '\\n');
}

/** The card's text (CRLF line ends), or undefined when the caller id holds no dialable number. */
export function contactCard(callerId: string, name = CONTACT_NAME): string | undefined {
  const number = callerIdNumber(callerId);
  if (!number) return undefined;
  const lines = [
    'BEGIN:VCARD',
    'VERSION:3.0',
    `FN:${escapeText(name)}`,
    `N:${escapeText(name)};;;;`,
    `TEL;TYPE=VOICE:${number}`,
    'NOTE:Calls from this number are your trading alerts.',
    'END:VCARD',
  ];
  return `${lines.join('\r\n')}\r\n`;
}
