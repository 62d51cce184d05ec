// One step for each of several calls in one transaction, kept only when every step applied: written once for
// SQLite (a step answers now, in better-sqlite3's synchronous transaction) and PostgreSQL (a step answers later).

/** Thrown to roll the transaction back because a step did not apply: an answer (false), not a failure. */
const notEvery = new Error('a step did not apply: rolled back');

/** Runs the steps in order, each after the one before has answered; the first false throws `notEvery`. */
function everyStep<T>(
  items: readonly T[],
  step: (item: T) => boolean | Promise<boolean>,
  from = 0,
): true | Promise<true> {
  for (let i = from; i < items.length; i++) {
    const applied = step(items[i] as T);
    if (typeof applied !== 'boolean')
      return applied.then((ok) => {
        if (!ok) throw notEvery;
        return everyStep(items, step, i + 1);
      });
    if (!applied) throw notEvery;
  }
  return true;
}

/** false for the rollback everyStep asked for; any other error is a failure and goes on up. */
function notEveryAsFalse(error: unknown): false {
  if (error === notEvery) return false;
  throw error;
}

/**
 * Runs `step` for each item in one transaction: true when every step applied; false, with the transaction rolled
 * back and nothing changed, as soon as one did not. `transaction` opens the store's own transaction, hands its
 * body what the steps need (the transaction's time, its connection) and rolls back when the body throws.
 */
export function allOrNothing<T, Tx>(
  transaction: (body: (tx: Tx) => true) => true,
  items: readonly T[],
  step: (tx: Tx, item: T) => boolean,
): boolean;
export function allOrNothing<T, Tx>(
  transaction: (body: (tx: Tx) => Promise<true>) => Promise<true>,
  items: readonly T[],
  step: (tx: Tx, item: T) => Promise<boolean>,
): Promise<boolean>;
export function allOrNothing<T, Tx>(
  // The body answers now or later, as its steps do (the overloads pair them); `never` lets either store's
  // transaction stand here.
  transaction: (body: (tx: Tx) => never) => true | Promise<true>,
  items: readonly T[],
  step: (tx: Tx, item: T) => boolean | Promise<boolean>,
): boolean | Promise<boolean> {
  try {
    const done = transaction((tx) => everyStep(items, (item) => step(tx, item)) as never);
    return done === true ? done : done.catch(notEveryAsFalse);
  } catch (error) {
    return notEveryAsFalse(error);
  }
}
