// Messages shown after a redirect (post, redirect, get): the URL names a fixed notice by code,
// never carries text, so nothing a third party puts in a link is shown on the page.
import { z } from 'zod';
import type { Notice } from './layout.js';
import { isInFlight } from '../../core/calls/call-state.js';
import type { CallRecord } from '../../core/records.js';
import { statusInfo } from './status.js';

const NOTICES = {
  'signed-out': { tone: 'ok', text: 'You are signed out.' },
  // What SMS backup then does on this server is said under the switch (no gateway, a failing one).
  'sms-on': { tone: 'ok', text: 'SMS backup turned on.' },
  'sms-off': { tone: 'ok', text: 'SMS backup turned off.' },
  'confirm-on': {
    tone: 'ok',
    text: 'Confirmation required: a call counts as heard only when you press 1.',
  },
  'confirm-off': {
    tone: 'ok',
    text: 'Confirmation no longer required: an answered call whose message played counts as heard.',
  },
  'callback-on': { tone: 'ok', text: 'Saved: status callbacks go to the new URL, signed with the same secret.' },
  'callback-off': { tone: 'ok', text: 'Status callbacks are off: nothing more is sent.' },
  voice: { tone: 'ok', text: 'Saved: your calls now speak with this language, voice and intro.' },
  quiet: { tone: 'ok', text: 'Saved: your quiet hours. What happens to an alert in them is said below.' },
  'decision-keys': { tone: 'ok', text: 'Saved: your decision keys. What a call offers is said below.' },
  'owner-controls': {
    tone: 'ok',
    text: 'Saved: your duplicate window and allowed sources. What they do is said below.',
  },
  regenerated: {
    tone: 'ok',
    text: 'A new webhook URL was made. The old one no longer works: paste the new URL into every alert.',
  },
  'test-call': { tone: 'info', text: 'Test call placed: ringhook is calling your phone. Its progress shows below.' },
  'test-call-limited': { tone: 'error', text: 'Too many test calls. Try again in {retry} seconds.' },
  suspended: {
    tone: 'error',
    text: 'The account is suspended: no calls are placed, test calls included. Ask the operator to resume it.',
  },
  'telephony-off': { tone: 'error', text: 'Test calls are not available: telephony is not configured on this server.' },
} as const satisfies Record<string, Notice>;

const querySchema = z.object({
  notice: z
    .enum(Object.keys(NOTICES) as [keyof typeof NOTICES, ...Array<keyof typeof NOTICES>])
    .optional()
    .catch(undefined),
  retry: z.coerce.number().int().min(1).max(86_400).optional().catch(undefined),
  call: z
    .string()
    .regex(/^call_[A-Za-z0-9_-]{1,64}$/)
    .optional()
    .catch(undefined),
});

/** The test call a notice follows (`?notice=test-call&call=…`), to word the notice by its real state. */
export function followedTestCall(url: URL): string | undefined {
  const { notice, call } = querySchema.parse(Object.fromEntries(url.searchParams));
  return notice === 'test-call' ? call : undefined;
}

/**
 * The test call's notice from the call's state now: placed while it is in progress (the page's
 * script then follows it live), what became of it once it ended. Never "your phone rings" for a
 * call that already ended unreachable.
 */
export function testCallNotice(call: Pick<CallRecord, 'callId' | 'status' | 'error'>): Notice {
  const follow = call.callId;
  if (isInFlight(call.status)) return { ...NOTICES['test-call'], follow };
  const label = statusInfo(call.status).label;
  if (REACHED.has(call.status)) return { tone: 'ok', text: `The test call reached your phone: ${label}.`, follow };
  return { tone: 'error', text: `The test call ended: ${label}.${call.error ? ` ${call.error}` : ''}`, follow };
}

const REACHED: ReadonlySet<string> = new Set(['completed', 'acknowledged', 'unconfirmed', 'voicemail']);

export function noticeFromQuery(url: URL): Notice | undefined {
  const { notice, retry } = querySchema.parse(Object.fromEntries(url.searchParams));
  if (notice === undefined) return undefined;
  const { tone, text } = NOTICES[notice];
  return { tone, text: text.replace('{retry}', String(retry ?? 60)) };
}
