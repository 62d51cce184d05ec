// Call progress in both stores: transitions, the timeline, the SMS backup's claim and results.
import { describe, expect, test } from 'vitest';
import type { Store } from '../../src/store/contract/index.js';
import { manualClock, textAlert } from '../helpers/database.js';
import { STORE_KINDS, useStores } from '../helpers/stores.js';

const PHONE = '+14155550123';

describe.each(STORE_KINDS)('%s store: call progress', (kind) => {
  const stores = useStores(kind);

  async function setUp() {
    const clock = manualClock('2026-11-10T12:00:00Z');
    const store = await (await stores.fresh()).open({ now: clock.now });
    const account = await store.accounts.create({ phone: PHONE, plan: 'premium', smsBackup: true, name: '' });
    return { clock, store, userId: account.userId };
  }

  async function accept(store: Store, userId: string, message = 'hello'): Promise<string> {
    const result = await store.calls.accept(userId, 'premium', textAlert(message));
    if (!result.accepted) throw new Error('refused');
    return result.callId;
  }

  test('legal steps are taken with their columns and timeline; illegal ones change nothing', async () => {
    const { clock, store, userId } = await setUp();
    const callId = await accept(store, userId);
    expect(await store.progress.get(callId)).toMatchObject({
      callId,
      userId,
      kind: 'alert',
      status: 'queued',
      message: 'hello',
      phone: null,
      smsStatus: null,
    });
    expect(await store.progress.transition(callId, 'answered')).toBe(false);
    expect(await store.progress.transition(callId, 'completed')).toBe(false);
    const t0 = clock.now();
    expect(
      await store.progress.transition(callId, 'dialing', {
        phone: PHONE,
        channelId: 'ch-1',
        dialedAt: t0,
        trunk: 'trunk',
      }),
    ).toBe(true);
    clock.advance(1000);
    expect(await store.progress.transition(callId, 'ringing', { ringingAt: clock.now() })).toBe(true);
    clock.advance(2000);
    expect(await store.progress.transition(callId, 'answered', { answeredAt: clock.now(), ringMs: 3000 })).toBe(true);
    await store.progress.recordDetection(callId, 'HUMAN', 'HUMAN-1');
    await store.progress.note(callId, 'dtmf', '1');
    clock.advance(5000);
    expect(
      await store.progress.transition(
        callId,
        'acknowledged',
        { endedAt: clock.now(), talkMs: 5000, hangupCause: 16, hangupCauseText: 'Normal Clearing' },
        'pressed 1',
      ),
    ).toBe(true);
    expect(await store.progress.transition(callId, 'failed', { error: 'late' })).toBe(false);

    expect(await store.progress.get(callId)).toMatchObject({
      status: 'acknowledged',
      phone: PHONE,
      dialedAt: t0,
      ringingAt: t0 + 1000,
      answeredAt: t0 + 3000,
    });
    expect(await store.calls.get(callId)).toMatchObject({
      status: 'acknowledged',
      ringMs: 3000,
      talkMs: 5000,
      endedAt: t0 + 8000,
      hangupCause: 16,
      hangupCauseText: 'Normal Clearing',
      amdStatus: 'HUMAN',
      amdCause: 'HUMAN-1',
      trunk: 'trunk',
      updatedAt: t0 + 8000,
    });
    expect(await store.progress.timeline(callId)).toEqual([
      { at: t0, event: 'dialing', detail: null },
      { at: t0 + 1000, event: 'ringing', detail: null },
      { at: t0 + 3000, event: 'answered', detail: null },
      { at: t0 + 3000, event: 'amd', detail: 'HUMAN HUMAN-1' },
      { at: t0 + 3000, event: 'dtmf', detail: '1' },
      { at: t0 + 8000, event: 'acknowledged', detail: 'pressed 1' },
    ]);
    expect(await store.progress.transition('call_unknown', 'dialing')).toBe(false);
  });

  test('an error becomes the step detail; placedAgain only while dialing; inFlight lists calls not final, oldest first', async () => {
    const { store, userId } = await setUp();
    const a = await accept(store, userId, 'a');
    const b = await accept(store, userId, 'b');
    const c = await accept(store, userId, 'c');
    expect((await store.progress.inFlight()).map((x) => x.callId)).toEqual([a, b, c]);
    await store.progress.transition(a, 'dialing', { phone: PHONE });
    await store.progress.placedAgain(a, { trunk: 'trunk2', channelId: 'ch-2', dialedAt: 5 }, 'trunk refused: 503');
    expect(await store.calls.get(a)).toMatchObject({ trunk: 'trunk2', dialedAt: 5 });
    await store.progress.transition(a, 'busy', {
      sipCode: 486,
      error: 'busy here',
      reasonDetail: 'SIP 486, cause 17 (User busy)',
    });
    await store.progress.placedAgain(a, { trunk: 'trunk', channelId: 'ch-3', dialedAt: 6 }, 'ignored');
    expect(await store.calls.get(a)).toMatchObject({
      status: 'busy',
      sipCode: 486,
      error: 'busy here',
      reasonDetail: 'SIP 486, cause 17 (User busy)',
      trunk: 'trunk2',
    });
    expect((await store.progress.timeline(a)).map((e) => [e.event, e.detail])).toEqual([
      ['dialing', null],
      ['trunk', 'trunk refused: 503'],
      ['busy', 'busy here'],
    ]);
    await store.progress.transition(c, 'expired');
    expect((await store.progress.inFlight()).map((x) => x.callId)).toEqual([b]);
  });

  test('inFlightPage (#51): the calls in flight a page at a time, oldest first, the same rows as inFlight; the last page says so', async () => {
    const { store, userId } = await setUp();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await accept(store, userId, `m${i}`));
    await store.progress.transition(ids[1]!, 'expired');
    await store.progress.transition(ids[3]!, 'dialing', { phone: PHONE });
    const pages: string[][] = [];
    let after: number | undefined = 0;
    while (after !== undefined) {
      const page = await store.progress.inFlightPage(after, 2);
      pages.push(page.calls.map((c) => c.callId));
      after = page.next;
    }
    expect(pages).toEqual([[ids[0], ids[2]], [ids[3], ids[4]], []]);
    const whole = await store.progress.inFlight();
    expect((await store.progress.inFlightPage(0, 10)).calls).toEqual(whole);
    expect((await store.progress.inFlightPage(0, 10)).next).toBeUndefined();
  });

  test('a missed call rung again (#54): back to queued with its attempt, due time and earlier attempts, dialed once', async () => {
    const { store, userId } = await setUp();
    const callId = await accept(store, userId);
    expect(await store.progress.get(callId)).toMatchObject({ attempt: 1, retryAt: null, attempts: null });
    expect(await store.progress.transition(callId, 'dialing', { phone: PHONE, dialedAt: 1_000 })).toBe(true);
    expect(await store.progress.transition(callId, 'answered')).toBe(true);
    const attempts = JSON.stringify([{ at: 1_000, outcome: 'voicemail' }]);
    expect(await store.progress.transition(callId, 'queued', { attempt: 2, retryAt: 61_000, attempts })).toBe(true);
    expect(await store.progress.get(callId)).toMatchObject({ status: 'queued', attempt: 2, retryAt: 61_000, attempts });
    expect(await store.progress.transition(callId, 'dialing', { phone: PHONE, dialedAt: 61_000 })).toBe(true);
    expect(await store.progress.transition(callId, 'dialing', { phone: PHONE, dialedAt: 61_000 })).toBe(false);
    expect(await store.calls.get(callId)).toMatchObject({
      attempt: 2,
      earlierAttempts: [{ at: 1_000, outcome: 'voicemail' }],
    });
  });

  test("an alert's own expiry and the backup person's number (#54) are kept on its row; the step to the backup number records it", async () => {
    const { store, userId } = await setUp();
    const accepted = await store.calls.accept(userId, 'premium', { ...textAlert('expiring'), expiresIn: 45 });
    if (!accepted.accepted || 'duplicate' in accepted) throw new Error('refused');
    expect(await store.progress.get(accepted.callId)).toMatchObject({ expiresIn: 45, dialTo: null });
    const plain = await accept(store, userId);
    expect(await store.progress.get(plain)).toMatchObject({ expiresIn: null, dialTo: null });
    // The verification call: a test call to the backup number.
    const asked = await store.calls.acceptTestCall(userId, 'press 1', undefined, undefined, '+14155550777');
    if (!asked.accepted) throw new Error('refused');
    expect(await store.progress.get(asked.callId)).toMatchObject({ kind: 'test', dialTo: '+14155550777' });
    // An alert missed at every call goes back to queued, to the backup number.
    expect(await store.progress.transition(plain, 'dialing', { phone: PHONE, dialedAt: 1_000 })).toBe(true);
    const attempts = JSON.stringify([{ at: 1_000, outcome: 'no_answer' }]);
    const step = { attempt: 2, retryAt: 20_000, attempts, dialTo: '+14155550777' };
    expect(await store.progress.transition(plain, 'queued', step)).toBe(true);
    expect(await store.progress.get(plain)).toMatchObject({ status: 'queued', attempt: 2, dialTo: '+14155550777' });
  });

  test('the SMS backup is claimed exactly once; results, skips and lookups by message id', async () => {
    const { clock, store, userId } = await setUp();
    const a = await accept(store, userId, 'a');
    const b = await accept(store, userId, 'b');
    const claims = await Promise.all(Array.from({ length: 8 }, () => store.sms.claimSms(a)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.sms.claimSms(a)).toBe(false);
    await store.sms.markSmsSkipped(a, 'not_needed');
    expect((await store.progress.get(a))?.smsStatus).toBe('sending');
    expect(await store.sms.staleSmsClaims()).toEqual([a]);

    clock.advance(1000);
    await store.sms.setSmsResult(a, { status: 'sent', messageId: 'msg-1', parts: 2 });
    expect(await store.calls.get(a)).toMatchObject({
      smsStatus: 'sent',
      smsMessageId: 'msg-1',
      smsParts: 2,
      smsAt: clock.now(),
      smsError: null,
    });
    clock.advance(1000);
    await store.sms.setSmsResult(a, { status: 'delivered' });
    expect(await store.calls.get(a)).toMatchObject({ smsStatus: 'delivered', smsMessageId: 'msg-1', smsParts: 2 });
    expect(await store.sms.staleSmsClaims()).toEqual([]);
    expect((await store.progress.timeline(a)).map((e) => [e.event, e.detail])).toEqual([
      ['sms_sent', 'msg-1'],
      ['sms_delivered', null],
    ]);

    await store.sms.markSmsSkipped(b, 'disabled');
    expect((await store.progress.get(b))?.smsStatus).toBe('disabled');
    expect(await store.sms.claimSms(b)).toBe(false);

    expect(await store.sms.findBySmsMessage('msg-1')).toEqual([{ callId: a, userId, smsStatus: 'delivered' }]);
    expect(await store.sms.findBySmsMessage('msg-none')).toEqual([]);
    await store.sms.setSmsResult(b, { status: 'failed', error: 'gateway down' });
    expect(await store.calls.get(b)).toMatchObject({ smsStatus: 'failed', smsError: 'gateway down' });
  });

  test('a call that never left this server gives its monthly allowance back, once; one that left it, or a test call, does not', async () => {
    const { clock, store, userId } = await setUp();
    const [setup, rang, carried] = [
      await accept(store, userId),
      await accept(store, userId),
      await accept(store, userId),
    ];
    const test = await store.calls.acceptTestCall(userId, 'test call');
    if (!test.accepted) throw new Error('refused');
    expect((await store.calls.usage(userId)).used).toBe(3);
    for (const id of [setup, rang, carried, test.callId]) await store.progress.transition(id, 'dialing');
    clock.advance(1000);
    const back = { endedAt: clock.now(), error: 'No phone is registered as ringhook', returnsAllowance: true };
    expect(await store.progress.transition(setup, 'unreachable', back)).toBe(true);
    expect(await store.progress.transition(carried, 'unreachable', { ...back, carriedBy: setup })).toBe(true);
    expect(await store.progress.transition(test.callId, 'unreachable', back)).toBe(true);
    expect(await store.progress.transition(rang, 'busy', { endedAt: clock.now(), error: 'busy' })).toBe(true);
    expect((await store.calls.usage(userId)).used).toBe(1);
    // Not twice: a step refused (the call ended already) gives nothing back.
    expect(await store.progress.transition(setup, 'failed', back)).toBe(false);
    expect((await store.calls.usage(userId)).used).toBe(1);
    expect((await store.progress.timeline(setup)).map((e) => e.event)).toEqual(['dialing', 'unreachable', 'allowance']);
    expect(await store.calls.get(setup)).toMatchObject({
      status: 'unreachable',
      error: 'No phone is registered as ringhook',
    });
  });

  test("the server's last SMS attempts, newest first, what the SMS backup switch may promise", async () => {
    const { clock, store, userId } = await setUp();
    expect(await store.calls.recentSmsAttempts(5)).toEqual([]);
    const [a, b, c] = [await accept(store, userId), await accept(store, userId), await accept(store, userId)];
    await store.sms.markSmsSkipped(c, 'disabled', 'SMS backup is off for this account');
    expect(await store.sms.claimSms(a)).toBe(true);
    await store.sms.setSmsResult(a, { status: 'sent', messageId: 'm-1' });
    clock.advance(1000);
    expect(await store.sms.claimSms(b)).toBe(true);
    await store.sms.setSmsResult(b, { status: 'failed', error: 'gateway answered 403' });
    expect(await store.calls.recentSmsAttempts(5)).toEqual([
      { status: 'failed', error: 'gateway answered 403', at: clock.now() },
      { status: 'sent', error: null, at: clock.now() - 1000 },
    ]);
    expect(await store.calls.get(c)).toMatchObject({
      smsStatus: 'disabled',
      smsError: 'SMS backup is off for this account',
    });
  });

  test('a receipt settles a sent SMS once, and finds only the SMS last sent with its id (an SMSC reuses ids after a restart)', async () => {
    const { store, userId, clock } = await setUp();
    const [old, fresh] = [await accept(store, userId), await accept(store, userId)];
    for (const id of [old, fresh]) {
      await store.progress.transition(id, 'dialing');
      await store.progress.transition(id, 'busy');
      expect(await store.sms.claimSms(id)).toBe(true);
    }
    await store.sms.setSmsResult(old, { status: 'sent', messageId: 'reused' });
    clock.advance(3_600_000);
    await store.sms.setSmsResult(fresh, { status: 'sent', messageId: 'reused' });
    expect(await store.sms.findBySmsMessage('reused')).toEqual([{ callId: fresh, userId, smsStatus: 'sent' }]);

    expect(await store.sms.recordSmsReceipt(fresh, { status: 'delivered' })).toBe(true);
    expect(await store.sms.recordSmsReceipt(fresh, { status: 'failed', error: 'not delivered: UNDELIV' })).toBe(false);
    expect(await store.calls.get(fresh)).toMatchObject({ smsStatus: 'delivered', smsError: null });
    expect((await store.progress.timeline(fresh)).map((e) => e.event)).toEqual([
      'dialing',
      'busy',
      'sms_sent',
      'sms_delivered',
    ]);
  });

  test('an SMS the gateway took nothing of waits, all its alerts or none, is found again at start, and is taken back before each try', async () => {
    const { store, userId, clock } = await setUp();
    const [carrier, carried, other] = [
      await accept(store, userId, 'first'),
      await accept(store, userId, 'second'),
      await accept(store, userId),
    ];
    await store.progress.transition(carrier, 'dialing', { phone: PHONE });
    await store.progress.transition(carrier, 'busy');
    await store.progress.transition(carried, 'dialing', { carriedBy: carrier });
    await store.progress.transition(carried, 'busy');
    const claimedAt = clock.now();
    for (const id of [carrier, carried]) expect(await store.sms.claimSms(id)).toBe(true);
    clock.advance(2_000);
    // `other` was never claimed: neither of the two changes.
    expect(await store.sms.smsWaits([carrier, other], 'connect ECONNREFUSED')).toBe(false);
    expect((await store.progress.get(carrier))?.smsStatus).toBe('sending');
    expect(await store.sms.smsWaits([carrier, carried], 'connect ECONNREFUSED')).toBe(true);
    expect(await store.calls.get(carrier)).toMatchObject({
      smsStatus: 'waiting',
      smsError: 'connect ECONNREFUSED',
      smsAt: claimedAt,
    });
    expect(await store.sms.staleSmsClaims()).toEqual([]);
    expect(await store.sms.waitingSmsLeft()).toEqual([
      {
        callId: carrier,
        userId,
        status: 'busy',
        message: 'first',
        messageTruncated: 0,
        phone: PHONE,
        carriedBy: null,
        claimedAt,
      },
      {
        callId: carried,
        userId,
        status: 'busy',
        message: 'second',
        messageTruncated: 0,
        phone: null,
        carriedBy: carrier,
        claimedAt,
      },
    ]);
    expect(await store.sms.resumeSms([carrier, other])).toBe(false);
    expect(await store.sms.resumeSms([carrier, carried])).toBe(true);
    expect(await store.sms.resumeSms([carrier, carried])).toBe(false);
    expect(await store.sms.waitingSmsLeft()).toEqual([]);
    expect(await store.sms.staleSmsClaims()).toEqual([carrier, carried]);
    expect((await store.progress.timeline(carried)).map((e) => [e.event, e.detail])).toContainEqual([
      'sms_waiting',
      'connect ECONNREFUSED',
    ]);
  });

  test('calls that ended with their SMS backup undecided are found, since a time, with whom they rode with', async () => {
    const { store, userId, clock } = await setUp();
    const [carrier, carried, decided] = [
      await accept(store, userId, 'first'),
      await accept(store, userId, 'second'),
      await accept(store, userId),
    ];
    await accept(store, userId); // still queued
    const since = clock.now();
    await store.progress.transition(carrier, 'dialing', { phone: PHONE });
    await store.progress.transition(carried, 'dialing', { phone: PHONE, carriedBy: carrier });
    await store.progress.transition(decided, 'dialing', { phone: PHONE });
    clock.advance(1_000);
    for (const id of [carrier, carried, decided]) await store.progress.transition(id, 'busy');
    await store.sms.markSmsSkipped(decided, 'disabled');
    expect(await store.sms.endedWithoutSms(since)).toEqual([
      {
        callId: carrier,
        userId,
        message: 'first',
        messageTruncated: 0,
        phone: PHONE,
        status: 'busy',
        carriedBy: null,
        endedAt: clock.now(),
      },
      {
        callId: carried,
        userId,
        message: 'second',
        messageTruncated: 0,
        phone: PHONE,
        status: 'busy',
        carriedBy: carrier,
        endedAt: clock.now(),
      },
    ]);
    expect(await store.sms.endedWithoutSms(clock.now() + 1)).toEqual([]);
  });

  test('call writes land in order; a failing one is reported to its caller; drain waits for them', async () => {
    const { store, userId } = await setUp();
    const callId = await accept(store, userId);
    const writes = ['a', 'b', 'c'].map((label) => store.writes.write(label, () => store.progress.note(callId, label)));
    const failed = store.writes
      .write('d', () => {
        throw new Error('boom');
      })
      .catch((error: Error) => error.message);
    const last = store.writes.write('e', () => store.progress.note(callId, 'e'));
    await Promise.all([...writes, last]);
    expect(await failed).toBe('boom');
    expect(await store.writes.drain(1000)).toBe(true);
    expect(store.writes.waiting).toBe(0);
    expect((await store.progress.timeline(callId)).map((e) => e.event)).toEqual(['a', 'b', 'c', 'e']);
  });
});
