// Which call holds an alert, by the alert's id: a call's own alert and the few riding along each an
// entry; the thousands of a quiet-hours batch one set, made once and dropped at once. On this 2-core
// machine an entry in a map costs about a microsecond, so that 10,000 entries made or removed in a
// turn of the event loop were 5–10 ms of it, several times over a batch's call (#51).

/** Riding alerts of one call beyond this are kept as one set. */
const ENTRIES_AT_MOST = 200;

export class AlertIndex<Holder> {
  private readonly byId = new Map<string, Holder>();
  private readonly batches = new Map<Holder, ReadonlySet<string>>();

  add(holder: Holder, own: string, riders: readonly { callId: string }[]): void {
    this.byId.set(own, holder);
    if (riders.length > ENTRIES_AT_MOST) this.batches.set(holder, new Set(riders.map((alert) => alert.callId)));
    else for (const { callId } of riders) this.byId.set(callId, holder);
  }

  /** Forgets what `holder` holds (an entry another holder took meanwhile is kept). */
  delete(holder: Holder, own: string, riders: readonly { callId: string }[]): void {
    if (this.byId.get(own) === holder) this.byId.delete(own);
    if (this.batches.delete(holder)) return;
    for (const { callId } of riders) if (this.byId.get(callId) === holder) this.byId.delete(callId);
  }

  has(callId: string): boolean {
    if (this.byId.has(callId)) return true;
    for (const ids of this.batches.values()) if (ids.has(callId)) return true;
    return false;
  }
}

/** Calls taken from the queue while they are claimed and set up: the phone whose line each takes, and every alert of theirs. */
export class StartingCalls {
  private readonly phoneOf = new Map<string, string>();
  private readonly alerts = new AlertIndex<string>();

  /** Calls starting (each counts as a line taken). */
  get size(): number {
    return this.phoneOf.size;
  }

  phones(): IterableIterator<string> {
    return this.phoneOf.values();
  }

  start(call: readonly { callId: string; phone: string }[]): void {
    const own = call[0]!;
    this.phoneOf.set(own.callId, own.phone);
    this.alerts.add(own.callId, own.callId, call.slice(1));
  }

  done(call: readonly { callId: string }[]): void {
    const own = call[0]!.callId;
    this.phoneOf.delete(own);
    this.alerts.delete(own, own, call.slice(1));
  }

  has(callId: string): boolean {
    return this.alerts.has(callId);
  }
}
