// Messages shown after a redirect (post, redirect, get): the URL names a fixed notice by code,
// never carries text, so nothing a third party puts in a link is shown on the page.
import { z } from 'zod';
import type { Notice } from './layout.js';

const NOTICES = {
  'signed-out': { tone: 'ok', text: 'You are signed out.' },
  'sms-on': { tone: 'ok', text: 'SMS backup turned on: a missed call is followed by an SMS.' },
  'sms-off': { tone: 'ok', text: 'SMS backup turned off.' },
  'confirm-on': {
    tone: 'ok',
    text: 'Confirmation required: a call counts as heard only when you press 1; otherwise the SMS backup goes out.',
  },
  'confirm-off': {
    tone: 'ok',
    text: 'Confirmation no longer required: an answered call whose message played counts as heard.',
  },
  voice: { tone: 'ok', text: 'Saved: your calls now speak with this language, voice and intro.' },
  regenerated: {
    tone: 'ok',
    text: 'A new webhook URL was made. The old one no longer works: paste the new URL into every alert.',
  },
  'test-call': { tone: 'ok', text: 'Test call placed: your phone should ring in a moment. Watch it progress below.' },
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
});

export function noticeFromQuery(url: URL): Notice | undefined {
  const { notice, retry } = querySchema.parse(Object.fromEntries(url.searchParams));
  if (notice === undefined) return undefined;
  const { tone, text } = NOTICES[notice];
  return { tone, text: text.replace('{retry}', String(retry ?? 60)) };
}
