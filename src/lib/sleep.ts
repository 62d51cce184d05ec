// The one pause: injected where tests need to see it (the SMS retries), used as is elsewhere; and a
// wait for work bounded in time.
export type Sleep = (ms: number) => Promise<void>;

export const sleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The next turn of the event loop for work cut in slices (#51): after the loop's timers, so that the
 * slices are separate stretches whatever started them. An immediate set from an I/O or a timer's
 * callback runs before the timers, and made the two one stretch.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** `items` a slice at a time, each slice after the next turn but the first (work cut in slices, #51). */
export async function* turnByTurn<T>(items: readonly T[], size: number): AsyncGenerator<readonly T[]> {
  for (let i = 0; i < items.length; i += size) {
    if (i > 0) await nextTurn();
    yield items.slice(i, i + size);
  }
}

/** Until `work` settles (either way), or `ms` have passed if sooner; Infinity: until it settles. */
export async function settledOrAfter(work: Promise<unknown>, ms: number): Promise<void> {
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  if (ms === Number.POSITIVE_INFINITY) return settled;
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([settled, elapsed]);
  } finally {
    clearTimeout(timer);
  }
}
