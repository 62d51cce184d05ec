// The backup person (#54): when every attempt of an alert missed its owner, the alert is called once
// at another number, introduced as someone else's alert, with the keypad as usual (their 1
// acknowledges it). A number rings only after it agreed: setting it places a verification call
// ("press 1 to agree to receive alerts for …"); until a 1 comes back it is `pending` and nothing is
// escalated to it. Opt-in per account. Pure: the number's checks, the decision, the words.
import { type Account, phoneSchema } from '../account.js';
import { BACKUP_WORDS } from '../speech/backup-words.js';
import type { LanguageCode } from '../speech/language-types.js';
import type { FinalState } from './call-state.js';
import { describeRingAgain, missedPerson, type RingAgainSettings } from './ring-again.js';

export type BackupPhoneStatus = NonNullable<Account['backupPhoneStatus']>;

export type BackupPerson = Pick<Account, 'backupPhone' | 'backupPhoneStatus'>;

export const NO_BACKUP_PERSON: BackupPerson = { backupPhone: null, backupPhoneStatus: null };

export function isBackupPhoneStatus(text: unknown): text is BackupPhoneStatus {
  return text === 'pending' || text === 'verified';
}

/** `--backup-phone +E164|off`: another number than the account's own (`phone`: the one it will have). */
export function parseBackupPhone(
  text: string,
  phone: string,
): { ok: true; value: string | null } | { ok: false; error: string } {
  if (text.trim().toLowerCase() === 'off') return { ok: true, value: null };
  const parsed = phoneSchema.safeParse(text);
  if (!parsed.success)
    return {
      ok: false,
      error: `--backup-phone: '${text}' is not a phone number in E.164 form (e.g. +14155550123) nor off`,
    };
  if (parsed.data === phone)
    return {
      ok: false,
      error: `--backup-phone: '${text}' is the account's own number: the backup person is called at another one`,
    };
  return { ok: true, value: parsed.data };
}

/** What the account's settings become when the backup number is set to `value` (a new number waits for its 1). */
export function backupPhoneChange(account: BackupPerson, value: string | null): BackupPerson {
  if (value === null) return NO_BACKUP_PERSON;
  if (value === account.backupPhone && account.backupPhoneStatus !== null) return account;
  return { backupPhone: value, backupPhoneStatus: 'pending' };
}

type Owner = Pick<Account, 'name' | 'phone'> & { language?: LanguageCode };

/** Whose alert it is, as the backup person hears it: the account's name, or its number's last four digits. */
export function alertOwnerLabel(account: Owner): string {
  const name = account.name.trim();
  if (name !== '') return name;
  return BACKUP_WORDS[account.language ?? 'en'].phoneEnding(account.phone.slice(-4).split('').join(' '));
}

/** Before each message of an alert called at the backup number, in the account's language. */
export function backupIntro(account: Owner): string {
  return BACKUP_WORDS[account.language ?? 'en'].intro(alertOwnerLabel(account));
}

/** What the verification call says, in the account's language (kept in the history as its message). */
export function verificationMessage(account: Owner): string {
  return BACKUP_WORDS[account.language ?? 'en'].verification(alertOwnerLabel(account));
}

export interface EscalationFacts {
  state: FinalState;
  account: Pick<Account, 'requireConfirm' | 'status'> & BackupPerson;
  /** The call that just ended rang the backup number already. */
  toBackup: boolean;
  /** A newer alert rings the owner's phone or waits for its line: it carries the news (and is escalated itself if missed). */
  newerAlertForPhone: boolean;
  expiresAt?: number | undefined;
  now: number;
}

/** Whether a missed alert, with no attempt left, is called now at the account's verified backup number. */
export function decideEscalation(f: EscalationFacts): boolean {
  const { account } = f;
  if (f.toBackup || f.newerAlertForPhone || account.status !== 'active') return false;
  if (account.backupPhone === null || account.backupPhoneStatus !== 'verified') return false;
  if (f.expiresAt !== undefined && f.now >= f.expiresAt) return false;
  return missedPerson(f.state, account.requireConfirm);
}

/** A number as people read it: +1 415 555 0123 for the NANP, the country code apart otherwise. */
export function spacedPhone(phone: string): string {
  const nanp = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(phone);
  if (nanp) return `+1 ${nanp[1]} ${nanp[2]} ${nanp[3]}`;
  return phone;
}

/** What `account show` and the dashboard add to the ring-again sentence (empty: no backup person). */
export function describeBackupPerson(account: BackupPerson): string {
  if (account.backupPhone === null) return '';
  const number = spacedPhone(account.backupPhone);
  if (account.backupPhoneStatus === 'verified')
    return `Then ${number}, the backup person, is called once, the alert introduced as yours; their 1 acknowledges it.`;
  return `The backup person ${number} is not called yet: they have not pressed 1 in their verification call (pending).`;
}

/** What happens to a missed call, ring again and backup person together (`account show`, the dashboard). */
export function describeMissedCall(account: RingAgainSettings & BackupPerson): string {
  return [describeRingAgain(account), describeBackupPerson(account)].filter(Boolean).join(' ');
}
