// PostgreSQL with several nodes: each store here is a node of its own (its own pool and node id)
// on one database.
import { describe, expect, test } from 'vitest';
import type { CallChangeNotice } from '../../src/core/server/cluster.js';
import type { Store } from '../../src/store/contract/index.js';
import { DEFAULT_LINE_HOLD_MS } from '../../src/store/postgres/progress.js';
import { manualClock, textAlert } from '../helpers/database.js';
import { useStores } from '../helpers/stores.js';

const PHONE = '+14155550123';

async function accept(store: Store, userId: string, message = 'hello'): Promise<string> {
  const result = await store.calls.accept(userId, 'premium', textAlert(message));
  if (!result.accepted) throw new Error('refused');
  return result.callId;
}

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('postgres store: several nodes', () => {
  const stores = useStores('postgres');

  async function nodes(...ids: string[]) {
    const clock = manualClock('2026-11-10T12:00:00Z');
    const db = await stores.fresh();
    const opened: Store[] = [];
    for (const nodeId of ids) opened.push(await db.open({ nodeId, now: clock.now }));
    const account = await opened[0]!.accounts.create({ phone: PHONE, plan: 'premium', smsBackup: true, name: '' });
    return { clock, db, stores: opened, userId: account.userId };
  }

  test('limits stay exact under concurrency: 30 alerts at once through two nodes, exactly 10 accepted', async () => {
    const db = await stores.fresh();
    const a = await db.open({ nodeId: 'node-a' });
    const b = await db.open({ nodeId: 'node-b' });
    const { userId } = await a.accounts.create({ phone: PHONE, plan: 'premium', smsBackup: false, name: '' });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).calls.accept(userId, 'premium', textAlert(`alert ${i}`))),
    );
    expect(results.filter((r) => r.accepted)).toHaveLength(10);
    const refused = results.filter((r) => !r.accepted);
    expect(refused).toHaveLength(20);
    for (const r of refused) expect(r).toMatchObject({ decision: { limit: 'burst', perMinute: 10 } });
    const history = await a.calls.list({ userId, limit: 100 });
    expect(history.filter((c) => c.accepted)).toHaveLength(10);
    expect(history.filter((c) => c.status === 'rate_limited')).toHaveLength(20);
    expect((await b.calls.usage(userId)).used).toBe(10);
  });

  test('a queued call is moved to dialing by exactly one node', async () => {
    const {
      stores: [a, b],
      userId,
    } = await nodes('node-a', 'node-b');
    for (let round = 0; round < 5; round++) {
      const callId = await accept(a!, userId, `round ${round}`);
      const won = await Promise.all(
        [a!, b!, a!, b!].map((s) =>
          s.progress.transition(callId, 'dialing', { phone: `+1415555000${round}`, dialedAt: 1 }),
        ),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      expect((await a!.progress.timeline(callId)).filter((e) => e.event === 'dialing')).toHaveLength(1);
    }
  });

  test('one line per phone across nodes: a second call waits until the first is final', async () => {
    const {
      stores: [a, b],
      userId,
    } = await nodes('node-a', 'node-b');
    const first = await accept(a!, userId, 'first');
    const second = await accept(b!, userId, 'second');
    const carried = await accept(b!, userId, 'carried');
    expect(await a!.progress.transition(first, 'dialing', { phone: PHONE })).toBe(true);
    expect(await b!.progress.transition(second, 'dialing', { phone: PHONE })).toBe(false);
    expect((await b!.progress.get(second))?.status).toBe('queued');
    // An alert carried by the call that holds the line does not need the line.
    expect(await b!.progress.transition(carried, 'dialing', { phone: PHONE, carriedBy: first })).toBe(true);
    expect(await a!.progress.transition(first, 'answered')).toBe(true);
    expect(await b!.progress.transition(second, 'dialing', { phone: PHONE })).toBe(false);
    // The holder may take its own line again (dialing back to queued, then dialing).
    expect(await a!.progress.transition(first, 'completed')).toBe(true);
    expect(await b!.progress.transition(second, 'dialing', { phone: PHONE })).toBe(true);
    expect(await b!.progress.transition(second, 'queued')).toBe(true);
    expect(await b!.progress.transition(second, 'dialing', { phone: PHONE })).toBe(true);
    expect(await b!.progress.transition(second, 'no_answer')).toBe(true);
    const third = await accept(a!, userId, 'third');
    expect(await a!.progress.transition(third, 'dialing', { phone: PHONE })).toBe(true);
  });

  test('a missed call rung again (#54) waits queued with its due time, frees the line meanwhile, and is dialed by one node only', async () => {
    const {
      stores: [a, b],
      userId,
    } = await nodes('node-a', 'node-b');
    const missed = await accept(a!, userId, 'missed');
    expect(await a!.progress.transition(missed, 'dialing', { phone: PHONE, dialedAt: 1_000 })).toBe(true);
    expect(await a!.progress.transition(missed, 'ringing')).toBe(true);
    const attempts = JSON.stringify([{ at: 1_000, outcome: 'no_answer' }]);
    expect(await a!.progress.transition(missed, 'queued', { attempt: 2, retryAt: 61_000, attempts })).toBe(true);
    expect(await b!.progress.get(missed)).toMatchObject({ status: 'queued', attempt: 2, retryAt: 61_000, attempts });
    // The line is free while it waits: a newer alert may ring the phone.
    const newer = await accept(b!, userId, 'newer');
    expect(await b!.progress.transition(newer, 'dialing', { phone: PHONE })).toBe(true);
    expect(await b!.progress.transition(newer, 'busy')).toBe(true);
    // Both nodes find it due; one dials it.
    const dialed = await Promise.all(
      [a!, b!].map((s) => s.progress.transition(missed, 'dialing', { phone: PHONE, dialedAt: 61_000 })),
    );
    expect(dialed.filter(Boolean)).toHaveLength(1);
    expect((await a!.calls.get(missed))?.earlierAttempts).toEqual([{ at: 1_000, outcome: 'no_answer' }]);
    expect((await a!.calls.get(missed))?.attempt).toBe(2);
  });

  test('a silent node is taken over exactly once: its call in progress to one survivor, its queued calls to anyone', async () => {
    const {
      clock,
      stores: [a, b, c],
      userId,
    } = await nodes('node-a', 'node-b', 'node-c');
    await a!.nodes!.heartbeat();
    await b!.nodes!.heartbeat();
    await c!.nodes!.heartbeat();
    const talking = await accept(a!, userId, 'talking');
    const queued = await accept(a!, userId, 'queued');
    expect(await a!.progress.transition(talking, 'dialing', { phone: PHONE })).toBe(true);
    expect(await a!.progress.transition(talking, 'answered')).toBe(true);
    expect((await a!.progress.inFlight()).map((x) => x.callId)).toEqual([talking, queued]);
    expect(await b!.progress.inFlight()).toEqual([]);
    // Its SMS: one being handed over, one waiting for the gateway, one call ended with it undecided.
    const [handingOver, waiting, ended] = [
      await accept(a!, userId, 'sending'),
      await accept(a!, userId, 'waiting'),
      await accept(a!, userId, 'ended'),
    ];
    // Each to a phone of its own: one line per phone, and `talking` holds PHONE's.
    const phoneOf = (id: string) => `+1415555020${[handingOver, waiting, ended].indexOf(id)}`;
    for (const id of [handingOver, waiting, ended]) {
      expect(await a!.progress.transition(id, 'dialing', { phone: phoneOf(id) })).toBe(true);
      expect(await a!.progress.transition(id, 'busy')).toBe(true);
    }
    const claimedAt = clock.now();
    for (const id of [handingOver, waiting]) expect(await a!.sms.claimSms(id)).toBe(true);
    expect(await a!.sms.smsWaits([waiting], 'connect ECONNREFUSED')).toBe(true);

    clock.advance(5_000);
    await b!.nodes!.heartbeat();
    await c!.nodes!.heartbeat();
    expect(await b!.nodes!.takeOverSilent(10_000, 60_000)).toEqual([]);
    clock.advance(10_000);
    await b!.nodes!.heartbeat();
    await c!.nodes!.heartbeat();

    const [byB, byC] = await Promise.all([
      b!.nodes!.takeOverSilent(10_000, 60_000),
      c!.nodes!.takeOverSilent(10_000, 60_000),
    ]);
    const taken = [...byB!, ...byC!];
    expect(taken).toHaveLength(1);
    expect(taken[0]).toMatchObject({
      nodeId: 'node-a',
      calls: [{ callId: talking, status: 'answered', userId, phone: PHONE }],
    });
    expect(taken[0]!.sms).toEqual({
      handingOver: [handingOver],
      waiting: [
        {
          callId: waiting,
          userId,
          status: 'busy',
          message: 'waiting',
          messageTruncated: 0,
          phone: phoneOf(waiting),
          carriedBy: null,
          claimedAt,
        },
      ],
      ended: [
        {
          callId: ended,
          userId,
          message: 'ended',
          messageTruncated: 0,
          phone: phoneOf(ended),
          status: 'busy',
          carriedBy: null,
          endedAt: claimedAt,
        },
      ],
    });
    // The SMS are the survivor's now: its next start would find them, not node-a's.
    const survivor = byB!.length > 0 ? b! : c!;
    expect((await survivor.sms.waitingSmsLeft()).map((w) => w.callId)).toEqual([waiting]);
    expect(await a!.sms.waitingSmsLeft()).toEqual([]);
    expect(await b!.nodes!.takeOverSilent(10_000, 60_000)).toEqual([]);
    expect(await c!.nodes!.takeOverSilent(10_000, 60_000)).toEqual([]);

    const list = await b!.nodes!.list();
    expect(list.map((n) => [n.nodeId, n.goneAt])).toEqual([
      ['node-a', clock.now()],
      ['node-b', null],
      ['node-c', null],
    ]);
    // A's queued call is anyone's now. Its line stays held while A's call may still be up at the
    // phone (A's Asterisk may outlive A's serve), even once the survivor has ended it: until the
    // bound on a call (RINGHOOK_MAX_CALL_SECONDS) has passed since it was dialed.
    expect((await b!.progress.inFlight()).map((x) => x.callId)).toEqual([queued]);
    expect(await survivor.progress.transition(talking, 'interrupted')).toBe(true);
    expect(await b!.progress.transition(queued, 'dialing', { phone: PHONE })).toBe(false);
    clock.advance(DEFAULT_LINE_HOLD_MS - 15_000);
    expect(await b!.progress.transition(queued, 'dialing', { phone: PHONE })).toBe(false);
    clock.advance(1_000);
    expect(await b!.progress.transition(queued, 'dialing', { phone: PHONE })).toBe(true);
    expect((await b!.progress.inFlight()).map((x) => x.callId)).toEqual([queued]);
    expect(await c!.progress.inFlight()).toEqual([]);
  });

  test('a node that leaves cleanly hands its queued calls over; heartbeat brings it back', async () => {
    const {
      stores: [a, b],
      userId,
    } = await nodes('node-a', 'node-b');
    await a!.nodes!.heartbeat();
    const queued = await accept(a!, userId);
    expect(await b!.progress.inFlight()).toEqual([]);
    await a!.nodes!.leave();
    expect((await b!.progress.inFlight()).map((x) => x.callId)).toEqual([queued]);
    await a!.nodes!.heartbeat();
    expect(await b!.progress.inFlight()).toEqual([]);
    expect((await a!.nodes!.list())[0]).toMatchObject({ nodeId: 'node-a', goneAt: null });
  });

  test('stale SMS claims are the ones this node left', async () => {
    const {
      db,
      stores: [a, b],
      userId,
    } = await nodes('node-a', 'node-b');
    const one = await accept(a!, userId);
    expect(await a!.sms.claimSms(one)).toBe(true);
    expect(await b!.sms.claimSms(one)).toBe(false);
    expect(await b!.sms.staleSmsClaims()).toEqual([]);
    const restarted = await db.open({ nodeId: 'node-a' });
    expect(await restarted.sms.staleSmsClaims()).toEqual([one]);
  });

  test("an SMS waiting for the gateway is taken by a node that starts only from its own last process or a node that left; an ended call's undecided SMS only from its own", async () => {
    const {
      clock,
      stores: [a, b, c],
      userId,
    } = await nodes('node-a', 'node-b', 'node-c');
    for (const node of [a, b, c]) await node!.nodes!.heartbeat();
    const waitingOf = async (node: Store, phone: string) => {
      const id = await accept(node, userId, `waiting ${phone}`);
      expect(await node.progress.transition(id, 'dialing', { phone })).toBe(true);
      expect(await node.progress.transition(id, 'busy')).toBe(true);
      expect(await node.sms.claimSms(id)).toBe(true);
      expect(await node.sms.smsWaits([id], 'connect ECONNREFUSED')).toBe(true);
      return id;
    };
    const ofA = await waitingOf(a!, '+14155550301');
    const ofB = await waitingOf(b!, '+14155550302');
    const endedOnB = await accept(b!, userId, 'ended on b');
    expect(await b!.progress.transition(endedOnB, 'dialing', { phone: '+14155550303' })).toBe(true);
    expect(await b!.progress.transition(endedOnB, 'busy')).toBe(true);
    // node-b is alive: node-c takes none of its; node-a left (a rolling deploy): node-c takes its.
    await a!.nodes!.leave();
    expect((await c!.sms.waitingSmsLeft()).map((w) => w.callId)).toEqual([ofA]);
    // Now node-c's own: node-b, alive, never gets it.
    expect((await c!.sms.waitingSmsLeft()).map((w) => w.callId)).toEqual([ofA]);
    expect(await c!.sms.endedWithoutSms(clock.now() - 60_000)).toEqual([]);
    expect((await b!.sms.endedWithoutSms(clock.now() - 60_000)).map((e) => e.callId)).toEqual([endedOnB]);
    expect((await b!.sms.waitingSmsLeft()).map((w) => w.callId)).toEqual([ofB]);
    // A left SMS ends failed only as it was left: one sent meanwhile stays sent.
    expect(await c!.sms.resumeSms([ofA])).toBe(true);
    await c!.sms.setSmsResult(ofA, { status: 'sent', messageId: 'm-1' });
    expect(await b!.sms.failLeftSms(ofA, 'sending', 'ringhook stopped')).toBe(false);
    expect(await b!.sms.failLeftSms(ofB, 'waiting', 'too late')).toBe(true);
    expect((await b!.progress.get(ofA))?.smsStatus).toBe('sent');
    expect((await b!.progress.get(ofB))?.smsStatus).toBe('failed');
  });

  test('a change published by one node reaches the others, not itself', async () => {
    const {
      stores: [a, b],
    } = await nodes('node-a', 'node-b');
    const gotA: CallChangeNotice[] = [];
    const gotB: CallChangeNotice[] = [];
    const stopA = await a!.changes!.subscribe((c) => gotA.push(c));
    const stopB = await b!.changes!.subscribe((c) => gotB.push(c));
    const fromB: CallChangeNotice = { callId: 'call_b', userId: 'u1', status: 'ringing', at: 1 };
    const fromA: CallChangeNotice = { callId: 'call_a', userId: 'u2', status: 'sms', at: 2 };
    b!.changes!.publish(fromB);
    a!.changes!.publish(fromA);
    await waitFor(() => gotA.length > 0 && gotB.length > 0);
    await new Promise((r) => setTimeout(r, 200));
    expect(gotA).toEqual([fromB]);
    expect(gotB).toEqual([fromA]);
    await stopA();
    b!.changes!.publish(fromB);
    await new Promise((r) => setTimeout(r, 200));
    expect(gotA).toEqual([fromB]);
    await stopB();
    await a!.close();
    expect(() => a!.changes!.publish(fromA)).not.toThrow();
  });

  test('call writes wait for each other, whatever each takes', async () => {
    const {
      stores: [a],
    } = await nodes('node-a');
    const order: string[] = [];
    const settleAfter = (label: string, ms: number) => () =>
      new Promise<string>((resolve) => setTimeout(() => resolve(label), ms)).then((x) => (order.push(x), x));
    const done = await Promise.all([
      a!.writes.write('a', settleAfter('a', 40)),
      a!.writes.write('b', settleAfter('b', 1)),
      a!.writes.write('c', settleAfter('c', 20)),
    ]);
    expect(done).toEqual(['a', 'b', 'c']);
    expect(order).toEqual(['a', 'b', 'c']);

    const hanging = a!.writes.write('slow', settleAfter('slow', 300));
    const given = a!.writes.write('given up', settleAfter('never', 1)).catch((error: Error) => error.message);
    expect(a!.writes.waiting).toBe(2);
    expect(await a!.writes.drain(20)).toBe(false);
    expect(a!.writes.abandon()).toBe(1);
    expect(await given).toMatch(/not written.*given up/);
    expect(await hanging).toBe('slow');
    expect(await a!.writes.drain(1000)).toBe(true);
    expect(order).not.toContain('never');
  });
});
