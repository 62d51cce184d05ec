// The fields an alert carries beyond the known ones are kept for the history, but not without
// bound: a sender could otherwise store 60 KiB with every alert. Pure: an object in, an object out.

/** The kept extra fields, written as JSON, are at most this many bytes (UTF-8), the mark included. */
export const MAX_EXTRA_BYTES = 4096;
/** The key that says what was cut; it replaces a sender's own field of that name only when something was cut. */
export const TRUNCATED_KEY = '_truncated';
/** Room kept for the mark: its sentence is under 100 bytes. */
const MARK_ROOM = 128;
/** A text value is shortened rather than left out only if this much of it fits. */
const MIN_KEPT_TEXT_BYTES = 16;
const ELLIPSIS = '…';

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).byteLength;
const jsonBytes = (value: unknown) => bytes(JSON.stringify(value) ?? 'null');

/** The longest start of `text` whose JSON string (quotes and ellipsis included) takes at most `room` bytes. */
function shortened(text: string, room: number): string | undefined {
  let used = 2 + bytes(ELLIPSIS);
  let end = 0;
  for (const ch of text) {
    const size = jsonBytes(ch) - 2;
    if (used + size > room) break;
    used += size;
    end += ch.length;
  }
  return end > 0 && used >= MIN_KEPT_TEXT_BYTES ? text.slice(0, end) + ELLIPSIS : undefined;
}

/**
 * Keeps the extra fields whole, in the order sent, while they fit in MAX_EXTRA_BYTES; a text value
 * that does not fit is shortened to the room left (ending in …), any other value that does not fit
 * is left out, and a later smaller field may still fit. When anything was cut, `_truncated` says
 * how many fields of how many.
 */
export function capExtraFields(extra: Record<string, unknown>): { extra: Record<string, unknown>; truncated: boolean } {
  if (jsonBytes(extra) <= MAX_EXTRA_BYTES) return { extra, truncated: false };
  const budget = MAX_EXTRA_BYTES - MARK_ROOM;
  const kept: Array<[string, unknown]> = [];
  let used = 2;
  let cut = 0;
  const entries = Object.entries(extra).filter(([key]) => key !== TRUNCATED_KEY);
  for (const [key, value] of entries) {
    const head = jsonBytes(key) + 1 + (kept.length > 0 ? 1 : 0);
    const size = head + jsonBytes(value);
    if (used + size <= budget) {
      kept.push([key, value]);
      used += size;
      continue;
    }
    cut++;
    const short = typeof value === 'string' ? shortened(value, budget - used - head) : undefined;
    if (short !== undefined) {
      kept.push([key, short]);
      used += head + jsonBytes(short);
    }
  }
  const mark = `${cut} of ${entries.length} extra fields shortened or left out: over ${MAX_EXTRA_BYTES / 1024} KiB in all`;
  // fromEntries defines own properties: a "__proto__" field stays data.
  return { extra: Object.fromEntries([...kept, [TRUNCATED_KEY, mark]]), truncated: true };
}
