// The shape of an account and the validation of what an admin may set on it. Pure.
import { z } from 'zod';
import type { LanguageCode, VoiceId } from './speech/language-types.js';
import type { Plan } from './webhook/limits.js';
import type { QuietMode } from './delivery/quiet-delivery.js';

export type AccountStatus = 'active' | 'suspended';

/** A suspended account gets no call of any kind (alerts, test calls), nor an SMS in its place. */
export function receivesCalls(account: Pick<Account, 'status'>): boolean {
  return account.status === 'active';
}

export interface Account {
  userId: string;
  apiKey: string;
  name: string;
  phone: string;
  plan: Plan;
  smsBackup: boolean;
  /** An answered call counts as heard only when 1 was pressed; otherwise it ends `unconfirmed` (SMS backup applies). */
  requireConfirm: boolean;
  /** What the call speaks in, and with which voice (core/speech/languages). */
  language: LanguageCode;
  voice: VoiceId;
  /** The words before the message; null: the language's own. */
  intro: string | null;
  status: AccountStatus;
  /** Duplicate alerts within this many seconds are answered with the first call (0: off, the seed's rule). */
  dedupeSeconds: number;
  /** Who may send alerts: 'any', 'tradingview' or a list of addresses and CIDR blocks (core/webhook/webhook-sources). */
  webhookSources: string;
  /** Quiet hours (core/delivery/quiet-delivery): the windows' canonical text ('' = none), their IANA time zone, and what happens to an alert in them. */
  quietHours: string;
  timeZone: string;
  quietMode: QuietMode;
  /** Ring again (core/calls/ring-again): how many more calls a missed alert gets (0: one call, the default), and the seconds from one call's start to the next's. */
  ringAgain: number;
  ringAgainAfter: number;
  /** The backup person (core/calls/backup-person): called once when every attempt missed; only once they pressed 1 in their verification call (`verified`). */
  backupPhone: string | null;
  backupPhoneStatus: 'pending' | 'verified' | null;
  /** Decision keys (#56, core/calls/decision-keys): their canonical text (`7=buy,8=skip`; '' = none). */
  decisionKeys: string;
  /** A decision PIN is set (its hash stays in the store: never read out, never shown). */
  decisionPinSet: boolean;
  createdAt: number;
  updatedAt: number;
  keyCreatedAt: number;
  /**
   * Whether the account has a status callback URL, when the store read it with the account (SQLite
   * does): false spares the callback feed a read for each of its alerts. Absent: not known.
   */
  hasCallback?: boolean;
}

/** E.164: a plus, a country code that does not start with 0, at most 15 digits in all. */
export const phoneSchema = z
  .string()
  .transform((s) => s.replace(/[\s().-]/g, ''))
  .pipe(
    z.string().regex(/^\+[1-9]\d{6,14}$/, {
      error: 'the phone number must be in E.164 form: a plus, the country code and the number, e.g. +14155550123',
    }),
  );

export const planSchema = z.enum(['free', 'premium'], { error: 'the plan must be free or premium' });

export const nameSchema = z
  .string()
  .max(100, { error: 'the name must be at most 100 characters' })
  .refine((s) => !/[\u0000-\u001F\u007F]/.test(s), { error: 'the name must not contain control characters' });

export function webhookUrl(publicUrl: string, account: Pick<Account, 'userId' | 'apiKey'>): string {
  return `${publicUrl}/webhook/${account.userId}/${account.apiKey}`;
}
