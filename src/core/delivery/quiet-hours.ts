// Quiet hours: an account's time zone and weekly windows in which alerts are not rung through.
// Pure: the instant is passed in. A window belongs to the weekday it starts on; when its end is
// not after its start it ends on the next day ("fri 22:00-07:00" ends Saturday 07:00). Windows
// are spans of real instants: a wall time skipped by a daylight-saving change means the change
// itself, a wall time that happens twice means its first occurrence, so a window never ends,
// restarts and ends again in the repeated hour.

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const WEEK_MINUTES = 7 * 24 * 60;

export interface QuietWindow {
  /** Weekdays the window starts on, 0 = Sunday … 6 = Saturday. */
  days: number[];
  /** Minutes after local midnight, 0 … 1439. */
  startMinute: number;
  /** Minutes after local midnight, 0 … 1440; not after startMinute means on the next day. */
  endMinute: number;
}

export interface QuietHours {
  timeZone: string;
  windows: QuietWindow[];
}

export type QuietState = { quiet: false } | { quiet: true; endsAt: number };

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export const QUIET_HOURS_SYNTAX = "DAYS HH:MM-HH:MM[, …], e.g. 'mon-fri 22:00-07:00, sat-sun 00:00-09:00'";

export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z0-9_+\-/]+$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function parseDay(text: string): number | undefined {
  const index = DAY_NAMES.indexOf(text as (typeof DAY_NAMES)[number]);
  return index < 0 ? undefined : index;
}

function parseDays(text: string): number[] | string {
  if (text === 'daily') return [0, 1, 2, 3, 4, 5, 6];
  const [from, to, extra] = text.split('-');
  const first = parseDay(from ?? '');
  const last = to === undefined ? first : parseDay(to);
  if (extra !== undefined || first === undefined || last === undefined) {
    return `'${text}' is not a day or day range (mon … sun, e.g. 'mon-fri', 'sat', 'fri-mon', 'daily')`;
  }
  const days: number[] = [];
  for (let day = first; ; day = (day + 1) % 7) {
    days.push(day);
    if (day === last) break;
  }
  return days;
}

function parseClock(text: string, allowEndOfDay: boolean): number | undefined {
  const match = /^(\d{1,2}):(\d{2})$/.exec(text);
  if (!match) return undefined;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  if (allowEndOfDay && hours === 24 && minutes === 0) return 1440;
  if (hours > 23 || minutes > 59) return undefined;
  return hours * 60 + minutes;
}

function parseWindow(entry: string): QuietWindow | string {
  const match = /^(\S+)\s+(\S+)-(\S+)$/.exec(entry);
  if (!match) return `'${entry}' is not 'DAYS HH:MM-HH:MM' (e.g. 'mon-fri 22:00-07:00')`;
  const days = parseDays(match[1] ?? '');
  if (typeof days === 'string') return days;
  const startMinute = parseClock(match[2] ?? '', false);
  const endMinute = parseClock(match[3] ?? '', true);
  if (startMinute === undefined) return `'${match[2]}' is not a time of day 00:00 … 23:59`;
  if (endMinute === undefined) return `'${match[3]}' is not a time of day 00:00 … 24:00`;
  if (startMinute === endMinute) return `'${entry}' starts and ends at the same time`;
  return { days, startMinute, endMinute };
}

/** Minutes of the week (Sunday 00:00 = 0) a window covers, ignoring daylight saving. */
function coveredMinutes(windows: QuietWindow[]): Set<number> {
  const covered = new Set<number>();
  for (const window of windows) {
    const length =
      window.endMinute > window.startMinute
        ? window.endMinute - window.startMinute
        : 1440 - window.startMinute + window.endMinute;
    for (const day of window.days) {
      const start = day * 1440 + window.startMinute;
      for (let m = 0; m < length; m++) covered.add((start + m) % WEEK_MINUTES);
    }
  }
  return covered;
}

/** Parses the `--quiet-hours` text; entries separated by commas. */
export function parseQuietWindows(text: string): Parsed<QuietWindow[]> {
  const entries = text
    .toLowerCase()
    .split(',')
    .map((entry) => entry.trim().replace(/\s+/g, ' '));
  if (entries.length === 0 || entries.some((entry) => entry === '')) {
    return { ok: false, error: `quiet hours: an empty entry; expected ${QUIET_HOURS_SYNTAX}` };
  }
  const windows: QuietWindow[] = [];
  for (const entry of entries) {
    const window = parseWindow(entry);
    if (typeof window === 'string') return { ok: false, error: `quiet hours: ${window}` };
    windows.push(window);
  }
  if (coveredMinutes(windows).size >= WEEK_MINUTES) {
    return { ok: false, error: 'quiet hours: the windows cover the whole week, no alert would ever ring' };
  }
  return { ok: true, value: windows };
}

function clockText(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}

function daysText(days: number[]): string {
  if (days.length === 7) return 'daily';
  const first = days[0] ?? 0;
  const last = days[days.length - 1] ?? first;
  const name = (day: number) => DAY_NAMES[day] ?? 'sun';
  return first === last ? name(first) : `${name(first)}-${name(last)}`;
}

/** The canonical text of windows; parseQuietWindows(formatQuietWindows(w)) gives w back. */
export function formatQuietWindows(windows: QuietWindow[]): string {
  return windows.map((w) => `${daysText(w.days)} ${clockText(w.startMinute)}-${clockText(w.endMinute)}`).join(', ');
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The local wall time at `instant`, written as if it were UTC milliseconds. */
function wallClock(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

function offsetAt(instant: number, timeZone: string): number {
  const whole = Math.floor(instant / 1000) * 1000;
  return wallClock(whole, timeZone) - whole;
}

/** The first instant showing `wall` locally, or the daylight-saving change that skips it. */
export function instantOfWallClock(wall: number, timeZone: string): number {
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  const valid = [wall - before, wall - after].filter((t) => offsetAt(t, timeZone) === wall - t);
  if (valid.length > 0) return Math.min(...valid);
  // In a gap: the change lies between the two readings; find it to the second.
  let low = wall - after;
  let high = wall - before;
  while (high - low > 1000) {
    const middle = Math.floor((low + high) / 2000) * 1000;
    if (offsetAt(middle, timeZone) === after) high = middle;
    else low = middle;
  }
  return high;
}

interface Span {
  start: number;
  end: number;
}

/** Every window occurrence that starts from two days before `instant` to eight days after. */
function spansAround(hours: QuietHours, instant: number): Span[] {
  const today = wallClock(instant, hours.timeZone);
  const midnight = today - (today % DAY_MS);
  const spans: Span[] = [];
  for (let offset = -2; offset <= 8; offset++) {
    const date = midnight + offset * DAY_MS;
    const weekday = new Date(date).getUTCDay();
    for (const window of hours.windows) {
      if (!window.days.includes(weekday)) continue;
      const endDate = window.endMinute > window.startMinute ? date : date + DAY_MS;
      spans.push({
        start: instantOfWallClock(date + window.startMinute * MINUTE_MS, hours.timeZone),
        end: instantOfWallClock(endDate + window.endMinute * MINUTE_MS, hours.timeZone),
      });
    }
  }
  return spans;
}

/** Whether `instant` is inside quiet hours and, when it is, the instant they end. */
export function quietState(hours: QuietHours, instant: number): QuietState {
  const spans = spansAround(hours, instant);
  const covering = spans.filter((s) => s.start <= instant && instant < s.end);
  if (covering.length === 0) return { quiet: false };
  let endsAt = Math.max(...covering.map((s) => s.end));
  // Adjoining or overlapping windows ("fri 22:00-07:00, sat 00:00-09:00") make one quiet stretch.
  for (let extended = true; extended; ) {
    extended = false;
    for (const span of spans) {
      if (span.start <= endsAt && endsAt < span.end) {
        endsAt = span.end;
        extended = true;
      }
    }
  }
  return { quiet: true, endsAt };
}
