// A call's timeline (its call_events) as the steps an owner reads: received, dialing, ringing,
// answered, detection's verdict in words, each key pressed, the SMS steps, the end. Pure.
// The technical notes (audio watch, talk measures, hang-up causes) are the admin's only.
import { HELD } from '../../core/calls/call-state.js';
import { KEY_EVENT } from '../../core/calls/keypad.js';
import type { CallEventRow, CallRecord } from '../../core/records.js';
import { detectionVerdictWords } from './format.js';
import { statusInfo } from './status.js';

export interface TimelineStep {
  at: number;
  text: string;
  /** A key press: the key, shown as a key. */
  key?: string | undefined;
}

const SMS_STEPS: Record<string, string> = {
  sending: 'SMS being sent',
  waiting: 'SMS waiting for the SMS gateway',
  sent: 'SMS sent',
  delivered: 'SMS delivered',
  failed: 'SMS failed',
  disabled: 'No SMS sent',
};

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function step(row: CallEventRow, admin: boolean): TimelineStep | null {
  const { at, event, detail } = row;
  if (event === KEY_EVENT && detail) {
    const split = detail.indexOf(': ');
    if (split < 1) return null;
    const key = detail.slice(0, split);
    return { at, key, text: `pressed: ${detail.slice(split + 2)}` };
  }
  if (event === 'amd') {
    const [status = '', cause = null] = (detail ?? '').split(' ');
    return { at, text: `Detection: ${detectionVerdictWords(status, cause)}` };
  }
  if (event.startsWith('sms_')) {
    const said = SMS_STEPS[event.slice(4)] ?? capitalised(event.slice(4).replace(/_/g, ' '));
    return { at, text: admin && detail ? `${said} (${detail})` : said };
  }
  if (event === HELD) return { at, text: detail ? `Held: ${detail}` : 'Held for quiet hours' };
  if (event === 'released' || event === 'allowance') return detail ? { at, text: capitalised(detail) } : null;
  if (event === 'trunk') return { at, text: 'Placed again through the backup trunk' };
  const info = statusInfo(event);
  // A call state: its name (the reason of an end is the Reason line's sentence).
  if (info.tone !== 'muted' || ['rate_limited', 'limit_exceeded', 'suspended'].includes(event)) {
    return { at, text: admin && detail ? `${info.label} (${detail})` : info.label };
  }
  return admin ? { at, text: detail ? `${event}: ${detail}` : event } : null;
}

/** The steps of one call, oldest first, starting with its arrival. */
export function timelineSteps(
  entry: Pick<CallRecord, 'receivedAt' | 'kind'>,
  events: readonly CallEventRow[],
  admin = false,
): TimelineStep[] {
  const steps: TimelineStep[] = [
    { at: entry.receivedAt, text: entry.kind === 'test' ? 'Test call asked for' : 'Alert received' },
  ];
  for (const row of events) {
    const made = step(row, admin);
    if (made) steps.push(made);
  }
  return steps;
}
