// The backup person's verification call (#54), asked for by `account create|set --backup-phone`:
// queued for serve to place (app/backup-person.ts), and what follows said on stderr.
import type { Account } from '../core/account.js';
import type { Stores } from '../app/open-stores.js';
import { requestVerificationCall } from '../app/backup-person.js';

/** A backup number just set: its verification call is queued for serve to place; what follows is said on stderr. */
export async function askBackupPerson(stores: Stores, account: Account, json: boolean): Promise<void> {
  const asked = await requestVerificationCall(stores.calls, account);
  if (!asked || json) return;
  const number = account.backupPhone!;
  if (asked.accepted)
    process.stderr.write(
      `A verification call to ${number} is queued: it asks them to press 1 to agree to receive this account's alerts, and the number is called for alerts only once they have (account show says when).\n`,
    );
  else
    process.stderr.write(
      asked.reason === 'suspended'
        ? `The account is suspended: no verification call to ${number} is placed; set --backup-phone again once it is resumed.\n`
        : `Too many test calls just now: no verification call to ${number} was queued; set --backup-phone again in ${asked.retryAfterSeconds} s.\n`,
    );
}
