// What every SQLite repository holds: its database and its clock (tests pass their own). Each one
// prepares its statements from `this.db` in a field of its own, once, when it is made.
import type { Db } from './connect.js';

export abstract class SqliteRepo {
  constructor(
    protected readonly db: Db,
    protected readonly now: () => number = Date.now,
  ) {}
}
