// How the CLI prints: aligned "key: value" lines for people, JSON for scripts. Whatever a command
// writes passes the guard of terminal-guard.ts too (control characters from outside escaped).
import type { Account } from '../core/account.js';
import { webhookUrl } from '../core/account.js';
import { introFor } from '../core/speech/languages.js';
import type { CallRecord } from '../core/records.js';
import { smsReasonText } from '../core/reasons.js';
import type { SmsGatewayState } from '../core/delivery/sms-truth.js';
import { terminalSafeLine } from '../core/server/terminal-text.js';
import { smsBackupFields } from './sms-promise.js';
import { quietHoursView } from './quiet-hours-args.js';
import { describeMissedCall } from '../core/calls/backup-person.js';
import { callDecisionText } from '../core/calls/decision-keys.js';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printFields(fields: Record<string, unknown>): void {
  const width = Math.max(...Object.keys(fields).map((k) => k.length));
  for (const [key, value] of Object.entries(fields)) {
    process.stdout.write(
      `${(`${key}:`).padEnd(width + 2)}${value === null || value === undefined ? '-' : String(value)}\n`,
    );
  }
}

export function printTable(given: Record<string, string>[], columns: string[]): void {
  if (given.length === 0) return;
  // A cell stays on its line: its newlines and tabs from outside are escaped too.
  const rows = given.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, terminalSafeLine(v)])));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    `${cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()}\n`;
  process.stdout.write(line(columns.map((c) => c.toUpperCase())));
  for (const row of rows) process.stdout.write(line(columns.map((c) => row[c] ?? '')));
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** `sms`: the SMS gateway's state (sms-promise.ts), shown beside the switch as what it can do here. */
export function accountView(account: Account, publicUrl: string, sms: SmsGatewayState) {
  return {
    user_id: account.userId,
    api_key: account.apiKey,
    webhook_url: webhookUrl(publicUrl, account),
    name: account.name,
    phone: account.phone,
    plan: account.plan,
    sms_backup: account.smsBackup,
    ...smsBackupFields(account, sms),
    require_confirm: account.requireConfirm,
    language: account.language,
    voice: account.voice,
    intro: introFor(account),
    dedupe_seconds: account.dedupeSeconds,
    webhook_sources: account.webhookSources,
    ring_again: account.ringAgain,
    ring_again_after: account.ringAgainAfter,
    backup_phone: account.backupPhone,
    backup_phone_status: account.backupPhoneStatus,
    ring_again_effect: describeMissedCall(account),
    decision_keys: account.decisionKeys === '' ? null : account.decisionKeys,
    decision_pin_set: account.decisionPinSet,
    ...quietHoursView(account, sms, Date.now()),
    status: account.status,
    created_at: iso(account.createdAt),
    updated_at: iso(account.updatedAt),
  };
}

export function callView(call: CallRecord) {
  return {
    call_id: call.callId,
    user_id: call.userId,
    kind: call.kind,
    status: call.status,
    message: call.message,
    message_truncated: call.messageTruncated,
    ticker: call.ticker,
    price: call.price,
    action: call.action,
    strategy: call.strategy,
    timestamp: call.alertTimestamp,
    extra: call.extra,
    error: call.error,
    reason_detail: call.reasonDetail,
    received_at: iso(call.receivedAt),
    updated_at: iso(call.updatedAt),
    phone: call.phone,
    dialed_at: call.dialedAt === null ? null : iso(call.dialedAt),
    answered_at: call.answeredAt === null ? null : iso(call.answeredAt),
    ended_at: call.endedAt === null ? null : iso(call.endedAt),
    ring_ms: call.ringMs,
    talk_ms: call.talkMs,
    hangup_cause: call.hangupCause,
    sip_code: call.sipCode,
    sms_status: call.smsStatus,
    sms_message_id: call.smsMessageId,
    sms_at: call.smsAt === null ? null : iso(call.smsAt),
    sms_error: call.smsError,
    sms_reason: call.smsStatus ? smsReasonText(call.smsStatus, call.smsError) : null,
    carried_by: call.carriedBy,
    amd_status: call.amdStatus,
    amd_cause: call.amdCause,
    trunk: call.trunk,
    // Ring again (#54): the attempt shown, the next one's time while it waits, and those before it.
    attempt: call.attempt ?? 1,
    retry_at: call.retryAt ? iso(call.retryAt) : null,
    earlier_attempts: (call.earlierAttempts ?? []).map((a) => ({ at: iso(a.at), outcome: a.outcome })),
    // The backup person (#54): the number this call rang instead of the account's.
    dial_to: call.dialTo ?? null,
    // Decision keys (#56): the alert's own (null: the account's), the decision sent, or why it was refused.
    decision_keys: call.decisionKeys ?? null,
    decision_key: call.decisionKey ?? null,
    decision_label: call.decisionLabel ?? null,
    decided_at: call.decidedAt ? iso(call.decidedAt) : null,
    decision_refused: call.decisionRefused ?? null,
  };
}

/** The decision in the history's table (#56): `, decision: buy (7)`. */
export function decisionNote(call: Parameters<typeof callDecisionText>[0]): string {
  const text = callDecisionText(call);
  return text ? `, ${text}` : '';
}

/** A call rung again (#54), in the history's table: each earlier attempt's time and outcome, then the next one's time. */
export function attemptsNote(call: Pick<CallRecord, 'earlierAttempts' | 'retryAt' | 'status'>): string {
  const earlier = (call.earlierAttempts ?? []).map((a, i) => `#${i + 1} ${iso(a.at).slice(11, 19)} ${a.outcome}`);
  if (earlier.length === 0) return '';
  const next = call.status === 'queued' && call.retryAt ? `; again at ${iso(call.retryAt).slice(11, 19)}` : '';
  return ` [${earlier.join(', ')}${next}]`;
}
