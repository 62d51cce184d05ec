// The dialer's state machine without Asterisk: a stand-in ARI client (an event emitter that records
// what the dialer asks and lets the test play Asterisk's events), a stand-in speech engine, and the
// real stores on a temporary SQLite file. The e2e suite proves the same paths against Asterisk.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Alert } from '../../src/core/webhook/payload.js';
import { speakable } from '../../src/core/speech/speakable.js';
import { RING_ALLOWANCE_MS } from '../../src/core/speech/speech-plan.js';
import { SqliteAccountStore } from '../../src/store/sqlite/accounts.js';
import { SqliteCallProgressStore } from '../../src/store/sqlite/progress.js';
import { SqliteHeldCallStore } from '../../src/store/sqlite/held.js';
import { SqliteCallStore } from '../../src/store/sqlite/calls.js';
import { openDatabase } from '../../src/store/sqlite/connect.js';
import { SqliteCallWrites } from '../../src/store/sqlite/writes.js';
import { CallEvents } from '../../src/core/calls/call-events.js';
import { silentLogger } from '../../src/lib/log.js';
import { AriError } from '../../src/pbx/ari-error.js';
import { StandInAri } from '../helpers/stand-in-ari.js';
import { Dialer, type DialerOptions, type FinalCall } from '../../src/calls/index.js';
import { throughTrunk } from '../../src/pbx/endpoint.js';
import { testSecrets } from '../helpers/secrets.js';
import { waitFor } from '../helpers/wait.js';
import { createAccount } from '../helpers/accounts.js';
import { reasonText } from '../../src/core/reasons.js';

const channel = (id: string) => ({ id, name: `PJSIP/trunk-${id}`, state: 'Up' });
const PHONE = '+14155550123';
const dialers: Dialer[] = [];

afterEach(async () => {
  for (const d of dialers.splice(0)) await d.stop(0);
});

/** What each alert's timeline says of its voice when it was dialed ('own voice': nothing). */
const speechDetails = (t: ReturnType<typeof setup>, ids: readonly string[]) =>
  ids.map((id) => t.progress.timeline(id).find((e) => e.event === 'dialing')?.detail ?? 'own voice');

/** Six calls paced two a second (three a ring): two with more waiting behind them, then four with fewer. */
const TWO_BACKLOGGED_THEN_FOUR_OWN = [
  expect.stringMatching(/burst voice \(kal\): more calls were waiting/),
  expect.stringMatching(/burst voice \(kal\): more calls were waiting/),
  'own voice',
  'own voice',
  'own voice',
  'own voice',
];

function setup(
  overrides: Partial<DialerOptions> = {},
  {
    wrapProgress = (p: SqliteCallProgressStore) => p,
    wrapAccounts = (a: SqliteAccountStore) => a,
  }: {
    wrapProgress?: (p: SqliteCallProgressStore) => SqliteCallProgressStore;
    /** What the dialer is given of the accounts (the test's own writes go to the store itself). */
    wrapAccounts?: (a: SqliteAccountStore) => SqliteAccountStore;
  } = {},
) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rh-dialer-')), 'ringhook.db');
  const db = openDatabase(file);
  const accounts = new SqliteAccountStore(db, testSecrets());
  const calls = new SqliteCallStore(db);
  const progress = wrapProgress(new SqliteCallProgressStore(db));
  const ari = new StandInAri();
  const writes = new SqliteCallWrites(db, silentLogger);
  const finals: FinalCall[] = [];
  const account = createAccount(accounts, { phone: PHONE, smsBackup: true, requireConfirm: false });
  const dialer = new Dialer({
    ari,
    store: { progress, writes, accounts: wrapAccounts(accounts), held: new SqliteHeldCallStore(db) },
    // Stand-in speech engine: the media names say what would be spoken.
    tts: {
      synthesize: async (text) => ({
        path: `/speech/${text}.wav`,
        media: `sound:/speech/${text.slice(0, 12)}`,
        durationMs: 1000,
        cached: true,
      }),
    },
    events: new CallEvents(),
    logger: silentLogger,
    now: Date.now,
    onFinal: (call) => finals.push(call),
    endpointFor: throughTrunk,
    ringTimeoutSec: 30,
    maxConcurrent: 10,
    freshnessMs: 300_000,
    pollMs: 20,
    ...overrides,
  });
  dialers.push(dialer);
  const alert = (message: string, userId = account.userId): string => {
    const a: Alert = { form: 'text', message, truncated: false, originalLength: message.length, fields: {}, extra: {} };
    const r = calls.acceptNow(userId, 'premium', a);
    if (!r.accepted) throw new Error('not accepted');
    return r.callId;
  };
  // Told of the end when it is decided; its record lands with the writes of that turn.
  const final = async (callId: string) => {
    const call = await waitFor(`call ${callId} to end`, () => finals.find((f) => f.callId === callId), 3_000);
    await writes.drain(1_000);
    return call;
  };
  const row = (callId: string) => calls.get(callId)!;
  return { file, db, writes, accounts, calls, progress, ari, finals, account, dialer, alert, final, row };
}

describe('Dialer (stand-in ARI)', () => {
  it('quiet hours at the claim: an alert is held (no originate), a test call still rings; sms mode ends it sms_instead', async () => {
    // Quiet all day but the minute before midnight UTC (a window may not cover the whole week).
    const quiet = Date.now() % 86_400_000 < 86_340_000;
    const t = setup({ sendsSms: true });
    t.accounts.update(t.account.userId, { quietHours: 'daily 00:00-23:59', timeZone: 'UTC', quietMode: 'hold' });
    const account = t.accounts.get(t.account.userId)!;
    await t.dialer.start();
    const held = t.alert('held at night');
    t.dialer.enqueue({ callId: held, kind: 'alert', message: 'held at night', account });
    const test = t.calls.acceptTestCall(t.account.userId, 'a test');
    if (!test.accepted || 'duplicate' in test) throw new Error('not accepted');
    t.dialer.enqueue({ callId: test.callId, kind: 'test', message: 'a test', account });
    await waitFor('the test call dialed', () => t.ari.originated.find((o) => o.appArgs?.[0] === test.callId));
    if (!quiet) return;
    await waitFor('the alert held', () => (t.row(held).status === 'held' ? true : undefined));
    expect(t.ari.originated.map((o) => o.appArgs?.[0])).toEqual([test.callId]);

    // The test call ends (busy): the phone's line is free again.
    const ch = channel(`rh-${test.callId}`);
    t.ari.send({ type: 'ChannelDestroyed', channel: ch, cause: 17, cause_txt: 'User busy' });
    await t.final(test.callId);
    const smsAccount = t.accounts.update(t.account.userId, { quietMode: 'sms' })!;
    const sms = t.alert('an SMS instead');
    t.dialer.enqueue({ callId: sms, kind: 'alert', message: 'an SMS instead', account: smsAccount });
    // The SMS goes to the account's phone, and its row names it.
    expect(await t.final(sms)).toMatchObject({ state: 'sms_instead', phone: smsAccount.phone });
    expect(t.row(sms).phone).toBe(smsAccount.phone);
    expect(t.ari.originated).toHaveLength(1);
  });

  it('a message the webhook cut (#57): its call says so last, in the account language, and its end hands the SMS the text with "..."', async () => {
    const texts: string[] = [];
    const t = setup({
      tts: {
        synthesize: async (text) => {
          texts.push(text);
          return {
            path: `/speech/${text}.wav`,
            media: `sound:/speech/${text.slice(0, 12)}`,
            durationMs: 1000,
            cached: true,
          };
        },
      },
    });
    await t.dialer.start();
    // 496 characters of figures said in words: longer than a call says of one alert (cut again there, the word kept).
    const message = '1234567 '.repeat(62).trim();
    const cut: Alert = { form: 'text', message, truncated: true, originalLength: 900, fields: {}, extra: {} };
    const accepted = t.calls.acceptNow(t.account.userId, 'premium', cut);
    if (!accepted.accepted) throw new Error('not accepted');
    const { callId } = accepted;
    t.dialer.enqueue(callId);
    await waitFor('originate', () => t.ari.originated[0]);
    const said = await waitFor('the message made', () => texts.find((x) => x.startsWith('one million')), 3_000);
    expect(said).toMatch(/\. message shortened$/);
    const ch = channel(`rh-${callId}`);
    t.ari.send({ type: 'ChannelHangupRequest', channel: ch, cause: 17, tech_cause: 486 });
    t.ari.send({ type: 'ChannelDestroyed', channel: ch, cause: 17, cause_txt: 'User busy' });
    expect((await t.final(callId)).message).toBe(`${message}...`);
    expect(t.row(callId).message).toBe(message);
  });

  it('a busy phone: dialed once through the trunk, rang, ended busy with its SIP code, handed on with the number called', async () => {
    const t = setup();
    await t.dialer.start();
    const callId = t.alert('AAPL 190');
    t.dialer.enqueue(callId);
    await waitFor('originate', () => t.ari.originated[0]);
    expect(t.ari.originated[0]).toMatchObject({
      channelId: `rh-${callId}`,
      endpoint: `PJSIP/${PHONE}@trunk`,
      appArgs: [callId],
      timeoutSec: 30,
    });
    const ch = channel(`rh-${callId}`);
    t.ari.send({ type: 'Dial', peer: ch, dialstatus: 'RINGING' });
    t.ari.send({ type: 'ChannelHangupRequest', channel: ch, cause: 17, tech_cause: 486 });
    t.ari.send({ type: 'ChannelDestroyed', channel: ch, cause: 17, cause_txt: 'User busy' });
    expect(await t.final(callId)).toEqual({
      callId,
      userId: t.account.userId,
      message: 'AAPL 190',
      phone: PHONE,
      state: 'busy',
      carried: [],
      // The end carries its account's flags, read with the call (#55): the SMS backup reads nothing again.
      account: { smsBackup: true, status: 'active', phone: PHONE, callbackOn: false },
    });
    await waitFor('the record', () => (t.row(callId).status === 'busy' ? true : undefined));
    expect(t.row(callId)).toMatchObject({ sipCode: 486, hangupCause: 17 });
    expect(t.ari.originated).toHaveLength(1);
  });

  it('the account is read once per alert on the way to the phone: the webhook hands over what it read; one found queued in the store is read as it joins the queue', async () => {
    const reads: string[] = [];
    let counted: SqliteAccountStore | undefined;
    const t = setup(
      {},
      {
        wrapAccounts: (real) => {
          counted = Object.create(real) as SqliteAccountStore;
          counted.get = (userId) => {
            reads.push(userId);
            return real.get(userId);
          };
          return counted;
        },
      },
    );
    await t.dialer.start();
    const { userId } = t.account;
    // As the webhook does: it reads the account (counted here), accepts the alert and hands both over.
    const account = counted!.get(userId)!;
    const handed = t.alert('AAPL 190');
    t.dialer.enqueue({ callId: handed, kind: 'alert', message: 'AAPL 190', account });
    await waitFor('originate', () => t.ari.originated[0]);
    expect(reads).toEqual([userId]);
    // An alert found queued in the store (a CLI test call, one left by a restart): read as it joins the queue.
    const other = createAccount(t.accounts, { phone: '+14155550124', requireConfirm: false });
    const found = t.alert('MSFT 420', other.userId);
    t.dialer.enqueue(found);
    await waitFor('second originate', () => t.ari.originated[1]);
    expect(t.ari.originated.map((o) => o.appArgs)).toEqual([[handed], [found]]);
    expect(reads).toEqual([userId, other.userId]);
  });

  it('answered: plays intro, keys, message and prompt; 1 is confirmed aloud, then the hang-up, and the call ends acknowledged', async () => {
    const t = setup();
    await t.dialer.start();
    const callId = t.alert('BTC above 100k');
    t.dialer.enqueue(callId);
    await waitFor('originate', () => t.ari.originated[0]);
    const ch = channel(`rh-${callId}`);
    t.ari.send({ type: 'StasisStart', channel: ch, args: [callId] });
    await waitFor('playback', () => t.ari.played[0]);
    // The message is spoken as a trader reads it, not as written.
    expect(t.ari.played[0]).toEqual([
      ch.id,
      'sound:/speech/Alert from r',
      'sound:/speech/Press 1 to c',
      `sound:/speech/${speakable('BTC above 100k').slice(0, 12)}`,
      'sound:/speech/Press 1 to c',
    ]);
    t.ari.send({ type: 'ChannelDtmfReceived', channel: ch, digit: '1' });
    await waitFor('the confirmation', () => t.ari.played[1]);
    expect(t.ari.played[1]).toEqual([ch.id, 'sound:/speech/Confirmed. G']);
    expect(t.ari.hungUp).toEqual([]);
    t.ari.send({
      type: 'PlaybackFinished',
      playback: { id: `${ch.id}-p2`, media_uri: '', target_uri: `channel:${ch.id}`, state: 'done' },
    });
    await waitFor('hangup', () => t.ari.hungUp[0]);
    t.ari.send({ type: 'ChannelDestroyed', channel: ch, cause: 16, cause_txt: 'Normal Clearing' });
    expect((await t.final(callId)).state).toBe('acknowledged');
  });

  const answer = (t: ReturnType<typeof setup>, ch: ReturnType<typeof channel>, callId: string) =>
    t.ari.send({ type: 'StasisStart', channel: ch, args: [callId] });
  const finished = (t: ReturnType<typeof setup>, ch: ReturnType<typeof channel>, n: number) =>
    t.ari.send({
      type: 'PlaybackFinished',
      playback: { id: `${ch.id}-p${n}`, media_uri: '', target_uri: `channel:${ch.id}`, state: 'done' },
    });

  it('confirmation required: the message played and no 1 pressed ends unconfirmed; off, the same call ends completed', async () => {
    for (const [requireConfirm, state] of [
      [true, 'unconfirmed'],
      [false, 'completed'],
    ] as const) {
      const t = setup({ digitWaitMs: 20 });
      t.accounts.update(t.account.userId, { requireConfirm });
      await t.dialer.start();
      const callId = t.alert('ETH 4k');
      t.dialer.enqueue(callId);
      await waitFor('originate', () => t.ari.originated[0]);
      const ch = channel(`rh-${callId}`);
      answer(t, ch, callId);
      await waitFor('playback', () => t.ari.played[0]);
      finished(t, ch, 1);
      await waitFor('hangup', () => t.ari.hungUp[0]);
      t.ari.send({ type: 'ChannelDestroyed', channel: ch, cause: 16, cause_txt: 'Normal Clearing' });
      expect((await t.final(callId)).state).toBe(state);
    }
  });

  it('answering-machine detection: speech starts on the answer while TALK_DETECT listens; a greeting that talks on stops the message, which is left whole once the greeting ends: voicemail, verdict kept', async () => {
    const t = setup({ detectMachine: true });
    await t.dialer.start();
    const callId = t.alert('SPY below 500');
    t.dialer.enqueue(callId);
    await waitFor('originate', () => t.ari.originated[0]);
    const ch = channel(`rh-${callId}`);
    answer(t, ch, callId);
    await waitFor('playback', () => t.ari.played[0]);
    expect(t.ari.played[0]).toHaveLength(5);
    // Talk detection was set with the originate: nothing waits for it at the answer.
    expect(t.ari.originated[0]!.variables).toMatchObject({ 'TALK_DETECT(set)': '800,256' });
    // The greeting: one phrase that talks on past a person's longest.
    t.ari.send({ type: 'ChannelTalkingStarted', channel: ch });
    await waitFor('the message stopped', () => t.ari.stopped[0], 5_000);
    expect(t.ari.stopped[0]).toBe(`${ch.id}-p1`);
    expect(t.ari.played).toHaveLength(1);
    // Its end (and the beep's): 1.5 s of silence later, the intro and the message, no prompt.
    t.ari.send({ type: 'ChannelTalkingFinished', channel: ch, duration: 4_000 });
    await waitFor('the message left', () => t.ari.played[1], 5_000);
    expect(t.ari.played[1]).toEqual([
      ch.id,
      'sound:/speech/Alert from r',
      `sound:/speech/${speakable('SPY below 500').slice(0, 12)}`,
    ]);
    // The first playback's end (it was stopped) does not start a digit wait nor end the call.
    finished(t, ch, 1);
    finished(t, ch, 2);
    await waitFor('hangup', () => t.ari.hungUp[0]);
    t.ari.send({ type: 'ChannelDestroyed', channel: ch, cause: 16, cause_txt: 'Normal Clearing' });
    expect((await t.final(callId)).state).toBe('voicemail');
    await waitFor('the verdict recorded', () => (t.row(callId).status === 'voicemail' ? true : undefined));
    expect(t.db.prepare('SELECT amd_status, amd_cause FROM calls WHERE call_id = ?').get(callId)).toMatchObject({
      amd_status: 'MACHINE',
      amd_cause: expect.stringMatching(/^LONGGREETING-2\d{3}-2000$/),
    });
  }, 15_000);

  it('answering-machine detection: a person who says "Hello?" over the intro is a person; the message goes on, and 1 acknowledges', async () => {
    const t = setup({ detectMachine: true });
    await t.dialer.start();
    const callId = t.alert('QQQ');
    t.dialer.enqueue(callId);
    await waitFor('originate', () => t.ari.originated[0]);
    const ch = channel(`rh-${callId}`);
    answer(t, ch, callId);
    await waitFor('playback', () => t.ari.played[0]);
    t.ari.send({ type: 'ChannelTalkingStarted', channel: ch });
    t.ari.send({ type: 'ChannelTalkingFinished', channel: ch, duration: 450 });
    await waitFor(
      'the verdict recorded',
      () =>
        (t.db.prepare('SELECT amd_status FROM calls WHERE call_id = ?').get(callId) as { amd_status: string | null })
          .amd_status ?? undefined,
      5_000,
    );
    expect(t.db.prepare('SELECT amd_status, amd_cause FROM calls WHERE call_id = ?').get(callId)).toEqual({
      amd_status: 'HUMAN',
      amd_cause: 'HUMAN-1-450',
    });
    expect(t.ari.stopped).toEqual([]);
    t.ari.send({ type: 'ChannelDtmfReceived', channel: ch, digit: '1' });
    await waitFor('the confirmation', () => t.ari.played[1]);
    finished(t, ch, 2);
    await waitFor('hangup', () => t.ari.hungUp[0]);
    t.ari.send({ type: 'ChannelDestroyed', channel: ch, cause: 16, cause_txt: 'Normal Clearing' });
    expect((await t.final(callId)).state).toBe('acknowledged');
  }, 15_000);

  it("a German account's merged call: every text in German, all made by espeak-ng's German voice, in the order played", async () => {
    const asked: Array<{ text: string; options: unknown }> = [];
    const t = setup({
      tts: {
        synthesize: async (text, options) => {
          asked.push({ text, options });
          return { path: `/speech/${text}.wav`, media: `sound:/speech/${text}`, durationMs: 1000, cached: true };
        },
      },
    });
    t.accounts.update(t.account.userId, { language: 'de', voice: 'espeak-ng', intro: null });
    await t.dialer.start();
    const first = t.alert('eins');
    t.dialer.enqueue(first);
    await waitFor('first originate', () => t.ari.originated[0]);
    const rest = [t.alert('DAX > 18000.5'), t.alert('SAP < 200')];
    for (const id of rest) t.dialer.enqueue(id);
    // Both wait during the first call: each joins the queue once read from the store (SQLite
    // answers within this turn of the loop), before that call ends.
    await new Promise((r) => setImmediate(r));
    t.ari.send({ type: 'ChannelDestroyed', channel: channel(`rh-${first}`), cause: 17, cause_txt: 'User busy' });
    await waitFor('second originate', () => t.ari.originated[1]);
    answer(t, channel(`rh-${rest[0]}`), rest[0]!);
    await waitFor('playback', () => t.ari.played[0]);
    expect(t.ari.played[0]!.slice(1)).toEqual([
      'sound:/speech/Alarm von ringhook.',
      'sound:/speech/Drücken Sie 1 zum Bestätigen, 2 oder Stern zum erneuten Anhören, 0 für diese Tasten.',
      'sound:/speech/Sie haben 2 Alarme. Erstens: D A X über 18000,5. Zweitens: S A P unter 200.',
      'sound:/speech/Drücken Sie 1 zum Bestätigen, 2 zum erneuten Anhören.',
    ]);
    expect(new Set(asked.map((a) => JSON.stringify(a.options)))).toEqual(
      new Set([JSON.stringify({ engine: 'espeak-ng', voice: 'de' })]),
    );
    t.ari.send({
      type: 'ChannelDestroyed',
      channel: channel(`rh-${rest[0]}`),
      cause: 16,
      cause_txt: 'Normal Clearing',
    });
    await t.final(rest[0]!);
  });

  it('one line per phone: alerts that arrive during a call wait, then ride together in the next call, in order', async () => {
    const t = setup();
    await t.dialer.start();
    const first = t.alert('one');
    t.dialer.enqueue(first);
    await waitFor('first originate', () => t.ari.originated[0]);
    const rest = ['two', 'three', 'four'].map((m) => t.alert(m));
    for (const id of rest) t.dialer.enqueue(id);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.ari.originated).toHaveLength(1);
    t.ari.send({ type: 'ChannelDestroyed', channel: channel(`rh-${first}`), cause: 17, cause_txt: 'User busy' });
    await waitFor('second originate', () => t.ari.originated[1]);
    expect(t.ari.originated[1]!.appArgs).toEqual([rest[0]]);
    const ch = channel(`rh-${rest[0]}`);
    answer(t, ch, rest[0]!);
    await waitFor('playback', () => t.ari.played[0]);
    expect(t.ari.played[0]![3]).toBe('sound:/speech/You have thr');
    t.ari.send({ type: 'ChannelDestroyed', channel: ch, cause: 16, cause_txt: 'Normal Clearing' });
    const merged = await t.final(rest[0]!);
    expect(merged).toMatchObject({
      state: 'completed',
      carried: [
        { callId: rest[1], message: 'three' },
        { callId: rest[2], message: 'four' },
      ],
    });
    await waitFor('every row final', () => (rest.every((id) => t.row(id).status === 'completed') ? true : undefined));
    const carriedBy = t.db
      .prepare('SELECT call_id, carried_by FROM calls WHERE call_id IN (?, ?, ?) ORDER BY id')
      .all(...rest);
    expect(carriedBy).toEqual([
      { call_id: rest[0], carried_by: null },
      { call_id: rest[1], carried_by: rest[0] },
      { call_id: rest[2], carried_by: rest[0] },
    ]);
    expect(t.ari.originated).toHaveLength(2);
    expect((await t.final(first)).state).toBe('busy');
  });

  it('paced to the provider: never more call starts in a second than its rate, oldest alert first', async () => {
    const t = setup({ callsPerSecond: 2 });
    const phones = ['+14155550901', '+14155550902', '+14155550903', '+14155550904', '+14155550905'];
    const ids = phones.map((phone, i) => t.alert(`alert ${i}`, createAccount(t.accounts, { phone }).userId));
    const started = Date.now();
    await t.dialer.start();
    for (const id of ids) t.dialer.enqueue(id);
    await waitFor('all five dialed', () => t.ari.originated[4], 4_000);
    expect(t.ari.originated.map((o) => o.appArgs![0])).toEqual(ids);
    const at = t.ari.originated.map((o) => t.row(o.appArgs![0]!).dialedAt! - started);
    for (const a of at) expect(at.filter((b) => b >= a && b < a + 1000).length).toBeLessThanOrEqual(2);
    expect(at[4]).toBeGreaterThanOrEqual(1900);
  });

  it('paced by when Asterisk reports dialing, not by when it was asked: a slow Asterisk never bunches the INVITEs', async () => {
    const t = setup({ callsPerSecond: 1 });
    t.ari.dialAfterMs = 600;
    const phones = ['+14155550911', '+14155550912'];
    const ids = phones.map((phone, i) => t.alert(`slow ${i}`, createAccount(t.accounts, { phone }).userId));
    await t.dialer.start();
    for (const id of ids) t.dialer.enqueue(id);
    const asked: number[] = [];
    await waitFor(
      'both asked',
      () => {
        if (asked.length < t.ari.originated.length) asked.push(Date.now());
        return t.ari.originated.length >= 2 ? true : undefined;
      },
      5_000,
      5,
    );
    // The first dialed 600 ms after it was asked; the second may start a second after that.
    expect(asked[1]! - asked[0]!).toBeGreaterThanOrEqual(1_550);
  });

  it('speech that would not be ready before an answer, and no burst voice: the call is placed once its speech is made, never to silence; speech on time: at once', async () => {
    let finishSpeech: () => void = () => {};
    const slowSpeech = new Promise<void>((resolve) => {
      finishSpeech = resolve;
    });
    let readyInMs = 5_000;
    const t = setup({
      tts: {
        expectedReadyMs: () => readyInMs,
        synthesize: async (text) => {
          await slowSpeech;
          return {
            path: `/speech/${text}.wav`,
            media: `sound:/speech/${text.slice(0, 12)}`,
            durationMs: 1000,
            cached: false,
          };
        },
      },
    });
    await t.dialer.start();
    const waiting = t.alert('made slowly');
    t.dialer.enqueue(waiting);
    await new Promise((r) => setTimeout(r, 200)); // nothing may happen: the assertion is that nothing did
    expect(t.ari.originated).toEqual([]);
    expect(t.row(waiting).status).toBe('dialing');
    finishSpeech();
    await waitFor('the call placed once its speech is ready', () => t.ari.originated[0]);
    readyInMs = 100;
    const other = t.alert('engines free', createAccount(t.accounts, { phone: '+14155550933' }).userId);
    t.dialer.enqueue(other);
    await waitFor('placed at once', () => t.ari.originated[1]);
  });

  it("own voice late, burst voice on time: placed at once in the burst voice (every phrase), and the call's timeline says so", async () => {
    const asked: Array<{ text: string; voice: string | undefined }> = [];
    const t = setup({
      burstVoice: 'kal',
      tts: {
        expectedReadyMs: (o) => (o?.voice === 'kal' ? 300 : 4_000),
        synthesize: async (text, o) => {
          asked.push({ text, voice: o?.voice });
          return { path: `/speech/x.wav`, media: `sound:/speech/${asked.length}`, durationMs: 1000, cached: false };
        },
      },
    });
    await t.dialer.start();
    const id = t.alert('NVDA crossed 140');
    t.dialer.enqueue(id);
    await waitFor('placed at once', () => t.ari.originated[0]);
    await waitFor('its phrases asked for', () => (asked.length >= 4 ? true : undefined));
    expect(new Set(asked.map((a) => a.voice))).toEqual(new Set(['kal']));
    await waitFor('dialing recorded', () => t.progress.timeline(id).find((e) => e.event === 'dialing'));
    expect(t.progress.timeline(id).find((e) => e.event === 'dialing')?.detail).toMatch(/burst voice \(kal\)/);
  });

  it("more calls waiting than the trunk takes in a ring: the cheaper burst voice though the own would be on time; the owner's voice again once few wait", async () => {
    const cost = (o?: { voice?: string }) => (o?.voice === 'kal' ? 7 : 70);
    const t = setup({
      burstVoice: 'kal',
      callsPerSecond: 2,
      tts: {
        expectedReadyMs: cost,
        expectedMakingMs: cost,
        fastestMakingMs: cost,
        synthesize: async (text) => ({
          path: '/speech/x.wav',
          media: `sound:/speech/${text.slice(0, 12)}`,
          durationMs: 1000,
          cached: false,
        }),
      },
    });
    await t.dialer.start();
    const phones = ['+14155550951', '+14155550952', '+14155550953', '+14155550954', '+14155550955', '+14155550956'];
    const ids = phones.map((phone, i) => t.alert(`waiting ${i}`, createAccount(t.accounts, { phone }).userId));
    for (const id of ids) t.dialer.enqueue(id);
    await waitFor('all six placed', () => t.ari.originated[5], 5_000);
    // Two a second, three a ring: the first two leave four waiting, the next two leave two.
    expect(speechDetails(t, ids)).toEqual(TWO_BACKLOGGED_THEN_FOUR_OWN);
  });

  it('alerts waiting for the pace: their speech is made ahead in dial order in the burst voice while a backlog waits behind them, and their calls are placed at once though speech asked for then would be late', async () => {
    const cost = (o?: { voice?: string }) => (o?.voice === 'kal' ? 7 : 70);
    const made = new Set<string>();
    const madeKey = (text: string, o?: { voice?: string }) => `${o?.voice ?? 'own'}|${text}`;
    const ahead: string[] = [];
    const t = setup({
      burstVoice: 'kal',
      callsPerSecond: 2,
      tts: {
        // Speech asked for by a call would be late: a call whose speech was not made ahead is held for it.
        expectedReadyMs: () => 5_000,
        expectedMakingMs: cost,
        fastestMakingMs: cost,
        ahead: (say, o) => {
          ahead.push(madeKey(say(), o));
          made.add(madeKey(say(), o));
          return Promise.resolve();
        },
        progressOf: (text, o) => (made.has(madeKey(text, o)) ? 'made' : 'none'),
        // Made by the call itself: 20 s for the two with more waiting behind them than a ring takes
        // (made ahead), 0.2 s for the others (the first two, dialed before anything waits, and the last
        // four, whose owner's voice is dearer and left to their own plans).
        synthesize: async (text, o) => {
          const backlogged = /waiting (charlie|delta)$/.test(text);
          if (!made.has(madeKey(text, o))) await new Promise((r) => setTimeout(r, backlogged ? 20_000 : 200).unref());
          return { path: '/speech/x.wav', media: `sound:/speech/${text.slice(0, 12)}`, durationMs: 1000, cached: true };
        },
      },
    });
    await t.dialer.start();
    const phones = [
      '+14155550961',
      '+14155550962',
      '+14155550963',
      '+14155550964',
      '+14155550965',
      '+14155550966',
      '+14155550967',
      '+14155550968',
    ];
    const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    const ids = phones.map((phone, i) => t.alert(`waiting ${names[i]}`, createAccount(t.accounts, { phone }).userId));
    for (const id of ids) t.dialer.enqueue(id);
    // Two a second: the six that wait behind the first two are placed as the pace allows, none
    // waiting for speech made when its turn comes (20 s).
    await waitFor('all eight placed', () => t.ari.originated[7], 6_000);
    // Three a ring: made in kal while more than three wait behind; not the owner's dearer voice after.
    expect(ahead).toEqual(['kal|waiting charlie', 'kal|waiting delta']);
    expect(speechDetails(t, ids.slice(2))).toEqual(TWO_BACKLOGGED_THEN_FOUR_OWN);
  });

  it('speech ready later than its plan: the next calls add that lateness to their forecast, and one no longer on time waits for its speech before it is placed', async () => {
    const speechMs: Record<string, number> = { 'first alert': 2_000, 'second alert': 400 };
    const t = setup({
      tts: {
        // On time by the forecast (a ring is 1.5 s); the first is a second later than that.
        expectedReadyMs: () => 1_000,
        synthesize: async (text) => {
          await new Promise((r) => setTimeout(r, speechMs[text] ?? 0));
          return {
            path: '/speech/x.wav',
            media: `sound:/speech/${text.slice(0, 12)}`,
            durationMs: 1000,
            cached: false,
          };
        },
      },
    });
    await t.dialer.start();
    const first = t.alert('first alert');
    t.dialer.enqueue(first);
    await waitFor('the first placed at once', () => t.ari.originated[0], 500);
    await new Promise((r) => setTimeout(r, 2_100)); // its speech is ready, a second late
    const second = t.alert('second alert', createAccount(t.accounts, { phone: '+14155550971' }).userId);
    const askedAt = Date.now();
    t.dialer.enqueue(second);
    await waitFor('the second placed', () => t.ari.originated[1], 3_000);
    // 1 s forecast + 1 s late: not on time, so placed once its speech (0.4 s) is made.
    expect(Date.now() - askedAt).toBeGreaterThanOrEqual(350);
  });

  it("calls planned in the same moment see each other's speech as queued: the owner's voice while it is on time, then the burst voice", async () => {
    const cost = (o?: { voice?: string }) => (o?.voice === 'kal' ? 50 : 600);
    // Speech asked for keeps its engine busy for the rest of the test; a reservation until it is asked for.
    let queuedMs = 0;
    const t = setup({
      burstVoice: 'kal',
      tts: {
        expectedReadyMs: (o) => queuedMs + cost(o),
        expectedMakingMs: cost,
        reserve: (o) => {
          let ms = cost(o);
          queuedMs += ms;
          return () => {
            queuedMs -= ms;
            ms = 0;
          };
        },
        synthesize: async (text, o) => {
          queuedMs += cost(o);
          return {
            path: '/speech/x.wav',
            media: `sound:/speech/${text.slice(0, 12)}`,
            durationMs: 1000,
            cached: false,
          };
        },
      },
    });
    await t.dialer.start();
    const ids = ['+14155550941', '+14155550942', '+14155550943'].map((phone, i) =>
      t.alert(`alert ${i}`, createAccount(t.accounts, { phone }).userId),
    );
    for (const id of ids) t.dialer.enqueue(id);
    await waitFor('all three placed', () => t.ari.originated[2]);
    // 600 and 1,200 ms: on time for a ring (1.5 s); the third would be ready at 1.8 s.
    expect(speechDetails(t, ids)).toEqual(['own voice', 'own voice', expect.stringMatching(/burst voice \(kal\)/)]);
  });

  it('a voice slower than a ring by itself, nothing queued: its own voice, the call held until its speech is ready when the phone can first be answered, and the timeline says so', async () => {
    const asked: Array<string | undefined> = [];
    const t = setup({
      burstVoice: 'kal',
      tts: {
        expectedReadyMs: (o) => (o?.voice === 'kal' ? 100 : RING_ALLOWANCE_MS + 400),
        expectedMakingMs: (o) => (o?.voice === 'kal' ? 100 : RING_ALLOWANCE_MS + 400),
        synthesize: async (text, o) => {
          asked.push(o?.voice);
          await new Promise((r) => setTimeout(r, 5_000).unref());
          return {
            path: '/speech/x.wav',
            media: `sound:/speech/${text.slice(0, 12)}`,
            durationMs: 1000,
            cached: false,
          };
        },
      },
    });
    await t.dialer.start();
    const id = t.alert('made slowly in the chosen voice');
    const claimedAt = Date.now();
    t.dialer.enqueue(id);
    await waitFor('placed once held', () => t.ari.originated[0]);
    // Held its 400 ms (not until its speech, 5 s away), not placed at once.
    expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(350);
    expect(Date.now() - claimedAt).toBeLessThan(3_000);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked).not.toContain('kal');
    expect(t.progress.timeline(id).find((e) => e.event === 'dialing')?.detail).toMatch(
      /placed up to 0\.4 s later: its voice takes longer to make/,
    );
  });

  it('stopped while a call is held before it is placed: nothing is dialed, the stop does not wait out the hold, and the alert is queued again for the next start', async () => {
    const t = setup({
      tts: {
        expectedReadyMs: () => 20_000,
        expectedMakingMs: () => 20_000,
        synthesize: async (text) => {
          await new Promise((r) => setTimeout(r, 30_000).unref());
          return {
            path: '/speech/x.wav',
            media: `sound:/speech/${text.slice(0, 12)}`,
            durationMs: 1000,
            cached: false,
          };
        },
      },
    });
    await t.dialer.start();
    const id = t.alert('held for a slow voice');
    t.dialer.enqueue(id);
    await waitFor('claimed and held', () => (t.row(id).status === 'dialing' ? true : undefined));
    const stopAt = Date.now();
    await t.dialer.stop(5_000);
    expect(Date.now() - stopAt).toBeLessThan(2_000);
    expect(t.ari.originated).toEqual([]);
    await waitFor('queued again', () => (t.row(id).status === 'queued' ? true : undefined));
    expect(t.progress.timeline(id).at(-1)?.detail).toMatch(/stopped before the call was placed/);
  });

  it('held for speech that then cannot be made: the phone is not rung, the call fails saying why (its SMS backup follows)', async () => {
    const t = setup({
      tts: {
        expectedReadyMs: () => 20_000,
        expectedMakingMs: () => 20_000,
        synthesize: async () => {
          await new Promise((r) => setTimeout(r, 100));
          throw new Error('flite made no sound (44 bytes)');
        },
      },
    });
    await t.dialer.start();
    const id = t.alert('held, then its speech fails');
    t.dialer.enqueue(id);
    await waitFor('failed', () => (t.row(id).status === 'failed' ? true : undefined));
    expect(t.ari.originated).toEqual([]);
    expect(t.progress.timeline(id).at(-1)?.detail).toMatch(/its speech could not be made: flite made no sound/);
    await t.dialer.stop(1_000);
  });

  it('one line per phone does not hold back other phones', async () => {
    const t = setup();
    const other = createAccount(t.accounts, { phone: '+14155550999' });
    await t.dialer.start();
    const a = t.alert('mine');
    const b = t.alert('theirs', other.userId);
    t.dialer.enqueue(a);
    t.dialer.enqueue(b);
    await waitFor('both dialed', () => t.ari.originated[1]);
    expect(t.ari.originated.map((o) => o.endpoint)).toEqual([`PJSIP/${PHONE}@trunk`, 'PJSIP/+14155550999@trunk']);
  });

  it('never more calls at once than the cap; the next starts when one ends, oldest first', async () => {
    const t = setup({ maxConcurrent: 1 });
    await t.dialer.start();
    const [a, b] = [t.alert('first'), t.alert('second')];
    t.dialer.enqueue(a);
    t.dialer.enqueue(b);
    await waitFor('first originate', () => t.ari.originated[0]);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.ari.originated.map((o) => o.appArgs![0])).toEqual([a]);
    expect(t.dialer.queuedCalls).toBe(1);
    t.ari.send({ type: 'ChannelDestroyed', channel: channel(`rh-${a}`), cause: 21, cause_txt: 'Call Rejected' });
    await waitFor('second originate', () => t.ari.originated[1]);
    expect(t.ari.originated[1]!.appArgs).toEqual([b]);
    expect((await t.final(a)).state).toBe('rejected');
  });

  it('Asterisk refusing the connection: nothing was dialed, the call waits queued and is placed once it answers', async () => {
    const t = setup();
    t.ari.originateError = new AriError('network', 'POST', '/channels/x', undefined, undefined, {
      cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
    });
    await t.dialer.start();
    const callId = t.alert('wait for me');
    t.dialer.enqueue(callId);
    await waitFor('the refusal', () => t.ari.originated[0]);
    await waitFor('queued again', () =>
      t.row(callId).status === 'queued' && t.ari.originated.length === 1 ? true : undefined,
    );
    t.ari.originateError = undefined;
    // Held back 0.5 s, then dialed again.
    await waitFor('second originate', () => t.ari.originated[1], 3_000);
    expect(t.finals).toEqual([]);
  });

  it('an originate Asterisk refuses (HTTP) is the outcome: unreachable, never retried', async () => {
    const t = setup();
    t.ari.originateError = new AriError('http', 'POST', '/channels/x', 400, 'Invalid endpoint');
    await t.dialer.start();
    const callId = t.alert('nowhere');
    t.dialer.enqueue(callId);
    expect((await t.final(callId)).state).toBe('unreachable');
    await new Promise((r) => setTimeout(r, 100));
    expect(t.ari.originated).toHaveLength(1);
  });

  it('a suspended account: its queued alert ended failed by the suspension itself, never dialed nor handed on', async () => {
    const t = setup();
    await t.dialer.start();
    const callId = t.alert('suspended');
    t.accounts.update(t.account.userId, { status: 'suspended' });
    // The suspension's write ended it (store/rows.ts endedBySuspension), SMS decided: nothing is left for the dialer.
    expect(t.db.prepare('SELECT status, error, sms_status FROM calls WHERE call_id = ?').get(callId)).toEqual({
      status: 'failed',
      error: reasonText('account_suspended'),
      sms_status: 'disabled',
    });
    t.dialer.enqueue(callId);
    await new Promise((r) => setTimeout(r, 200));
    expect(t.ari.originated).toEqual([]);
    expect(t.finals).toEqual([]);
  });

  it('at start: a call left in progress is interrupted (never redialed), an old queued one expires, a fresh one is dialed', async () => {
    const t = setup();
    const inProgress = t.alert('was ringing');
    t.progress.transition(inProgress, 'dialing', { phone: PHONE });
    const old = t.alert('old');
    t.db.prepare('UPDATE calls SET received_at = ? WHERE call_id = ?').run(Date.now() - 400_000, old);
    const fresh = t.alert('fresh');
    await t.dialer.start();
    expect(await t.final(inProgress)).toMatchObject({ state: 'interrupted', phone: PHONE });
    expect(await t.final(old)).toMatchObject({ state: 'expired', phone: null });
    await waitFor('fresh originate', () => t.ari.originated[0]);
    expect(t.ari.originated.map((o) => o.appArgs![0])).toEqual([fresh]);
  });

  it('at start: a call that carried several alerts is interrupted with them, handed on together (one SMS)', async () => {
    const t = setup();
    const own = t.alert('own');
    const rider = t.alert('rider');
    t.progress.transition(own, 'dialing', { phone: PHONE });
    t.progress.transition(rider, 'dialing', { phone: PHONE, carriedBy: own });
    await t.dialer.start();
    expect(await t.final(own)).toMatchObject({ state: 'interrupted', carried: [{ callId: rider, message: 'rider' }] });
    expect(t.finals.map((f) => f.callId)).toEqual([own]);
    await waitFor('both rows', () => (t.row(rider).status === 'interrupted' ? true : undefined));
  });

  it('after a reconnect, a call whose channel is gone ends interrupted', async () => {
    const t = setup();
    await t.dialer.start();
    const callId = t.alert('lost');
    t.dialer.enqueue(callId);
    await waitFor('originate', () => t.ari.originated[0]);
    t.ari.alive.clear();
    t.ari.emit('connected', { reconnect: true, downMs: 1000 });
    expect(await t.final(callId)).toMatchObject({ state: 'interrupted' });
    expect(t.row(callId)).toMatchObject({
      error: reasonText('events_lost'),
      reasonDetail: 'the call ended while the connection to Asterisk was down',
    });
  });

  it('stop: a call that does not end in the grace period is hung up and ends interrupted', async () => {
    const t = setup();
    await t.dialer.start();
    const callId = t.alert('cut');
    t.dialer.enqueue(callId);
    await waitFor('originate', () => t.ari.originated[0]);
    await t.dialer.stop(50);
    expect(t.ari.hungUp).toEqual([`rh-${callId}`]);
    expect((await t.final(callId)).state).toBe('interrupted');
  });

  describe('the backup trunk', () => {
    const backup = (phone: string) => throughTrunk(phone, 'trunk2');
    const placedThrough = (t: ReturnType<typeof setup>, callId: string) =>
      t.db.prepare('SELECT trunk, channel_id AS channelId FROM calls WHERE call_id = ?').get(callId) as {
        trunk: string;
        channelId: string;
      };

    it('the first trunk answers 503 before any ring: placed once more through trunk2, and the call goes on there', async () => {
      const t = setup({ backupEndpointFor: backup });
      await t.dialer.start();
      const callId = t.alert('ES1! above 6000');
      t.dialer.enqueue(callId);
      await waitFor('originate', () => t.ari.originated[0]);
      const first = channel(`rh-${callId}`);
      t.ari.send({ type: 'ChannelHangupRequest', channel: first, cause: 34, tech_cause: 503 });
      t.ari.send({
        type: 'ChannelDestroyed',
        channel: first,
        cause: 34,
        cause_txt: 'Circuit/channel congestion',
        tech_cause: 503,
      });
      await waitFor('second originate', () => t.ari.originated[1]);
      expect(t.ari.originated[1]).toMatchObject({
        channelId: `rh-${callId}-b`,
        endpoint: `PJSIP/${PHONE}@trunk2`,
        appArgs: [callId],
      });
      await waitFor('the record', () => (placedThrough(t, callId).trunk === 'trunk2' ? true : undefined));
      expect(placedThrough(t, callId)).toEqual({ trunk: 'trunk2', channelId: `rh-${callId}-b` });
      // The phone behind the second trunk is busy: that is the outcome, and there is no third try.
      const second = channel(`rh-${callId}-b`);
      t.ari.send({
        type: 'ChannelDestroyed',
        channel: second,
        cause: 34,
        cause_txt: 'Circuit/channel congestion',
        tech_cause: 503,
      });
      expect(await t.final(callId)).toMatchObject({ state: 'unreachable' });
      expect(t.ari.originated).toHaveLength(2);
      expect(t.progress.timeline(callId).map((e) => e.event)).toEqual(['dialing', 'trunk', 'unreachable']);
    });

    it('a call that rang, or was refused by the phone, is never sent again', async () => {
      const t = setup({ backupEndpointFor: backup });
      await t.dialer.start();
      const rang = t.alert('rang then congestion');
      t.dialer.enqueue(rang);
      await waitFor('originate', () => t.ari.originated[0]);
      const ch = channel(`rh-${rang}`);
      t.ari.send({ type: 'Dial', peer: ch, dialstatus: 'RINGING' });
      t.ari.send({
        type: 'ChannelDestroyed',
        channel: ch,
        cause: 34,
        cause_txt: 'Circuit/channel congestion',
        tech_cause: 503,
      });
      expect(await t.final(rang)).toMatchObject({ state: 'unreachable' });
      const busy = t.alert('busy at once');
      t.dialer.enqueue(busy);
      await waitFor('originate', () => t.ari.originated[1]);
      t.ari.send({
        type: 'ChannelDestroyed',
        channel: channel(`rh-${busy}`),
        cause: 17,
        cause_txt: 'User busy',
        tech_cause: 486,
      });
      expect(await t.final(busy)).toMatchObject({ state: 'busy' });
      expect(t.ari.originated.map((o) => o.endpoint)).toEqual([`PJSIP/${PHONE}@trunk`, `PJSIP/${PHONE}@trunk`]);
      expect(placedThrough(t, busy).trunk).toBe('trunk');
    });

    it('without a backup trunk the first refusal is the outcome', async () => {
      const t = setup();
      await t.dialer.start();
      const callId = t.alert('no backup');
      t.dialer.enqueue(callId);
      await waitFor('originate', () => t.ari.originated[0]);
      t.ari.send({
        type: 'ChannelDestroyed',
        channel: channel(`rh-${callId}`),
        cause: 34,
        cause_txt: 'Circuit/channel congestion',
        tech_cause: 503,
      });
      expect(await t.final(callId)).toMatchObject({ state: 'unreachable' });
      expect(t.ari.originated).toHaveLength(1);
    });
  });

  describe('races with Asterisk, the database and stop', () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    /** An alert's call, placed and answered, its message playing (the only call of `t`). */
    async function answeredAndSpeaking(t: ReturnType<typeof setup>, message: string) {
      const callId = t.alert(message);
      t.dialer.enqueue(callId);
      await waitFor('originate', () => t.ari.originated[0]);
      const ch = channel(`rh-${callId}`);
      t.ari.send({ type: 'StasisStart', channel: ch, args: [callId] });
      await waitFor('playback', () => t.ari.played[0]);
      return { callId, ch };
    }
    const finished = (ch: { id: string }, n: number) => ({
      type: 'PlaybackFinished',
      playback: { id: `${ch.id}-p${n}`, media_uri: '', target_uri: `channel:${ch.id}`, state: 'done' },
    });

    it('an originate with no answer is hung up (Asterisk may have made the channel), and a late answer to it is hung up too', async () => {
      const t = setup();
      const made = t.ari.originate.bind(t.ari);
      t.ari.originate = async (p) => {
        await made(p);
        throw new AriError('timeout', 'POST', `/channels/${p.channelId}`, undefined, undefined);
      };
      await t.dialer.start();
      const callId = t.alert('Asterisk slow to answer');
      t.dialer.enqueue(callId);
      expect(await t.final(callId)).toMatchObject({ state: 'failed' });
      expect(t.ari.hungUp).toEqual([`rh-${callId}`]);
      t.ari.send({ type: 'StasisStart', channel: channel(`rh-${callId}`), args: [callId] });
      await waitFor('the late answer hung up', () => t.ari.hungUp.length === 2 || undefined);
      expect(t.ari.played).toEqual([]);
    });

    it('a reconnect while a call is held for its speech leaves it alone: placed once its speech is made', async () => {
      let made!: () => void;
      const speechMade = new Promise<void>((resolve) => (made = resolve));
      const t = setup({
        tts: {
          expectedReadyMs: () => 20_000,
          expectedMakingMs: () => 20_000,
          synthesize: async () => {
            await speechMade;
            return { path: '/speech/x.wav', media: 'sound:/speech/x', durationMs: 1000, cached: false };
          },
        },
      });
      await t.dialer.start();
      const callId = t.alert('held for its speech');
      t.dialer.enqueue(callId);
      await waitFor('claimed', () => t.row(callId).status === 'dialing' || undefined);
      t.ari.emit('connected', { reconnect: true, downMs: 2_000 });
      await sleep(50);
      made();
      await waitFor('originate', () => t.ari.originated[0]);
      expect(t.finals).toEqual([]);
      expect(t.row(callId).status).toBe('dialing');
    });

    it('a call answered while the events were cut off (its StasisStart lost) is spoken to once they are back', async () => {
      const t = setup();
      await t.dialer.start();
      const callId = t.alert('answered during the outage');
      t.dialer.enqueue(callId);
      await waitFor('originate', () => t.ari.originated[0]);
      t.ari.answeredUnseen.add(`rh-${callId}`);
      t.ari.emit('connected', { reconnect: true, downMs: 2_000 });
      await waitFor('the message played', () => t.ari.played[0]);
      expect(t.ari.played[0]![0]).toBe(`rh-${callId}`);
      await waitFor('answered recorded', () => t.row(callId).status === 'answered' || undefined);
    });

    it('an end whose record failed (an I/O error) is written again by the sweep, not ended a second time as interrupted', async () => {
      let failOnce = true;
      const t = setup(
        { pollMs: 20 },
        {
          wrapProgress: (real) => {
            const progress = Object.create(real) as SqliteCallProgressStore;
            progress.transition = (callId, to, fields, detail) => {
              if (to === 'acknowledged' && failOnce) {
                failOnce = false;
                throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
              }
              return real.transition(callId, to, fields, detail);
            };
            return progress;
          },
        },
      );
      await t.dialer.start();
      const { callId, ch } = await answeredAndSpeaking(t, 'acknowledge me');
      t.ari.send({ type: 'ChannelDtmfReceived', channel: ch, digit: '1' });
      await waitFor('the confirmation', () => t.ari.played[1]);
      t.ari.send({ type: 'ChannelDestroyed', channel: ch, cause: 16, cause_txt: 'Normal Clearing' });
      await waitFor('recorded at last', () => t.row(callId).status === 'acknowledged' || undefined, 5_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(t.finals.map((f) => f.state)).toEqual(['acknowledged']);
      expect(t.row(callId).status).toBe('acknowledged');
    });

    it('an alert Asterisk keeps refusing (503) ends failed once it is too old, and is never dialed late', async () => {
      const t = setup({ freshnessMs: 600 });
      t.ari.originateError = new AriError('http', 'POST', '/channels/x', 503, 'Shutdown in progress');
      await t.dialer.start();
      const callId = t.alert('Asterisk restarting');
      t.dialer.enqueue(callId);
      const call = await waitFor('the stale end', () => t.finals.find((f) => f.callId === callId), 8_000);
      expect(call).toMatchObject({ state: 'failed' });
      const tries = t.ari.originated.length;
      t.ari.originateError = undefined;
      await sleep(300);
      expect(t.ari.originated).toHaveLength(tries);
    });

    it('stop while the claim waits for a locked database: nothing is dialed, and the alert is queued again', async () => {
      const t = setup();
      await t.dialer.start();
      const other = new Database(t.file);
      const callId = t.alert('claimed during stop');
      other.prepare('BEGIN IMMEDIATE').run();
      t.dialer.enqueue(callId);
      await sleep(200);
      const stopping = t.dialer.stop(100);
      await sleep(50);
      other.prepare('COMMIT').run();
      other.close();
      await stopping;
      await t.writes.drain(3_000);
      await sleep(100);
      expect(t.ari.originated).toEqual([]);
      expect(t.row(callId).status).toBe('queued');
    });

    it('2 pressed during the prompt: the stopped playback ending does not cut the repeat short', async () => {
      const t = setup({ digitWaitMs: 200 });
      await t.dialer.start();
      const { ch } = await answeredAndSpeaking(t, 'repeat me');
      t.ari.send({ type: 'ChannelDtmfReceived', channel: ch, digit: '2' });
      // Asterisk reports the stopped playback as finished while the repeat is being started.
      t.ari.send(finished(ch, 1));
      await waitFor('the repeat', () => t.ari.played[1]);
      await sleep(400);
      expect(t.ari.hungUp).toEqual([]);
    });

    it('the keypad: 2 and * repeat the message from its start, past the old cap of two; 0 says the keys alone; each press on the timeline', async () => {
      const t = setup({ digitWaitMs: 5_000 });
      await t.dialer.start();
      const { callId, ch } = await answeredAndSpeaking(t, 'again and again');
      const message = `sound:/speech/${speakable('again and again').slice(0, 12)}`;
      for (const [n, key] of ['2', '*', '2', '*'].entries()) {
        t.ari.send({ type: 'ChannelDtmfReceived', channel: ch, digit: key });
        await waitFor(`repeat ${n + 1}`, () => t.ari.played[n + 1]);
        // From the message's start, without the intro and the keys; the one before stopped at once.
        expect(t.ari.played[n + 1]).toEqual([ch.id, message, 'sound:/speech/Press 1 to c']);
        expect(t.ari.stopped.at(-1)).toBe(`${ch.id}-p${n + 1}`);
      }
      t.ari.send({ type: 'ChannelDtmfReceived', channel: ch, digit: '0' });
      await waitFor('the keys', () => t.ari.played[5]);
      expect(t.ari.played[5]).toEqual([ch.id, 'sound:/speech/Press 1 to c']);
      t.ari.send({ type: 'ChannelDtmfReceived', channel: ch, digit: '7' });
      await waitFor('the timeline', () =>
        t.progress.timeline(callId).filter((e) => e.event === 'digit').length === 6 ? true : undefined,
      );
      expect(
        t.progress
          .timeline(callId)
          .filter((e) => e.event === 'digit')
          .map((e) => e.detail),
      ).toEqual([
        '2: the message again',
        '*: the message again',
        '2: the message again',
        '*: the message again',
        '0: the keys',
        '7: ignored (no such key)',
      ]);
      expect(t.ari.played).toHaveLength(6);
    });

    it('a phone that hangs up while its repeat is asked for ends as heard, not failed', async () => {
      const t = setup({ digitWaitMs: 5_000 });
      await t.dialer.start();
      const { callId, ch } = await answeredAndSpeaking(t, 'heard it once');
      t.ari.send(finished(ch, 1));
      t.ari.play = async () => {
        throw new AriError('http', 'POST', `/channels/${ch.id}/play`, 404, 'Channel not found');
      };
      t.ari.send({ type: 'ChannelDtmfReceived', channel: ch, digit: '2' });
      await sleep(50);
      t.ari.send({ type: 'ChannelDestroyed', channel: ch, cause: 16, cause_txt: 'Normal Clearing' });
      expect(await t.final(callId)).toMatchObject({ state: 'completed' });
    });

    it('183 Session Progress is ringing: a failure after it is not sent to the backup trunk', async () => {
      const t = setup({ backupEndpointFor: (phone) => throughTrunk(phone, 'trunk2') });
      await t.dialer.start();
      const callId = t.alert('early media');
      t.dialer.enqueue(callId);
      await waitFor('originate', () => t.ari.originated[0]);
      const ch = channel(`rh-${callId}`);
      t.ari.send({ type: 'Dial', peer: ch, dialstatus: 'PROGRESS' });
      t.ari.send({
        type: 'ChannelDestroyed',
        channel: ch,
        cause: 34,
        cause_txt: 'Circuit/channel congestion',
        tech_cause: 503,
      });
      expect(await t.final(callId)).toMatchObject({ state: 'unreachable' });
      expect(t.ari.originated).toHaveLength(1);
      expect(t.progress.timeline(callId).map((e) => e.event)).toContain('ringing');
    });
  });
});
