// Small, pure formatting helpers for the pages.

export function formatTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, ' UTC');
}

export function formatDuration(ms: number | null): string | null {
  if (ms === null) return null;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? String(value);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

const seconds = (ms: string | undefined): string => {
  const n = Number(ms);
  if (!Number.isFinite(n)) return '';
  return ` (${Number((n / 1000).toFixed(1))} s)`;
};

/**
 * Why detection decided, in words, from its cause code (Asterisk's AMD and our own talk verdict
 * share the shapes: INITIALSILENCE-5000, LONGGREETING-6200-1500, MAXWORDS-4-3, HUMAN-2-800, TOOLONG-5000).
 * An unknown code says nothing: an owner never reads a code.
 */
export function detectionCauseWords(cause: string | null): string | null {
  if (!cause) return null;
  const [code, first] = cause.split('-');
  switch (code) {
    case 'INITIALSILENCE':
      return `silence at the start${seconds(first)}`;
    case 'LONGGREETING':
      return `a long greeting${seconds(first)}`;
    case 'MAXWORDS':
      return Number.isFinite(Number(first)) ? `many words in a row (${first})` : 'many words in a row';
    case 'MAXWORDLENGTH':
      return `one long stretch of speech${seconds(first)}`;
    case 'HUMAN':
      return 'a short greeting, then silence';
    case 'TOOLONG':
      return `no decision in time${seconds(first)}`;
    default:
      return null;
  }
}

/** Detection's verdict (HUMAN, MACHINE, NOTSURE) and its cause in one phrase: "an answering machine: a long greeting (6.2 s)". */
export function detectionVerdictWords(status: string, cause: string | null): string {
  const who =
    status === 'MACHINE' ? 'an answering machine' : status === 'HUMAN' ? 'a person' : 'not sure: person or machine';
  const why = detectionCauseWords(cause);
  return why ? `${who}: ${why}` : who;
}

/** The date and time without the zone, for a column headed "(UTC)": "2026-12-06 20:22:05". */
export function formatShortTime(ms: number): string {
  return formatTime(ms).replace(/ UTC$/, '');
}

/** The time of day alone, for the steps of one call: "20:22:05". */
export function formatClock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}
