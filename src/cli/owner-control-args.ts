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
import {
  type BackupPerson,
  backupPhoneChange,
  NO_BACKUP_PERSON,
  parseBackupPhone,
} from '../core/calls/backup-person.js';

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

/** Ring again (#54): --ring-again N and --ring-again-after SECONDS (core/calls/ring-again); then the backup person, --backup-phone (core/calls/backup-person). */
export const ringAgainArgs = {
  'ring-again': {
    type: 'string',
    description: `How many more calls a missed alert gets (0 to ${RING_AGAIN_MAX}; 0, the default: one call), from the same caller ID, until 1 is pressed (or the call is heard, without --require-confirm); the SMS backup still goes out once, after the first miss, and the alert counts once against the plan`,
  },
  'ring-again-after': {
    type: 'string',
    description: `Seconds from one call's start to the next's (${RING_AGAIN_AFTER_MIN} to ${RING_AGAIN_AFTER_MAX}, default ${RING_AGAIN_AFTER_DEFAULT}): iOS's Do Not Disturb lets a second call from the same number through ("Repeated Calls") when it starts within three minutes of the first, whose ring time counts; Android's "repeat callers" allows 15 minutes`,
  },
  'backup-phone': {
    type: 'string',
    description:
      "A backup person's number, E.164, or off: when every call of an alert missed (after --ring-again's), the alert is called once there, introduced as this account's (\"Alert for <name>: …\"); their 1 acknowledges it. Setting it places a verification call to that number: it is called for alerts only once they pressed 1 in it (until then: pending)",
  },
} as const;

/** The backup number's change (`phone`: the account's number as it will be); none when not given. */
export function backupPhoneChanges(
  args: { 'backup-phone'?: string | undefined },
  account: BackupPerson = NO_BACKUP_PERSON,
  phone: string,
): Partial<BackupPerson> {
  if (args['backup-phone'] === undefined) {
    if (account.backupPhone !== null && account.backupPhone === phone)
      throw new UserError(
        `--phone: '${phone}' is the backup person's number: set another --backup-phone (or off) first`,
      );
    return {};
  }
  const parsed = parseBackupPhone(args['backup-phone'], phone);
  if (!parsed.ok) throw new UserError(parsed.error);
  return backupPhoneChange(account, parsed.value);
}

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
