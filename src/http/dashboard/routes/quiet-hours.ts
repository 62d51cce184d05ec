// The owner's quiet hours form (#41): windows, time zone and mode checked as the CLI checks them;
// a bad one is a 400 with its one-line reason and changes nothing.
import type { H3 } from 'h3';
import { z } from 'zod';
import { QUIET_MODES } from '../../../core/delivery/quiet-delivery.js';
import { formatQuietWindows, isTimeZone, parseQuietWindows } from '../../../core/delivery/quiet-hours.js';
import { saveSettings, type DashboardContext } from '../context.js';
import { overviewWithError, postOverviewForm } from './form-error.js';

const quietForm = z.object({
  quiet_hours: z.string().max(300, { error: 'the quiet hours must be at most 300 characters' }),
  time_zone: z
    .string()
    .refine(isTimeZone, { error: 'the time zone must be an IANA name, e.g. Europe/Berlin, America/New_York or UTC' }),
  quiet_mode: z.enum(QUIET_MODES, { error: 'the mode must be hold, sms or call' }),
});

export function mountQuietHoursRoute(app: H3, ctx: DashboardContext): void {
  postOverviewForm(app, ctx, ['/dashboard/quiet-hours', 'quiet'], quietForm, async (who, data) => {
    const { account } = who;
    let quietHours = '';
    if (data.quiet_hours.trim() !== '') {
      const parsed = parseQuietWindows(data.quiet_hours);
      if (!parsed.ok) return overviewWithError(ctx, who, { form: 'quiet', reason: parsed.error, values: data });
      quietHours = formatQuietWindows(parsed.value);
    }
    const changes = { quietHours, timeZone: data.time_zone, quietMode: data.quiet_mode };
    return saveSettings(ctx, account.userId, changes, {
      what: 'quiet hours',
      fields: { quiet_hours: quietHours, time_zone: data.time_zone, quiet_mode: data.quiet_mode },
      notice: 'quiet',
    });
  });
}
