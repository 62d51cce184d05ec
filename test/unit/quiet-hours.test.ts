import { describe, expect, it } from 'vitest';
import {
  formatQuietWindows,
  instantOfWallClock,
  isTimeZone,
  parseQuietWindows,
  type QuietHours,
  quietState,
} from '../../src/core/delivery/quiet-hours.js';

function hours(timeZone: string, text: string): QuietHours {
  const parsed = parseQuietWindows(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return { timeZone, windows: parsed.value };
}

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('parseQuietWindows', () => {
  it("reads days, ranges across the week's end, daily and several entries", () => {
    const parsed = parseQuietWindows(
      'Mon-Fri 22:00-07:00,  sat-sun 00:00-09:00, fri-mon 12:00-13:00, daily 03:00-24:00',
    );
    expect(parsed).toEqual({
      ok: true,
      value: [
        { days: [1, 2, 3, 4, 5], startMinute: 1320, endMinute: 420 },
        { days: [6, 0], startMinute: 0, endMinute: 540 },
        { days: [5, 6, 0, 1], startMinute: 720, endMinute: 780 },
        { days: [0, 1, 2, 3, 4, 5, 6], startMinute: 180, endMinute: 1440 },
      ],
    });
  });

  it('gives the canonical text back', () => {
    const text = 'mon-fri 22:00-07:00, sat-sun 00:00-09:00, wed 12:30-13:00, daily 03:00-04:00';
    const parsed = parseQuietWindows(text);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(formatQuietWindows(parsed.value)).toBe(text);
  });

  it.each([
    ['', 'empty entry'],
    ['mon-fri 22:00-07:00,', 'empty entry'],
    ['monday 22:00-07:00', "'monday' is not a day"],
    ['mon-fri-sat 22:00-07:00', 'is not a day or day range'],
    ['mon-fri 22:00', "is not 'DAYS HH:MM-HH:MM'"],
    ['mon-fri 25:00-07:00', "'25:00' is not a time of day 00:00 … 23:59"],
    ['mon-fri 22:00-07:60', "'07:60' is not a time of day"],
    ['mon-fri 24:00-07:00', "'24:00' is not a time of day 00:00 … 23:59"],
    ['mon 07:00-07:00', 'starts and ends at the same time'],
    ['daily 00:00-24:00', 'cover the whole week'],
    ['mon-sun 12:00-12:01, daily 12:01-12:00', 'cover the whole week'],
  ])('refuses %j with a one-line error', (text, message) => {
    const parsed = parseQuietWindows(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error).toContain(message);
      expect(parsed.error).not.toContain('\n');
    }
  });
});

describe('isTimeZone', () => {
  it('accepts IANA names and refuses others', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone('Europe/Berlin; rm')).toBe(false);
  });
});

describe('quietState', () => {
  const berlin = hours('Europe/Berlin', 'mon-fri 22:00-07:00, sat-sun 00:00-09:00');

  it('is loud outside the windows', () => {
    // Wednesday 2026-06-10 12:00 in Berlin (UTC+2).
    expect(quietState(berlin, at('2026-06-10T10:00:00Z'))).toEqual({ quiet: false });
    // Wednesday 21:59:59 local: one second before the window.
    expect(quietState(berlin, at('2026-06-10T19:59:59Z'))).toEqual({ quiet: false });
  });

  it('is quiet across midnight and ends the next morning', () => {
    // Wednesday 22:00 local → Thursday 07:00 local.
    expect(quietState(berlin, at('2026-06-10T20:00:00Z'))).toEqual({ quiet: true, endsAt: at('2026-06-11T05:00:00Z') });
    // Thursday 03:00 local, inside the window that began on Wednesday.
    expect(quietState(berlin, at('2026-06-11T01:00:00Z'))).toEqual({ quiet: true, endsAt: at('2026-06-11T05:00:00Z') });
    // Thursday 07:00 local: over.
    expect(quietState(berlin, at('2026-06-11T05:00:00Z'))).toEqual({ quiet: false });
  });

  it("joins a Friday night window with Saturday's morning window into one stretch", () => {
    // Friday 2026-06-12 23:00 local: quiet until Saturday 09:00, not Saturday 07:00.
    expect(iso((quietState(berlin, at('2026-06-12T21:00:00Z')) as { endsAt: number }).endsAt)).toBe(
      '2026-06-13T07:00:00.000Z',
    );
  });

  it('a Friday-starting window ends on Saturday; Sunday night is loud', () => {
    // Sunday 2026-06-14 23:00 local: mon-fri windows do not start on Sunday.
    expect(quietState(berlin, at('2026-06-14T21:00:00Z'))).toEqual({ quiet: false });
    // Monday 2026-06-15 06:00 local: no window began on Sunday night, sat-sun ended 09:00 Sunday.
    expect(quietState(berlin, at('2026-06-15T04:00:00Z'))).toEqual({ quiet: false });
  });

  it('Berlin spring forward: 22:00-07:00 across the change lasts 8 real hours', () => {
    // Saturday 2026-03-28 22:00 CET (UTC+1); clocks jump 02:00 → 03:00 on Sunday the 29th.
    const h = hours('Europe/Berlin', 'sat 22:00-07:00');
    const state = quietState(h, at('2026-03-28T21:00:00Z'));
    expect(state).toEqual({ quiet: true, endsAt: at('2026-03-29T05:00:00Z') });
    expect(at('2026-03-29T05:00:00Z') - at('2026-03-28T21:00:00Z')).toBe(8 * 3600_000);
  });

  it('Berlin autumn back: 22:00-07:00 across the change lasts 10 real hours', () => {
    // Saturday 2026-10-24 22:00 CEST (UTC+2); clocks go back 03:00 → 02:00 on Sunday the 25th.
    const h = hours('Europe/Berlin', 'sat 22:00-07:00');
    expect(quietState(h, at('2026-10-24T20:00:00Z'))).toEqual({ quiet: true, endsAt: at('2026-10-25T06:00:00Z') });
    expect(quietState(h, at('2026-10-25T05:59:59Z')).quiet).toBe(true);
    expect(quietState(h, at('2026-10-25T06:00:00Z')).quiet).toBe(false);
  });

  it('New York spring forward: a window ending in the skipped hour ends at the change', () => {
    // 2026-03-08: 02:00 EST → 03:00 EDT (07:00Z). 02:30 never shows on a New York clock.
    const h = hours('America/New_York', 'sat 23:00-02:30');
    expect(quietState(h, at('2026-03-08T06:00:00Z'))).toEqual({ quiet: true, endsAt: at('2026-03-08T07:00:00Z') });
    expect(quietState(h, at('2026-03-08T07:00:00Z'))).toEqual({ quiet: false });
    expect(instantOfWallClock(Date.UTC(2026, 2, 8, 2, 30), 'America/New_York')).toBe(at('2026-03-08T07:00:00Z'));
  });

  it('New York autumn back: a window ending in the repeated hour ends at its first occurrence and stays over', () => {
    // 2026-11-01: 02:00 EDT → 01:00 EST (06:00Z). 01:30 shows at 05:30Z and again at 06:30Z.
    const h = hours('America/New_York', 'sat 23:00-01:30');
    expect(quietState(h, at('2026-11-01T04:00:00Z'))).toEqual({ quiet: true, endsAt: at('2026-11-01T05:30:00Z') });
    expect(quietState(h, at('2026-11-01T05:30:00Z'))).toEqual({ quiet: false });
    // The second 01:10 (06:10Z) is not quiet again.
    expect(quietState(h, at('2026-11-01T06:10:00Z'))).toEqual({ quiet: false });
  });

  it('New York: a window starting in the skipped hour starts at the change', () => {
    const h = hours('America/New_York', 'sun 02:30-05:00');
    expect(quietState(h, at('2026-03-08T06:59:59Z'))).toEqual({ quiet: false });
    expect(quietState(h, at('2026-03-08T07:00:00Z'))).toEqual({ quiet: true, endsAt: at('2026-03-08T09:00:00Z') });
  });

  it("works from a day's last minute to the end of the day (24:00)", () => {
    const h = hours('UTC', 'tue 23:59-24:00, wed 00:00-01:00');
    // 2026-06-09 is a Tuesday.
    expect(quietState(h, at('2026-06-09T23:59:30Z'))).toEqual({ quiet: true, endsAt: at('2026-06-10T01:00:00Z') });
  });
});
