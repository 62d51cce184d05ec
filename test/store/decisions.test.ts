// Decision keys (#56) in both stores: the account's keys and PIN (hashed, never read out), an alert's
// own keys and Idempotency-Key kept with its call, and the decision written with the call's end and
// its call.decision event in one transaction, once per call, whichever node writes it first.
import { describe, expect, test } from 'vitest';
import type { Store } from '../../src/store/contract/index.js';
import { hashDecisionPin } from '../../src/store/index.js';
import type { Alert } from '../../src/core/webhook/payload.js';
import { jsonAlert, manualClock, textAlert } from '../helpers/database.js';
import { STORE_KINDS, useStores } from '../helpers/stores.js';

const PHONE = '+14155550123';

describe.each(STORE_KINDS)('%s store: decision keys', (kind) => {
  const stores = useStores(kind);

  async function setUp(options: { callback?: boolean } = {}) {
    const clock = manualClock('2026-12-07T02:00:00Z');
    const db = await stores.fresh();
    const store = await db.open({ now: clock.now });
    const account = await store.accounts.create({
      phone: PHONE,
      plan: 'premium',
      smsBackup: false,
      name: '',
      decisionKeys: '7=buy,8=skip',
    });
    if (options.callback !== false)
      await store.callbacks.configure(account.userId, { url: 'https://bot.example/hook', secret: 'whsec_a' });
    return { clock, db, store, userId: account.userId };
  }

  async function accept(store: Store, userId: string, alert: Alert = textAlert('BTC broke 100k')): Promise<string> {
    const result = await store.calls.accept(userId, 'premium', alert);
    if (!result.accepted) throw new Error('refused');
    return result.callId;
  }

  /** A call rung and answered, ready for its end. */
  async function answered(store: Store, callId: string, at: number, phone = PHONE): Promise<void> {
    expect(await store.progress.transition(callId, 'dialing', { phone, dialedAt: at })).toBe(true);
    expect(await store.progress.transition(callId, 'ringing', { ringingAt: at })).toBe(true);
    expect(await store.progress.transition(callId, 'answered', { answeredAt: at })).toBe(true);
  }

  const bodyOf = (body: string) => JSON.parse(body) as { type: string; data: Record<string, unknown> };

  test("an account's keys and PIN: the PIN hashed, checked, never read out; kept through other changes, removed by null", async () => {
    const { store, userId } = await setUp();
    const account = (await store.accounts.get(userId))!;
    expect(account).toMatchObject({ decisionKeys: '7=buy,8=skip', decisionPinSet: false });
    expect(await store.accounts.verifyDecisionPin(userId, '1234')).toBe(false);

    const changed = await store.accounts.update(userId, { decisionPinHash: await hashDecisionPin('4321') });
    expect(changed).toMatchObject({ decisionKeys: '7=buy,8=skip', decisionPinSet: true });
    expect(JSON.stringify(changed)).not.toContain('scrypt');
    expect(await store.accounts.verifyDecisionPin(userId, '4321')).toBe(true);
    expect(await store.accounts.verifyDecisionPin(userId, '4322')).toBe(false);

    // Another setting changed: the PIN stays; the keys changed alone.
    await store.accounts.update(userId, { name: 'Alice', decisionKeys: '9=sell' });
    expect(await store.accounts.get(userId)).toMatchObject({
      name: 'Alice',
      decisionKeys: '9=sell',
      decisionPinSet: true,
    });
    expect(await store.accounts.verifyDecisionPin(userId, '4321')).toBe(true);
    expect((await store.accounts.list())[0]).toMatchObject({ decisionPinSet: true });

    await store.accounts.update(userId, { decisionPinHash: null, decisionKeys: '' });
    expect(await store.accounts.get(userId)).toMatchObject({ decisionKeys: '', decisionPinSet: false });
    expect(await store.accounts.verifyDecisionPin(userId, '4321')).toBe(false);
  });

  test("an alert's own keys and Idempotency-Key are kept with its call; the desk reads the account's keys and PIN flag with it", async () => {
    const { store, userId } = await setUp();
    await store.accounts.update(userId, { decisionPinHash: await hashDecisionPin('4321') });
    const own = await accept(store, userId, {
      ...jsonAlert({ message: 'BTC', keys: { '5': 'hold', '#': 'sell all' } }),
      idempotencyKey: 'order-77',
    });
    const none = await accept(store, userId, jsonAlert({ message: 'BTC', keys: {} }));
    const plain = await accept(store, userId);
    expect(await store.calls.get(own)).toMatchObject({ decisionKeys: '5=hold,#=sell all', idempotencyKey: 'order-77' });
    expect(await store.calls.get(none)).toMatchObject({ decisionKeys: '', idempotencyKey: null });
    expect(await store.calls.get(plain)).toMatchObject({ decisionKeys: null, decisionKey: null });
    expect(await store.progress.get(own)).toMatchObject({
      decisionKeys: '5=hold,#=sell all',
      account: { decisionKeys: '7=buy,8=skip', decisionPin: true, callbackOn: true },
    });
    expect(await store.progress.get(plain)).toMatchObject({ decisionKeys: null });
  });

  test('a decision is written with the call end and its call.decision event, once: a second end changes nothing', async () => {
    const { clock, store, userId } = await setUp();
    const callId = await accept(store, userId, {
      ...jsonAlert({ message: 'BTC broke 100k', ticker: 'BTCUSD', action: 'buy', id: 'tv-42' }),
      idempotencyKey: 'order-77',
    });
    await answered(store, callId, clock.now());
    clock.advance(4000);
    const decidedAt = clock.now();
    const first = await store.progress.step({
      callId,
      to: 'acknowledged',
      fields: { endedAt: decidedAt },
      detail: 'pressed 7',
      decision: { key: '7', label: 'buy' },
    });
    expect(first).toMatchObject({ moved: true });
    clock.advance(1000);
    const second = await store.progress.step({
      callId,
      to: 'acknowledged',
      fields: { endedAt: clock.now() },
      decision: { key: '8', label: 'skip' },
    });
    expect(second).toEqual({ moved: false, outboxed: 0 });
    expect(await store.progress.refuseDecision(callId, 'wrong PIN')).toBe(false);

    expect(await store.calls.get(callId)).toMatchObject({
      status: 'acknowledged',
      decisionKey: '7',
      decisionLabel: 'buy',
      decidedAt,
      decisionRefused: null,
    });
    const timeline = await store.progress.timeline(callId);
    expect(timeline.filter((e) => e.event === 'decision')).toEqual([
      { at: decidedAt, event: 'decision', detail: 'decision: buy (7)' },
    ]);
    const deliveries = (await store.callbacks.recent(userId, 20)).sort((a, b) => a.id - b.id);
    const decisions = deliveries.filter((d) => d.type === 'call.decision');
    expect(decisions).toHaveLength(1);
    expect(bodyOf(decisions[0]!.body).data).toEqual({
      call_id: callId,
      user_id: userId,
      kind: 'alert',
      attempt: 1,
      key: '7',
      label: 'buy',
      decided_at: new Date(decidedAt).toISOString(),
      ticker: 'BTCUSD',
      action: 'buy',
      alert_id: 'tv-42',
      idempotency_key: 'order-77',
    });
    // Announced before the call's end, in the same transaction.
    const types = deliveries.map((d) => d.type);
    expect(types.indexOf('call.decision')).toBe(types.indexOf('call.final') - 1);
    expect(first.outboxed).toBe(2);
  });

  test('a decision without a callback URL is still recorded (nothing to send); an end without a decision sends none', async () => {
    const { clock, store, userId } = await setUp({ callback: false });
    const callId = await accept(store, userId);
    await answered(store, callId, clock.now());
    const stepped = await store.progress.step({
      callId,
      to: 'acknowledged',
      fields: { endedAt: clock.now() },
      callbacks: false,
      decision: { key: '8', label: 'skip' },
    });
    expect(stepped).toEqual({ moved: true, outboxed: 0 });
    expect(await store.calls.get(callId)).toMatchObject({ decisionKey: '8', decisionLabel: 'skip' });

    const { store: other, userId: withUrl, clock: otherClock } = await setUp();
    const plain = await accept(other, withUrl);
    await answered(other, plain, otherClock.now());
    await other.progress.step({ callId: plain, to: 'acknowledged', fields: { endedAt: otherClock.now() } });
    expect((await other.callbacks.recent(withUrl, 20)).map((d) => d.type)).not.toContain('call.decision');
    expect(await other.calls.get(plain)).toMatchObject({ decisionKey: null });
  });

  test('a refused decision is kept on the call and its timeline, once; nothing is sent, and no decision follows it', async () => {
    const { clock, store, userId } = await setUp();
    const callId = await accept(store, userId);
    await answered(store, callId, clock.now());
    expect(await store.progress.refuseDecision(callId, 'wrong PIN')).toBe(true);
    expect(await store.progress.refuseDecision(callId, 'wrong PIN')).toBe(false);
    await store.progress.step({
      callId,
      to: 'acknowledged',
      fields: { endedAt: clock.now() },
      decision: { key: '7', label: 'buy' },
    });
    expect(await store.calls.get(callId)).toMatchObject({ decisionRefused: 'wrong PIN', decisionKey: null });
    expect((await store.progress.timeline(callId)).filter((e) => e.event === 'decision')).toMatchObject([
      { detail: 'decision refused: wrong PIN' },
    ]);
    expect((await store.callbacks.recent(userId, 20)).map((d) => d.type)).not.toContain('call.decision');
  });

  if (kind === 'postgres')
    test('two nodes writing a decision for the same call at once: one is recorded and sent', async () => {
      const { clock, db, store, userId } = await setUp();
      const nodeB = await db.open({ now: clock.now, nodeId: 'node-b' });
      for (let round = 0; round < 5; round++) {
        const callId = await accept(store, userId);
        // Each its own phone: a line the other node's end left is given back only by its own node.
        await answered(store, callId, clock.now(), `+1415555013${round}`);
        const [a, b] = await Promise.all([
          store.progress.step({
            callId,
            to: 'acknowledged',
            fields: { endedAt: clock.now() },
            decision: { key: '7', label: 'buy' },
          }),
          nodeB.progress.step({
            callId,
            to: 'acknowledged',
            fields: { endedAt: clock.now() },
            decision: { key: '8', label: 'skip' },
          }),
        ]);
        expect([a.moved, b.moved].filter(Boolean)).toHaveLength(1);
        const record = (await store.calls.get(callId))!;
        expect(record.decisionKey).toBe(a.moved ? '7' : '8');
        const sent = (await store.callbacks.recent(userId, 200)).filter(
          (d) => d.callId === callId && d.type === 'call.decision',
        );
        expect(sent.map((d) => bodyOf(d.body).data.key)).toEqual([record.decisionKey]);
      }
    });
});
