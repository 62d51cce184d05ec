// The CLI's decision keys (#56): --keys '7=buy,8=skip'|off and --decision-pin DIGITS|off, checked
// before anything is opened or written; setting either needs a callback URL (the decision is sent
// there), already set or given in the same command. The PIN is hashed here and never printed.
import {
  checkDecisionPin,
  DECISION_PIN_MAX,
  DECISION_PIN_MIN,
  formatDecisionKeys,
  MAX_DECISION_KEYS,
  needsCallbackUrl,
  parseDecisionKeys,
} from '../core/calls/decision-keys.js';
import { UserError } from '../lib/errors.js';
import { hashDecisionPin } from '../store/index.js';
import type { Stores } from '../app/open-stores.js';
import type { Account } from '../core/account.js';

export const decisionArgs = {
  keys: {
    type: 'string',
    description: `Decision keys, or off: after the message the call offers them ("Press 7 for buy, 8 for skip"); pressing one ends the call acknowledged and sends a signed call.decision callback with the key and label. KEY=LABEL pairs, comma-separated: keys 3–9 or #, labels of 1–24 letters, digits, spaces or dashes, at most ${MAX_DECISION_KEYS}. Needs a --callback-url`,
  },
  'decision-pin': {
    type: 'string',
    description: `A PIN of ${DECISION_PIN_MIN}–${DECISION_PIN_MAX} digits asked after a decision key, or off: only the right one sends the decision (3 tries). Stored hashed, never shown. Needs a --callback-url`,
  },
} as const;

export interface DecisionArgs {
  keys?: string | undefined;
  'decision-pin'?: string | undefined;
}

/** The options as given, checked: the keys' canonical text and the PIN (null: off). */
export interface DecisionChange {
  keys?: string;
  pin?: string | null;
}

export function decisionChange(args: DecisionArgs): DecisionChange {
  const change: DecisionChange = {};
  if (args.keys !== undefined) {
    const parsed = parseDecisionKeys(args.keys);
    if (!parsed.ok) throw new UserError(`--keys: ${parsed.error}`);
    change.keys = formatDecisionKeys(parsed.keys);
  }
  const pin = args['decision-pin'];
  if (pin !== undefined) {
    if (pin.trim() === 'off') change.pin = null;
    else {
      const problem = checkDecisionPin(pin);
      if (problem) throw new UserError(`--decision-pin: ${problem}`);
      change.pin = pin;
    }
  }
  return change;
}

const option = (change: DecisionChange) =>
  change.keys !== undefined && change.keys !== '' ? '--keys' : '--decision-pin';

/** `account create`: no callback URL can be set yet, so keys and a PIN are refused with the way to set them. */
export function refuseDecisionOnCreate(change: DecisionChange): void {
  if (!needsCallbackUrl({ keys: change.keys, pinSet: typeof change.pin === 'string' })) return;
  throw new UserError(
    `${option(change)}: decision keys need a status callback URL, where the decision is sent: create the account without it, then \`ringhook account set USER_ID --callback-url https://… ${option(change)} …\``,
  );
}

/** `account set`: refused when the account will have no callback URL (`url`: the one given in the same command). */
async function checkDecisionCallback(
  stores: Stores,
  userId: string,
  change: DecisionChange,
  url: { url: string | null } | undefined,
): Promise<void> {
  if (!needsCallbackUrl({ keys: change.keys, pinSet: typeof change.pin === 'string' })) return;
  const willHave = url !== undefined ? url.url !== null : Boolean((await stores.callbacks.settings(userId))?.url);
  if (!willHave)
    throw new UserError(
      `${option(change)}: decision keys need a status callback URL, where the decision is sent: add --callback-url https://your-receiver.example/ringhook (docs/owner-controls.md)`,
    );
}

/** The account's changes: the keys' text and the PIN's hash (null removes it). */
async function decisionAccountChanges(
  change: DecisionChange,
): Promise<{ decisionKeys?: string; decisionPinHash?: string | null }> {
  return {
    ...(change.keys !== undefined && { decisionKeys: change.keys }),
    ...(change.pin !== undefined && {
      decisionPinHash: change.pin === null ? null : await hashDecisionPin(change.pin),
    }),
  };
}

/** `account set`'s --keys and --decision-pin, checked (the callback URL they need included) before anything is written: the account's changes. */
export async function decisionSetChanges(
  stores: Stores,
  userId: string,
  args: DecisionArgs,
  url: { url: string | null } | undefined,
): Promise<{ decisionKeys?: string; decisionPinHash?: string | null }> {
  const change = decisionChange(args);
  await checkDecisionCallback(stores, userId, change, url);
  return decisionAccountChanges(change);
}

/** The callback URL just turned off while keys are set: they stay, unused until a URL is set again. */
export function noteIdleKeys(account: Account, url: { url: string | null } | undefined, json: boolean): void {
  if (url?.url === null && account.decisionKeys !== '' && !json)
    process.stderr.write(
      'The decision keys stay set but are not offered in calls until a callback URL is set again (the decision has nowhere to go).\n',
    );
}
