// Turning an account's callbacks on and off and rotating its secret: what the CLI and the dashboard
// both do. A secret is made the first time a URL is set and shown once, then only its use is seen.
import { newCallbackSecret } from '../core/callbacks/callback-events.js';
import type { CallbackRepo } from '../store/index.js';

/** While a rotation overlaps, callbacks carry both signatures: a day to move the receiver to the new secret. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60_000;

/** The new secret when one was made (the first URL of the account), to show once. */
export async function setCallbackUrl(
  repo: CallbackRepo,
  userId: string,
  url: string | null,
): Promise<{ secret: string | null }> {
  const current = await repo.settings(userId);
  if (url !== null && (!current || current.secrets.length === 0)) {
    const secret = newCallbackSecret();
    await repo.configure(userId, { url, secret });
    return { secret };
  }
  await repo.configure(userId, { url });
  return { secret: null };
}

/** The new secret (shown once), or null when the account has none yet (set a URL first). */
export async function rotateCallbackSecret(
  repo: CallbackRepo,
  userId: string,
  now: number,
): Promise<{ secret: string; previousUntil: number } | null> {
  const secret = newCallbackSecret();
  const previousUntil = now + ROTATION_OVERLAP_MS;
  return (await repo.rotate(userId, secret, previousUntil)) ? { secret, previousUntil } : null;
}
