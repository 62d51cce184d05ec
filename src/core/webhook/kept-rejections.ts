// How many refused alerts an account keeps in its history, and when its oldest are deleted. A trim
// walks the account's kept refusals (up to a thousand rows), so on SQLite it is done once every
// REJECTIONS_TRIM_EVERY refusals, not once per refusal (a flood of 429s paid ~0.5 ms a refusal for
// it once an account kept a thousand); each trim keeps the newest KEPT_AFTER_TRIM, so that between
// two trims an account never holds more than MAX_REJECTIONS_KEPT.

/** How many rejected alerts an account keeps at most: a flood of bad requests cannot fill the disk. */
export const MAX_REJECTIONS_KEPT = 1000;
export const REJECTIONS_TRIM_EVERY = 100;
export const KEPT_AFTER_TRIM = MAX_REJECTIONS_KEPT - REJECTIONS_TRIM_EVERY;

/**
 * Each account's refusals written since its last trim. An account not seen since the process
 * started (what it keeps is not known) is trimmed at its first refusal.
 */
export class RejectionTrims {
  private readonly since = new Map<string, number>();

  /**
   * One more refusal of `userId` written: whether its oldest are to be trimmed with it. After a trim
   * (KEPT_AFTER_TRIM kept) come REJECTIONS_TRIM_EVERY refusals untrimmed, MAX_REJECTIONS_KEPT at most.
   */
  written(userId: string): boolean {
    const count = this.since.get(userId);
    if (count === undefined || count >= REJECTIONS_TRIM_EVERY) {
      this.since.set(userId, 0);
      return true;
    }
    this.since.set(userId, count + 1);
    return false;
  }

  /** Their trims may not have been committed (the transaction failed): trimmed at their next refusal. */
  forget(userIds: Iterable<string>): void {
    for (const userId of userIds) this.since.delete(userId);
  }
}
