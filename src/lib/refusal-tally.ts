// Refusals that come in floods (live streams over their cap, connections over theirs) are logged as
// one line per period with a count, never one line each: a single client must not be able to fill
// the log. The first refusal after a quiet period is told at once; the others of that period are
// summed up in one line when it ends.
import type { Logger, LogFields } from './log.js';

export interface RefusalTally {
  /** One refusal; `reason` is counted apart (which cap), `fields` go on the first line of a period only. */
  note(reason: string, fields?: LogFields): void;
  /** Writes what is still counted (at stop). */
  flush(): void;
}

export function refusalTally(logger: Logger, message: string, periodMs = 60_000): RefusalTally {
  let counts = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    if (total > 0) logger.warn(message, { refused: total, by: Object.fromEntries(counts), seconds: periodMs / 1000 });
    counts = new Map();
    return total;
  };
  const endPeriod = () => {
    // A period with refusals opens another, so a lasting flood is one line per period.
    timer = flush() > 0 ? setTimeout(endPeriod, periodMs).unref() : undefined;
  };

  return {
    note(reason, fields = {}) {
      if (timer === undefined) {
        logger.warn(message, { ...fields, refused: 1, cap: reason });
        timer = setTimeout(endPeriod, periodMs).unref();
        return;
      }
      counts.set(reason, (counts.get(reason) ?? 0) + 1);
    },
    flush() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      flush();
    },
  };
}
