// Text from outside that ringhook prints for a person: a callback receiver's answer, an SMS
// gateway's reply, a SIP reason, an alert's text, an account's name. A terminal obeys the control
// characters in it: a receiver's answer cleared the screen, set the window title and printed a fake
// "all checks passed" (fourth review, #51). Each control character is shown instead as a visible
// escape, written as JSON writes one (\u001b), so that JSON printed through the same guard reads the
// same. Newline and tab are kept (ringhook's own lines and columns use them); carriage return,
// backspace, ESC, DEL, the C1 controls (U+0080–U+009F: 8-bit CSI and OSC) and the bidirectional
// overrides (which reorder what follows them on the line) are not. Pure.

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_OR_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const visible = (ch: string): string => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** The text with every control character but newline and tab shown as an escape (\u001b). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** The same for one line of a table or a field: newline and tab are escaped too. */
export function terminalSafeLine(text: string): string {
  return text.replace(UNSAFE_OR_LINE, visible);
}
