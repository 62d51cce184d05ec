// The CLI's status-callback options of `account set` (#41): --callback-url URL|off and
// --rotate-callback-secret, checked before anything is written; the secret made is shown once.
import { parseCallbackUrl } from '../core/callbacks/callback-url.js';
// From settings.ts itself: callbacks/index.ts brings the sender and its HTTPS client, which `account` does not use.
import { rotateCallbackSecret, setCallbackUrl } from '../callbacks/index.js';
import { UserError } from '../lib/errors.js';
import type { Stores } from '../app/open-stores.js';

export const callbackArgs = {
  'callback-url': {
    type: 'string',
    description:
      'Status callbacks: an https:// URL that gets signed events (call.queued … call.final, sms.sent, sms.failed), or off; the first URL makes the signing secret, shown once',
  },
  'rotate-callback-secret': {
    type: 'boolean',
    description: 'Make a new callback signing secret (shown once); the old one signs too for 24 hours',
  },
} as const;

export interface CallbackArgs {
  'callback-url'?: string | undefined;
  'rotate-callback-secret'?: boolean | undefined;
}

/** Parsed before any change is written: a bad URL changes nothing. */
export function callbackUrlArg(args: CallbackArgs): { url: string | null } | undefined {
  if (args['callback-url'] === undefined) return undefined;
  const parsed = parseCallbackUrl(args['callback-url']);
  if ('error' in parsed) throw new UserError(`--callback-url: ${parsed.error}`);
  return parsed;
}

/** Applies the options; the fields to show (the new secret only now, never again). Null: none given. */
export async function applyCallbackOptions(
  stores: Stores,
  userId: string,
  url: { url: string | null } | undefined,
  rotate: boolean,
): Promise<Record<string, unknown> | null> {
  if (url === undefined && !rotate) return null;
  const shown: Record<string, unknown> = {};
  if (url !== undefined) {
    const { secret } = await setCallbackUrl(stores.callbacks, userId, url.url);
    if (secret) shown.callback_secret = secret;
  }
  if (rotate) {
    const rotated = await rotateCallbackSecret(stores.callbacks, userId, Date.now());
    if (!rotated)
      throw new UserError(
        '--rotate-callback-secret: this account has no callback secret yet: set --callback-url first',
      );
    shown.callback_secret = rotated.secret;
    shown.previous_secret_until = new Date(rotated.previousUntil).toISOString();
  }
  return shown;
}

/** The account's callback as `account show` lists it. */
export async function callbackFields(stores: Stores, userId: string): Promise<Record<string, unknown>> {
  const settings = await stores.callbacks.settings(userId);
  return {
    callback_url: settings?.url ?? null,
    ...(settings?.offNote && { callback_off_note: settings.offNote }),
  };
}
