// Status callbacks in both stores: settings with sealed secrets and a rotation's overlap, the
// outbox (an event kept once, a call's deliveries one after another, each claimed by one node, a
// dead node's claim taken over after its lease), and turning off after a 410.
import { describe, expect, test } from 'vitest';
import type { NewDelivery } from '../../src/core/callbacks/callback-records.js';
import type { Store } from '../../src/store/contract/index.js';
import { SecretBox } from '../../src/store/secret-box.js';
import { CallEvents } from '../../src/core/calls/call-events.js';
import { startCallbackFeed } from '../../src/callbacks/feed.js';
import { createAccount } from '../helpers/accounts.js';
import { textAlert } from '../helpers/database.js';
import { STORE_KINDS, useStores } from '../helpers/stores.js';

let counter = 0;
function delivery(userId: string, callId: string | null, type: NewDelivery['type'], createdAt = 1_000): NewDelivery {
  counter++;
  return {
    messageId: `msg_${counter}`,
    eventKey: `${callId ?? 'test'}:${type}:${callId ? '' : counter}`,
    userId,
    callId,
    type,
    body: `{"type":"${type}"}`,
    createdAt,
  };
}

const attempt = (status: 'delivered' | 'pending' | 'failed', at: number, nextAttemptAt = at) => ({
  status,
  at,
  nextAttemptAt,
  httpStatus: status === 'delivered' ? 200 : 500,
  error: status === 'delivered' ? null : 'HTTP 500',
});

describe.each(STORE_KINDS)('%s store: status callbacks', (kind) => {
  const stores = useStores(kind);

  async function withAccount(store: Store): Promise<string> {
    return (await createAccount(store.accounts)).userId;
  }

  test('settings: the secret sealed at rest, a rotation overlapping until its end, a turn-off with its note', async () => {
    let now = 10_000;
    const db = await stores.fresh();
    const store = await db.open({ now: () => now });
    const userId = await withAccount(store);
    expect(await store.callbacks.settings(userId)).toBeUndefined();
    await store.callbacks.configure(userId, { url: 'https://a.example/hook', secret: 'whsec_first' });
    expect(await store.callbacks.settings(userId)).toEqual({
      userId,
      url: 'https://a.example/hook',
      secrets: ['whsec_first'],
      previousUntil: null,
      offNote: null,
    });
    expect(await store.callbacks.rotate(userId, 'whsec_second', 20_000)).toBe(true);
    expect((await store.callbacks.settings(userId))!.secrets).toEqual(['whsec_second', 'whsec_first']);
    now = 20_001;
    expect((await store.callbacks.settings(userId))!.secrets).toEqual(['whsec_second']);

    await store.callbacks.turnOff(userId, 'the receiver answered 410', now);
    expect(await store.callbacks.settings(userId)).toMatchObject({ url: null, offNote: 'the receiver answered 410' });
    // Setting a URL again clears the note and keeps the secret.
    await store.callbacks.configure(userId, { url: 'https://b.example/hook' });
    expect(await store.callbacks.settings(userId)).toMatchObject({
      url: 'https://b.example/hook',
      offNote: null,
      secrets: ['whsec_second'],
    });
    expect(await store.callbacks.rotate(await withAccount(store), 'whsec_x', 1)).toBe(false);
    // Sealed with the secret key: another key cannot open it.
    const other = await db.open({ secrets: new SecretBox(Buffer.alloc(32, 7), 'another key'), checkKey: false });
    await expect(Promise.resolve().then(() => other.callbacks.settings(userId))).rejects.toThrow();
  });

  test('an account without a callback URL costs its alerts no read and no outbox row; call.queued is written with the accept', async () => {
    const db = await stores.fresh();
    const store = await db.open();
    const account = await createAccount(store.accounts);
    const withUrl = await createAccount(store.accounts);
    await store.callbacks.configure(withUrl.userId, { url: 'https://a.example/hook', secret: 'whsec_a' });
    const read = async (a: typeof account) => (await store.accounts.authenticate(a.userId, a.apiKey))!;
    if (kind === 'sqlite') {
      expect((await read(account)).hasCallback).toBe(false);
      expect((await read(withUrl)).hasCallback).toBe(true);
      await store.callbacks.turnOff(withUrl.userId, 'the receiver answered 410', 1);
      expect((await read(withUrl)).hasCallback).toBe(false);
      await store.callbacks.configure(withUrl.userId, { url: 'https://a.example/hook' });
    } else expect((await read(account)).hasCallback).toBeUndefined();

    // The accept writes call.queued in its own transaction (#58): nothing for an account without a
    // URL (not even looked for when the account said so), the event on disk with the call for one with it.
    const accepted = await store.calls.accept(account.userId, 'premium', textAlert('hi'), undefined, false);
    if (!accepted.accepted) throw new Error('refused');
    expect('outboxed' in accepted).toBe(false);
    const other = await store.calls.accept(withUrl.userId, 'premium', textAlert('hi'), undefined, true);
    if (!other.accepted || 'duplicate' in other) throw new Error('refused');
    expect(other.outboxed).toBe(true);
    expect((await store.callbacks.recent(withUrl.userId, 10)).map((d) => d.type)).toEqual(['call.queued']);
    // Not told whether the account has a URL: looked at in the transaction.
    const unknown = await store.calls.accept(withUrl.userId, 'premium', textAlert('again'));
    if (!unknown.accepted || 'duplicate' in unknown) throw new Error('refused');
    expect(unknown.outboxed).toBe(true);

    // A test call's call.queued is written with it too (#55), only for the account with a URL.
    const testCall = await store.calls.acceptTestCall(withUrl.userId, 'test');
    if (!testCall.accepted || 'duplicate' in testCall) throw new Error('refused');
    expect(testCall.outboxed).toBe(true);
    const quietTest = await store.calls.acceptTestCall(account.userId, 'test');
    expect(quietTest.accepted && 'outboxed' in quietTest).toBe(false);

    // The feed writes nothing (every event is written with its step): it wakes the sender for this
    // node's changes that wrote one, not for another node's.
    const events = new CallEvents();
    let added = 0;
    const feed = startCallbackFeed({ events, onAdded: () => added++ });
    events.emit({ callId: accepted.callId, userId: account.userId, status: 'queued', at: 1_000 });
    events.emit({ callId: other.callId, userId: withUrl.userId, status: 'queued', at: 1_000, outboxed: true });
    events.emit({
      callId: unknown.callId,
      userId: withUrl.userId,
      status: 'queued',
      at: 1_000,
      outboxed: true,
      remote: true,
    });
    await feed.stop();
    expect(added).toBe(1);
    expect((await store.callbacks.recent(account.userId, 10)).length).toBe(0);
    expect((await store.callbacks.recent(withUrl.userId, 10)).map((d) => [d.type, d.callId])).toEqual([
      ['call.queued', testCall.callId],
      ['call.queued', unknown.callId],
      ['call.queued', other.callId],
    ]);
  });

  test('the outbox: an event kept once, a call in order, each claim its own, a lost lease taken over', async () => {
    const db = await stores.fresh();
    const a = await db.open({ nodeId: 'node-a' });
    const b = kind === 'postgres' ? await db.open({ nodeId: 'node-b' }) : a;
    const userId = await withAccount(a);
    const queued = delivery(userId, 'call_1', 'call.queued');
    expect(await a.callbacks.enqueue(queued)).toBe(true);
    expect(await b.callbacks.enqueue({ ...queued, messageId: 'msg_again' })).toBe(false);
    await a.callbacks.enqueue(delivery(userId, 'call_1', 'call.final'));
    await a.callbacks.enqueue(delivery(userId, 'call_2', 'call.queued'));

    // Two nodes claim at once: each delivery goes to one of them, and call_1's final waits for its queued.
    const [byA, byB] = await Promise.all([
      a.callbacks.claimDue('a:1', 2_000, 32_000, 10, 10),
      b.callbacks.claimDue('b:1', 2_000, 32_000, 10, 10),
    ]);
    const claimed = [...byA, ...byB].map((d) => d.eventKey).sort();
    expect(claimed).toEqual(['call_1:call.queued:', 'call_2:call.queued:']);
    expect(await a.callbacks.claimDue('a:2', 2_000, 32_000, 10, 10)).toEqual([]);

    const first = [...byA, ...byB].find((d) => d.eventKey === 'call_1:call.queued:')!;
    const holder = byA.includes(first) ? 'a:1' : 'b:1';
    expect(await a.callbacks.record(first.id, 'someone-else', attempt('delivered', 3_000))).toBe(false);
    expect(await a.callbacks.record(first.id, holder, attempt('pending', 3_000, 8_000))).toBe(true);
    // Failed once: it comes back when due, before the final behind it.
    expect(await a.callbacks.claimDue('a:3', 7_999, 40_000, 10, 10)).toEqual([]);
    const [again] = await b.callbacks.claimDue('b:2', 8_000, 40_000, 10, 10);
    expect(again).toMatchObject({ eventKey: 'call_1:call.queued:', attempts: 1, lastHttpStatus: 500 });
    expect(await b.callbacks.record(again!.id, 'b:2', attempt('delivered', 8_100))).toBe(true);
    const [next] = await a.callbacks.claimDue('a:4', 8_200, 40_000, 10, 10);
    expect(next).toMatchObject({ eventKey: 'call_1:call.final:' });

    // The node holding call_2's delivery died: its lease ends and another node takes it.
    const other = [...byA, ...byB].find((d) => d.eventKey === 'call_2:call.queued:')!;
    expect(await b.callbacks.claimDue('b:3', 31_999, 70_000, 10, 10)).toEqual([]);
    const [taken] = await b.callbacks.claimDue('b:4', 32_000, 70_000, 10, 10);
    expect(taken).toMatchObject({ id: other.id, claim: 'b:4' });
    expect(await a.callbacks.record(other.id, byA.includes(other) ? 'a:1' : 'b:1', attempt('delivered', 32_100))).toBe(
      false,
    );

    const recent = await a.callbacks.recent(userId, 10);
    expect(recent.map((d) => [d.eventKey, d.status])).toEqual([
      ['call_2:call.queued:', 'sending'],
      ['call_1:call.final:', 'sending'],
      ['call_1:call.queued:', 'delivered'],
    ]);
  });

  test("each account's share: its oldest first, the accounts' first ones first, a held account waits", async () => {
    const db = await stores.fresh();
    const a = await db.open({ nodeId: 'node-a' });
    const b = kind === 'postgres' ? await db.open({ nodeId: 'node-b' }) : a;
    const busy = await withAccount(a);
    const quiet = await withAccount(a);
    for (let i = 1; i <= 5; i++) await a.callbacks.enqueue(delivery(busy, `busy_${i}`, 'call.queued'));
    await a.callbacks.enqueue(delivery(quiet, 'quiet_1', 'call.queued'));
    const keys = (ds: Array<{ eventKey: string }>) => ds.map((d) => d.eventKey).sort();

    // The busy account's backlog came first, yet the quiet account's delivery is claimed before its second.
    const first = await a.callbacks.claimDue('a:1', 2_000, 32_000, 2, 2);
    expect(keys(first)).toEqual(['busy_1:call.queued:', 'quiet_1:call.queued:']);
    // Two nodes at once: the busy account gets one more, to its share of two being sent.
    const [byA, byB] = await Promise.all([
      a.callbacks.claimDue('a:2', 2_000, 32_000, 10, 2),
      b.callbacks.claimDue('b:2', 2_000, 32_000, 10, 2),
    ]);
    expect(keys([...byA, ...byB])).toEqual(['busy_2:call.queued:']);
    expect(await a.callbacks.claimDue('a:3', 2_000, 32_000, 10, 2)).toEqual([]);

    // busy_1 got no answer: the account's waiting deliveries are held until its next try.
    const busy1 = first.find((d) => d.userId === busy)!;
    expect(await a.callbacks.record(busy1.id, 'a:1', attempt('pending', 12_000, 20_000))).toBe(true);
    await a.callbacks.holdAccount(busy, 20_000);
    expect(await a.callbacks.claimDue('a:4', 19_999, 52_000, 10, 2)).toEqual([]);
    // Due again: its oldest first (busy_2 still holds the other place).
    expect(keys(await b.callbacks.claimDue('b:3', 20_000, 52_000, 10, 2))).toEqual(['busy_1:call.queued:']);
    // A hold never brings a later try nearer.
    await a.callbacks.holdAccount(busy, 15_000);
    const waiting = (await a.callbacks.recent(busy, 10)).filter((d) => d.status === 'pending');
    expect(waiting.map((d) => d.nextAttemptAt)).toEqual([20_000, 20_000, 20_000]);
  });

  test('a turn-off leaves the waiting deliveries unsent; a test event is kept as it went', async () => {
    const db = await stores.fresh();
    const store = await db.open();
    const userId = await withAccount(store);
    await store.callbacks.configure(userId, { url: 'https://a.example/', secret: 'whsec_a' });
    await store.callbacks.enqueue(delivery(userId, 'call_9', 'call.queued'));
    await store.callbacks.keepSent(delivery(userId, null, 'callback.test'), attempt('delivered', 5_000));
    await store.callbacks.turnOff(userId, 'off', 6_000);
    expect(await store.callbacks.claimDue('x', 10_000, 20_000, 10, 10)).toEqual([]);
    const [test, queued] = await store.callbacks.recent(userId, 10);
    expect(test).toMatchObject({ type: 'callback.test', status: 'delivered', attempts: 1, deliveredAt: 5_000 });
    expect(queued).toMatchObject({ status: 'gone', lastError: 'not sent: the callback was turned off' });
  });
});
