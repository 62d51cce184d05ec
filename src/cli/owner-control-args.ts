// The CLI's owner controls (#41): --dedupe SECONDS and --sources, checked before anything is opened.
import type { Account } from '../core/account.js';
import { MAX_DEDUPE_SECONDS, parseDedupeSeconds } from '../core/dedupe.js';
import { parseSourceRule } from '../core/webhook-sources.js';
import { UserError } from '../lib/errors.js';

export const ownerControlArgs = {
  dedupe: {
    type: 'string',
    description: `Duplicate alerts: seconds (1 to ${MAX_DEDUPE_SECONDS}) within which the same alert, or the same Idempotency-Key or JSON id, is answered with the first call; 0 or off (default) rings for every alert`,
  },
  sources: {
    type: 'string',
    description:
      "Who may send this account's alerts: any (default), tradingview (its four published addresses) or comma-separated addresses/CIDRs",
  },
} as const;

export function ownerControlChanges(args: {
  dedupe?: string | undefined;
  sources?: string | undefined;
}): Partial<Pick<Account, 'dedupeSeconds' | 'webhookSources'>> {
  const changes: Partial<Pick<Account, 'dedupeSeconds' | 'webhookSources'>> = {};
  if (args.dedupe !== undefined) {
    const parsed = parseDedupeSeconds(args.dedupe);
    if (!parsed.ok) throw new UserError(parsed.error);
    changes.dedupeSeconds = parsed.seconds;
  }
  if (args.sources !== undefined) {
    try {
      changes.webhookSources = parseSourceRule(args.sources).text;
    } catch (error) {
      throw new UserError(`--sources: ${(error as Error).message}`);
    }
  }
  return changes;
}
