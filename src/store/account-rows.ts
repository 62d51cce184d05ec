// An account's row as both stores keep it and how it becomes an Account: its settings as columns,
// a new account's defaults, and the settings an older schema's row has no column for.
import type { Account, AccountStatus } from '../core/account.js';
import { isBackupPhoneStatus, NO_BACKUP_PERSON } from '../core/calls/backup-person.js';
import type { LanguageCode, VoiceId } from '../core/speech/language-types.js';
import { DEFAULT_LANGUAGE, defaultVoice } from '../core/speech/languages.js';
import type { Plan } from '../core/webhook/limits.js';
import { isQuietMode, NO_QUIET_HOURS } from '../core/delivery/quiet-delivery.js';
import type { AccountSettings, NewAccount } from '../core/records.js';
import { RING_AGAIN_OFF } from '../core/calls/ring-again.js';

/** An account's row as both stores keep it (the api_key sealed). */
export interface AccountRow {
  user_id: string;
  api_key_sealed: string;
  name: string;
  phone: string;
  plan: Plan;
  sms_backup: number;
  require_confirm: number;
  language: LanguageCode;
  voice: VoiceId;
  intro: string | null;
  status: AccountStatus;
  /** Absent in a row of schema 12 or older (an expand migration). */
  dedupe_seconds?: number;
  webhook_sources?: string;
  /** Absent in a row of schema 14 or older. */
  quiet_hours?: string;
  time_zone?: string;
  quiet_mode?: string;
  /** Absent in a row of schema 16 or older. */
  ring_again?: number;
  ring_again_after?: number;
  /** Absent in a row of schema 17 or older (the backup person, #54). */
  backup_phone?: string | null;
  backup_phone_status?: string | null;
  /** Absent in a row of schema 19 or older (decision keys, #56); the PIN read only as whether it is set. */
  decision_keys?: string;
  decision_pin_set?: number | boolean;
  /** 1 when the account has a callback URL, read with the account (SQLite); absent where not read. */
  callback_on?: number;
  created_at: number;
  updated_at: number;
  key_created_at: number;
}

export const ACCOUNT_COLUMNS =
  'user_id, api_key_sealed, name, phone, plan, sms_backup, require_confirm, language, voice, intro, status, dedupe_seconds, webhook_sources, quiet_hours, time_zone, quiet_mode, ring_again, ring_again_after, backup_phone, backup_phone_status, decision_keys, (decision_pin_hash IS NOT NULL) AS decision_pin_set, created_at, updated_at, key_created_at';

/** A setting a row of an older schema has no column for, and a new account takes when it is not given. */
const LATER_SETTINGS = {
  dedupeSeconds: 0,
  webhookSources: 'any',
  ...NO_QUIET_HOURS,
  ...RING_AGAIN_OFF,
  ...NO_BACKUP_PERSON,
  decisionKeys: '',
} as const;

/** A new account's settings, each one its input leaves out taken by default. */
export function newAccountSettings(input: NewAccount): AccountSettings {
  const language = input.language ?? DEFAULT_LANGUAGE;
  return {
    smsBackup: input.smsBackup,
    requireConfirm: input.requireConfirm !== false,
    language,
    voice: input.voice ?? defaultVoice(language),
    intro: input.intro ?? null,
    dedupeSeconds: input.dedupeSeconds ?? LATER_SETTINGS.dedupeSeconds,
    webhookSources: input.webhookSources ?? LATER_SETTINGS.webhookSources,
    quietHours: input.quietHours ?? LATER_SETTINGS.quietHours,
    timeZone: input.timeZone ?? LATER_SETTINGS.timeZone,
    quietMode: input.quietMode ?? LATER_SETTINGS.quietMode,
    ringAgain: input.ringAgain ?? LATER_SETTINGS.ringAgain,
    ringAgainAfter: input.ringAgainAfter ?? LATER_SETTINGS.ringAgainAfter,
    backupPhone: input.backupPhone ?? LATER_SETTINGS.backupPhone,
    backupPhoneStatus: input.backupPhoneStatus ?? LATER_SETTINGS.backupPhoneStatus,
    decisionKeys: input.decisionKeys ?? LATER_SETTINGS.decisionKeys,
  };
}

/** An account's settings as columns, in the order both stores write them (after name, phone and plan). */
export function settingColumns(settings: AccountSettings) {
  return {
    sms_backup: settings.smsBackup ? 1 : 0,
    require_confirm: settings.requireConfirm ? 1 : 0,
    language: settings.language,
    voice: settings.voice,
    intro: settings.intro,
    dedupe_seconds: settings.dedupeSeconds,
    webhook_sources: settings.webhookSources,
    quiet_hours: settings.quietHours,
    time_zone: settings.timeZone,
    quiet_mode: settings.quietMode,
    ring_again: settings.ringAgain,
    ring_again_after: settings.ringAgainAfter,
    backup_phone: settings.backupPhone,
    backup_phone_status: settings.backupPhoneStatus,
    decision_keys: settings.decisionKeys,
  };
}

export function toAccount(row: Omit<AccountRow, 'api_key_sealed'>, apiKey: string): Account {
  return {
    userId: row.user_id,
    apiKey,
    name: row.name,
    phone: row.phone,
    plan: row.plan,
    smsBackup: row.sms_backup === 1,
    requireConfirm: row.require_confirm === 1,
    language: row.language,
    voice: row.voice,
    intro: row.intro,
    status: row.status,
    dedupeSeconds: Number(row.dedupe_seconds ?? LATER_SETTINGS.dedupeSeconds),
    webhookSources: row.webhook_sources ?? LATER_SETTINGS.webhookSources,
    quietHours: row.quiet_hours ?? LATER_SETTINGS.quietHours,
    timeZone: row.time_zone ?? LATER_SETTINGS.timeZone,
    quietMode: row.quiet_mode !== undefined && isQuietMode(row.quiet_mode) ? row.quiet_mode : LATER_SETTINGS.quietMode,
    ringAgain: Number(row.ring_again ?? LATER_SETTINGS.ringAgain),
    ringAgainAfter: Number(row.ring_again_after ?? LATER_SETTINGS.ringAgainAfter),
    backupPhone: row.backup_phone ?? null,
    backupPhoneStatus:
      row.backup_phone && isBackupPhoneStatus(row.backup_phone_status) ? row.backup_phone_status : null,
    decisionKeys: row.decision_keys ?? LATER_SETTINGS.decisionKeys,
    decisionPinSet: row.decision_pin_set === true || Number(row.decision_pin_set) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    keyCreatedAt: row.key_created_at,
    ...(row.callback_on !== undefined && { hasCallback: row.callback_on === 1 }),
  };
}
