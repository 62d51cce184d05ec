// The CLI's owner controls (#41): --dedupe SECONDS and --sources, checked before anything is opened.
import type { Account } from '../core/account.js';
import { MAX_DEDUPE_SECONDS, parseDedupeSeconds } from '../core/webhook/dedupe.js';
import { parseSourceRule } from '../core/webhook/webhook-sources.js';
import {
  parseRingAgain,
  parseRingAgainAfter,
  RING_AGAIN_AFTER_DEFAULT,
  RING_AGAIN_AFTER_MAX,
  RING_AGAIN_AFTER_MIN,
  RING_AGAIN_MAX,
} from '../core/calls/ring-again.js';
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

/** Ring again (#54): --ring-again N and --ring-again-after SECONDS (core/calls/ring-again). */
export const ringAgainArgs = {
  'ring-again': {
    type: 'string',
    description: `How many more calls a missed alert gets (0 to ${RING_AGAIN_MAX}; 0, the default: one call), from the same caller ID, until 1 is pressed (or the call is heard, without --require-confirm); the SMS backup still goes out once, after the first miss, and the alert counts once against the plan`,
  },
  'ring-again-after': {
    type: 'string',
    description: `Seconds from one call's start to the next's (${RING_AGAIN_AFTER_MIN} to ${RING_AGAIN_AFTER_MAX}, default ${RING_AGAIN_AFTER_DEFAULT}): iOS's Do Not Disturb lets a second call from the same number through ("Repeated Calls") when it starts within three minutes of the first, whose ring time counts; Android's "repeat callers" allows 15 minutes`,
  },
} as const;

export function ringAgainChanges(args: {
  'ring-again'?: string | undefined;
  'ring-again-after'?: string | undefined;
}): Partial<Pick<Account, 'ringAgain' | 'ringAgainAfter'>> {
  const changes: Partial<Pick<Account, 'ringAgain' | 'ringAgainAfter'>> = {};
  if (args['ring-again'] !== undefined) {
    const parsed = parseRingAgain(args['ring-again']);
    if (!parsed.ok) throw new UserError(parsed.error);
    changes.ringAgain = parsed.value;
  }
  if (args['ring-again-after'] !== undefined) {
    const parsed = parseRingAgainAfter(args['ring-again-after']);
    if (!parsed.ok) throw new UserError(parsed.error);
    changes.ringAgainAfter = parsed.value;
  }
  return changes;
}
