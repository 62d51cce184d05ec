// The calls waiting for a line, oldest first, and the ones Asterisk could not take, held back
// before they may wait again (the delay doubles with each refusal in a row).
import { backoffDelay, type Backoff } from '../core/backoff.js';

/** A call Asterisk could not take waits this long before it is tried again, doubling each time. */
const REQUEUE_BACKOFF: Backoff = { initialMs: 500, maxMs: 5_000 };

export class CallQueue {
  private readonly waiting: string[] = [];
  private readonly waitingSet = new Set<string>();
  /** Refusals in a row of each call Asterisk could not take. */
  private readonly refusals = new Map<string, number>();
  /** Calls held back until their delay has passed. */
  private readonly held = new Set<string>();

  constructor(private readonly requeue: Backoff = REQUEUE_BACKOFF) {}

  get length(): number {
    return this.waiting.length;
  }

  ids(): readonly string[] {
    return this.waiting;
  }

  has(callId: string): boolean {
    return this.waitingSet.has(callId);
  }

  /** Adds the call at the end unless it waits already or is held back; true if added. */
  add(callId: string): boolean {
    if (this.waitingSet.has(callId) || this.held.has(callId)) return false;
    this.waiting.push(callId);
    this.waitingSet.add(callId);
    return true;
  }

  /** Takes a waiting call out of the queue: it is being dialed (its refusals are kept). */
  take(callId: string): void {
    const at = this.waiting.indexOf(callId);
    if (at >= 0) this.waiting.splice(at, 1);
    this.waitingSet.delete(callId);
  }

  /** Takes the waiting calls of one call out of the queue at once (a quiet-hours batch: thousands). */
  takeAll(callIds: readonly string[]): void {
    if (callIds.length === 1) {
      this.take(callIds[0]!);
      return;
    }
    // Usually the call is the head of the queue, in its order (a quiet-hours batch: all of it): cut
    // off at once. A set of 10,000 ids and 10,000 deletes held the placing turn for 30 ms (#51).
    const head = callIds.every((id, i) => this.waiting[i] === id);
    if (head) this.waiting.splice(0, callIds.length);
    else {
      const taken = new Set(callIds);
      const left = this.waiting.filter((id) => !taken.has(id));
      this.waiting.length = 0;
      for (const id of left) this.waiting.push(id);
    }
    if (this.waiting.length === 0) this.waitingSet.clear();
    else for (const id of callIds) this.waitingSet.delete(id);
  }

  /** Forgets the call altogether (it ended, or is no longer queued). */
  remove(callId: string): void {
    const at = this.waiting.indexOf(callId);
    if (at >= 0) this.waiting.splice(at, 1);
    this.waitingSet.delete(callId);
    this.refusals.delete(callId);
    this.held.delete(callId);
  }

  /** Forgets the calls given; nothing to do when nothing waits or is held (an ended quiet-hours batch: 10,000 ids). */
  removeAll(calls: readonly { callId: string }[]): void {
    if (this.waitingSet.size === 0 && this.refusals.size === 0 && this.held.size === 0) return;
    for (const { callId } of calls) this.remove(callId);
  }

  /**
   * Asterisk could not take the call: it is held back, longer after each refusal in a row, then
   * handed to `ready` to wait for a line again.
   */
  holdBack(callId: string, ready: (callId: string) => void): void {
    const count = (this.refusals.get(callId) ?? 0) + 1;
    this.refusals.set(callId, count);
    this.held.add(callId);
    setTimeout(
      () => {
        if (!this.held.delete(callId)) return; // removed meanwhile
        ready(callId);
      },
      backoffDelay(count, this.requeue),
    ).unref();
  }

  /** Asterisk took the call: its alerts' refusals are forgotten. */
  taken(alerts: readonly { callId: string }[]): void {
    if (this.refusals.size > 0) for (const { callId } of alerts) this.refusals.delete(callId);
  }
}
