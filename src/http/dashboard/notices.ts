// Messages shown after a redirect (post, redirect, get): the URL names a fixed notice by code,
// never carries text, so nothing a third party puts in a link is shown on the page.
import { z } from 'zod';
import type { Notice } from './layout.js';

const querySchema = z.object({
  notice: z.enum(['signed-out', 'sms-on', 'sms-off', 'regenerated', 'test-call', 'test-call-limited', 'telephony-off', 'suspended']).optional().catch(undefined),
  retry: z.coerce.number().int().min(1).max(86_400).optional().catch(undefined),
});

export function noticeFromQuery(url: URL): Notice | undefined {
  const { notice, retry } = querySchema.parse(Object.fromEntries(url.searchParams));
  switch (notice) {
    case 'signed-out':
      return { tone: 'ok', text: 'You are signed out.' };
    case 'sms-on':
      return { tone: 'ok', text: 'SMS backup turned on: a missed call is followed by an SMS.' };
    case 'sms-off':
      return { tone: 'ok', text: 'SMS backup turned off.' };
    case 'regenerated':
      return { tone: 'ok', text: 'A new webhook URL was made. The old one no longer works: paste the new URL into every alert.' };
    case 'test-call':
      return { tone: 'ok', text: 'Test call placed: your phone should ring in a moment. Watch it progress below.' };
    case 'test-call-limited':
      return { tone: 'error', text: `Too many test calls. Try again in ${retry ?? 60} seconds.` };
    case 'suspended':
      return { tone: 'error', text: 'The account is suspended: no calls are placed, test calls included. Ask the operator to resume it.' };
    case 'telephony-off':
      return { tone: 'error', text: 'Test calls are not available: telephony is not configured on this server.' };
    default:
      return undefined;
  }
}
