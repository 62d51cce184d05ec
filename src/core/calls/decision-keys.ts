// Decision keys (#56): an account's, or an alert's own, keys that end a call with a decision for the
// owner's system ("7=buy, 8=skip"), and the PIN that may guard them. Pure: the rules for what may be
// set, and what a key pressed during a call decides. The PIN's hash and its check are the store's.

/** The keys a decision may take: 1 confirms, 2 and * repeat, 0 lists the keys. */
export const DECISION_KEY_CHOICES = ['3', '4', '5', '6', '7', '8', '9', '#'] as const;
export type DecisionKeyChoice = (typeof DECISION_KEY_CHOICES)[number];
const TAKEN: Readonly<Record<string, string>> = {
  '1': '1 confirms',
  '2': '2 repeats the message',
  '*': '* repeats the message',
  '0': '0 lists the keys',
};
export const MAX_DECISION_KEYS = 4;
export const MAX_DECISION_LABEL = 24;
/** Letters, digits, spaces and dashes, starting with a letter or digit: said as written. */
const LABEL = /^[\p{L}\p{N}][\p{L}\p{M}\p{N} -]*$/u;

export interface DecisionKey {
  key: DecisionKeyChoice;
  label: string;
}

export type DecisionKeysResult = { ok: true; keys: DecisionKey[] } | { ok: false; error: string };

const isChoice = (key: string): key is DecisionKeyChoice => (DECISION_KEY_CHOICES as readonly string[]).includes(key);

/** The rules every source of keys shares (the CLI's text, the dashboard's form, an alert's JSON). */
export function checkDecisionKeys(pairs: ReadonlyArray<readonly [string, unknown]>): DecisionKeysResult {
  if (pairs.length > MAX_DECISION_KEYS)
    return { ok: false, error: `at most ${MAX_DECISION_KEYS} decision keys (got ${pairs.length})` };
  const keys: DecisionKey[] = [];
  for (const [rawKey, rawLabel] of pairs) {
    const key = rawKey.trim();
    if (TAKEN[key]) return { ok: false, error: `key ${key} is taken (${TAKEN[key]}): use 3–9 or #` };
    if (!isChoice(key)) return { ok: false, error: `"${key.slice(0, 12)}" is not a key: use a digit 3–9 or #` };
    if (keys.some((k) => k.key === key)) return { ok: false, error: `key ${key} is given twice` };
    if (typeof rawLabel !== 'string') return { ok: false, error: `the label of key ${key} must be text` };
    const label = rawLabel.trim().replace(/\s+/g, ' ');
    if (label === '') return { ok: false, error: `key ${key} has an empty label` };
    if (Array.from(label).length > MAX_DECISION_LABEL || !LABEL.test(label))
      return {
        ok: false,
        error: `the label of key ${key} ("${Array.from(label).slice(0, 30).join('')}") must be 1–${MAX_DECISION_LABEL} letters, digits, spaces or dashes`,
      };
    keys.push({ key, label });
  }
  return { ok: true, keys };
}

/** `7=buy,8=skip` (the CLI's and the dashboard's form); `off` is no keys. */
export function parseDecisionKeys(text: string): DecisionKeysResult {
  const trimmed = text.trim();
  if (trimmed === 'off') return { ok: true, keys: [] };
  if (trimmed === '') return { ok: false, error: 'no keys given: write them as 7=buy,8=skip, or off' };
  const pairs: Array<readonly [string, string]> = [];
  for (const part of trimmed.split(',')) {
    const equals = part.indexOf('=');
    if (equals < 0) return { ok: false, error: `"${part.trim().slice(0, 30)}" is not KEY=LABEL (as in 7=buy)` };
    pairs.push([part.slice(0, equals), part.slice(equals + 1)]);
  }
  return checkDecisionKeys(pairs);
}

/** An alert's own `keys`: a JSON object `{"7": "buy", "8": "skip"}`. */
export function decisionKeysFromJson(value: unknown): DecisionKeysResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, error: 'must be an object of keys and labels, such as {"7": "buy", "8": "skip"}' };
  return checkDecisionKeys(Object.entries(value));
}

/** How keys are stored and shown: `7=buy,8=skip` (parseDecisionKeys reads it back). */
export const formatDecisionKeys = (keys: readonly DecisionKey[]): string =>
  keys.map(({ key, label }) => `${key}=${label}`).join(',');

export const DECISION_PIN_MIN = 4;
export const DECISION_PIN_MAX = 8;

/** The PIN as set: 4–8 digits. The error never repeats it (it may be the right one, mistyped). */
export function checkDecisionPin(pin: string): string | undefined {
  if (/^\d+$/.test(pin) && pin.length >= DECISION_PIN_MIN && pin.length <= DECISION_PIN_MAX) return undefined;
  const what = /^\d*$/.test(pin) ? `${pin.length} digits` : `${Array.from(pin).length} characters, not all digits`;
  return `a decision PIN must be ${DECISION_PIN_MIN}–${DECISION_PIN_MAX} digits (got ${what})`;
}

/** Wrong PINs a call allows before it refuses the decision. */
export const PIN_TRIES = 3;
/** A PIN being typed ends at #, at its longest possible length, or after this pause. */
export const PIN_PAUSE_MS = 5_000;

/** Where a call is in deciding: choosing a key, typing the PIN for a chosen one, or done. */
export type DecisionState =
  | { phase: 'choosing' }
  | { phase: 'pin'; choice: DecisionKey; digits: string; wrong: number }
  | { phase: 'done' };

export type DecisionStep =
  /** No PIN: the decision is recorded now. */
  | { do: 'decide'; choice: DecisionKey; state: DecisionState }
  /** The call asks for the PIN. */
  | { do: 'ask-pin'; state: DecisionState }
  /** A digit of the PIN: wait for more (no word said). */
  | { do: 'collect'; state: DecisionState }
  /** The PIN as typed, to check against the stored hash (pinChecked takes the answer). */
  | { do: 'check-pin'; digits: string; state: DecisionState }
  /** Not a decision: the keypad's own rules apply (1, 2, *, 0, or ignored). */
  | { do: 'not-mine' };

/** A key pressed on an answered, human call that has decision keys. */
export function pressDecision(
  state: DecisionState,
  key: string,
  keys: readonly DecisionKey[],
  pinRequired: boolean,
): DecisionStep {
  if (state.phase === 'done') return { do: 'not-mine' };
  if (state.phase === 'pin') {
    if (key === '#') return { do: 'check-pin', digits: state.digits, state };
    if (!/^\d$/.test(key)) return { do: 'collect', state };
    const digits = state.digits + key;
    const next = { ...state, digits };
    return digits.length >= DECISION_PIN_MAX
      ? { do: 'check-pin', digits, state: next }
      : { do: 'collect', state: next };
  }
  const choice = keys.find((k) => k.key === key);
  if (!choice) return { do: 'not-mine' };
  if (!pinRequired) return { do: 'decide', choice, state: { phase: 'done' } };
  return { do: 'ask-pin', state: { phase: 'pin', choice, digits: '', wrong: 0 } };
}

/** The pause after the PIN's last digit ran out: what was typed is checked (nothing typed: asked again). */
export function pinPaused(state: DecisionState): DecisionStep {
  if (state.phase !== 'pin') return { do: 'not-mine' };
  if (state.digits === '') return { do: 'ask-pin', state };
  return { do: 'check-pin', digits: state.digits, state };
}

export type PinVerdict =
  | { do: 'decide'; choice: DecisionKey; state: DecisionState }
  | { do: 'wrong-pin'; triesLeft: number; state: DecisionState }
  | { do: 'refuse'; choice: DecisionKey; state: DecisionState };

/** The stored hash's answer to the PIN typed. */
export function pinChecked(state: DecisionState & { phase: 'pin' }, right: boolean): PinVerdict {
  if (right) return { do: 'decide', choice: state.choice, state: { phase: 'done' } };
  const wrong = state.wrong + 1;
  if (wrong >= PIN_TRIES) return { do: 'refuse', choice: state.choice, state: { phase: 'done' } };
  return { do: 'wrong-pin', triesLeft: PIN_TRIES - wrong, state: { ...state, digits: '', wrong } };
}

/** The history's words for a decision: `decision: buy (7)`, `decision refused: wrong PIN`. */
export const decisionText = (choice: { key: string; label: string }): string =>
  `decision: ${choice.label} (${choice.key})`;
/** Why a decision is refused: its PIN was wrong every time (the only reason there is). */
export const WRONG_PIN = 'wrong PIN';
export const decisionRefusedText = (reason: string): string => `decision refused: ${reason}`;
export const DECISION_REFUSED_TEXT = decisionRefusedText(WRONG_PIN);

/** Stored keys (`7=buy,8=skip`, written by formatDecisionKeys) read back; '' or anything unreadable: none. */
export function storedDecisionKeys(text: string | null | undefined): DecisionKey[] {
  if (!text) return [];
  const parsed = parseDecisionKeys(text);
  return parsed.ok ? parsed.keys : [];
}

/**
 * The keys a call offers: the alert's own when it had `keys` ('' none for this call), else its
 * account's; none when the account has no callback URL, where a decision could go nowhere (the call
 * rings as any alert's: an alert is never refused for its keys).
 */
export function callDecisionKeys(
  call: { decisionKeys?: string | null | undefined },
  account: { decisionKeys?: string | undefined; callbackOn: boolean } | null | undefined,
): DecisionKey[] {
  if (!account?.callbackOn) return [];
  return storedDecisionKeys(call.decisionKeys ?? account.decisionKeys);
}

/** Setting keys or a PIN needs a callback URL (the decision is sent there); removing them never does. */
export function needsCallbackUrl(change: { keys?: string | undefined; pinSet?: boolean | undefined }): boolean {
  return (change.keys !== undefined && change.keys !== '') || change.pinSet === true;
}

/** What the history says of a call's decision: `decision: buy (7)`, `decision refused: wrong PIN`, or null. */
export function callDecisionText(call: {
  decisionKey?: string | null | undefined;
  decisionLabel?: string | null | undefined;
  decisionRefused?: string | null | undefined;
}): string | null {
  if (call.decisionKey) return decisionText({ key: call.decisionKey, label: call.decisionLabel ?? '' });
  return call.decisionRefused ? decisionRefusedText(call.decisionRefused) : null;
}
