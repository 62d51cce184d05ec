// The dialer's state machine without Asterisk: a stand-in ARI client (an event emitter that records
// what the dialer asks and lets the test play Asterisk's events), a stand-in speech engine, and the
// real stores on a temporary SQLite file. The e2e suite proves the same paths against Asterisk.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Alert } from '../../src/core/payload.js';
import { speakable } from '../../src/core/speakable.js';
import { AccountStore } from '../../src/db/accounts.js';
import { CallProgressStore } from '../../src/db/call-progress.js';
import { CallStore } from '../../src/db/calls.js';
import { openDatabase } from '../../src/db/database.js';
import { PatientWriter } from '../../src/db/patient-writes.js';
import { CallEvents } from '../../src/events.js';
import { silentLogger } from '../../src/log.js';
import { AriError, type AriClientEvents, type AriEvent, type OriginateParams } from '../../src/pbx/ari.js';
import type { FinalCall } from '../../src/pbx/call-ledger.js';
import { Dialer, type DialerOptions } from '../../src/pbx/dialer.js';
import { throughTrunk } from '../../src/pbx/endpoint.js';
import { testSecrets } from '../helpers/secrets.js';
import { waitFor } from '../helpers/wait.js';

/** Stand-in for AriClient: records requests, and the test emits Asterisk's events through it. */
class StandInAri extends EventEmitter<AriClientEvents> {
  isConnected = true;
  readonly originated: OriginateParams[] = [];
  readonly hungUp: string[] = [];
  readonly played: string[][] = [];
  originateError: Error | undefined;
  alive = new Set<string>();

  async originate(p: OriginateParams) {
    this.originated.push(p);
    if (this.originateError) throw this.originateError;
    this.alive.add(p.channelId);
    return { id: p.channelId, name: p.endpoint, state: 'Down' };
  }
  async hangup(channelId: string) {
    this.hungUp.push(channelId);
  }
  async play(channelId: string, playbackId: string, media: string | string[]) {
    this.played.push([channelId, ...(Array.isArray(media) ? media : [media])]);
    return { id: playbackId, media_uri: '', target_uri: `channel:${channelId}`, state: 'playing' };
  }
  async stopPlayback() {}
  async getEndpoint(technology: string, resource: string) {
    return { technology, resource, state: 'online' };
  }
  async channelsStillUp(ids: Iterable<string>) {
    return new Set([...ids].filter((id) => this.alive.has(id)));
  }
  send(event: Record<string, unknown>): void {
    this.emit('event', event as unknown as AriEvent);
  }
}

const channel = (id: string) => ({ id, name: `PJSIP/trunk-${id}`, state: 'Up' });
const PHONE = '+14155550123';
const dialers: Dialer[] = [];

afterEach(async () => {
  for (const d of dialers.splice(0)) await d.stop(0);
});

function setup(overrides: Partial<DialerOptions> = {}) {
  const db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rh-dialer-')), 'ringhook.db'));
  const accounts = new AccountStore(db, testSecrets());
  const calls = new CallStore(db);
  const progress = new CallProgressStore(db);
  const ari = new StandInAri();
  const finals: FinalCall[] = [];
  const account = accounts.create({ phone: PHONE, plan: 'premium', smsBackup: true, name: '' });
  const dialer = new Dialer({
    ari,
    progress,
    writes: new PatientWriter(db, silentLogger),
    accounts,
    // Stand-in speech engine: the media names say what would be spoken.
    tts: { synthesize: async (text) => ({ path: `/speech/${text}.wav`, media: `sound:/speech/${text.slice(0, 12)}`, durationMs: 1000, cached: true }) },
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
    const r = calls.accept(userId, 'premium', a);
    if (!r.accepted) throw new Error('not accepted');
    return r.callId;
  };
  const final = (callId: string) => waitFor(`call ${callId} to end`, () => finals.find((f) => f.callId === callId), 3_000);
  const row = (callId: string) => calls.get(callId)!;
  return { db, accounts, calls, progress, ari, finals, account, dialer, alert, final, row };
}

describe('Dialer (stand-in ARI)', () => {
  it('a busy phone: dialed once through the trunk, rang, ended busy with its SIP code, handed on with the number called', async () => {
    const t = setup();
    t.dialer.start();
    const callId = t.alert('AAPL 190');
    t.dialer.enqueue(callId);
    await waitFor('originate', () => t.ari.originated[0]);
    expect(t.ari.originated[0]).toMatchObject({ channelId: `rh-${callId}`, endpoint: `PJSIP/${PHONE}@trunk`, appArgs: [callId], timeoutSec: 30 });
    const ch = channel(`rh-${callId}`);
    t.ari.send({ type: 'Dial', peer: ch, dialstatus: 'RINGING' });
    t.ari.send({ type: 'ChannelHangupRequest', channel: ch, cause: 17, tech_cause: 486 });
    t.ari.send({ type: 'ChannelDestroyed', channel: ch, cause: 17, cause_txt: 'User busy' });
    expect(await t.final(callId)).toEqual({ callId, userId: t.account.userId, message: 'AAPL 190', phone: PHONE, state: 'busy' });
    await waitFor('the record', () => (t.row(callId).status === 'busy' ? true : undefined));
    expect(t.row(callId)).toMatchObject({ sipCode: 486, hangupCause: 17 });
    expect(t.ari.originated).toHaveLength(1);
  });

  it('answered: plays intro, message and prompt; 1 hangs up and the call ends acknowledged', async () => {
    const t = setup();
    t.dialer.start();
    const callId = t.alert('BTC above 100k');
    t.dialer.enqueue(callId);
    await waitFor('originate', () => t.ari.originated[0]);
    const ch = channel(`rh-${callId}`);
    t.ari.send({ type: 'StasisStart', channel: ch, args: [callId] });
    await waitFor('playback', () => t.ari.played[0]);
    // The message is spoken as a trader reads it, not as written.
    expect(t.ari.played[0]).toEqual([ch.id, 'sound:/speech/Alert from r', `sound:/speech/${speakable('BTC above 100k').slice(0, 12)}`, 'sound:/speech/Press 1 to c']);
    t.ari.send({ type: 'ChannelDtmfReceived', channel: ch, digit: '1' });
    await waitFor('hangup', () => t.ari.hungUp[0]);
    t.ari.send({ type: 'ChannelDestroyed', channel: ch, cause: 16, cause_txt: 'Normal Clearing' });
    expect((await t.final(callId)).state).toBe('acknowledged');
  });

  it('never more calls at once than the cap; the next starts when one ends, oldest first', async () => {
    const t = setup({ maxConcurrent: 1 });
    t.dialer.start();
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
    t.ari.originateError = new AriError('network', 'POST', '/channels/x', undefined, undefined, { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) });
    t.dialer.start();
    const callId = t.alert('wait for me');
    t.dialer.enqueue(callId);
    await waitFor('the refusal', () => t.ari.originated[0]);
    await waitFor('queued again', () => (t.row(callId).status === 'queued' && t.ari.originated.length === 1 ? true : undefined));
    t.ari.originateError = undefined;
    // Held back 0.5 s, then dialed again.
    await waitFor('second originate', () => t.ari.originated[1], 3_000);
    expect(t.finals).toEqual([]);
  });

  it('an originate Asterisk refuses (HTTP) is the outcome: unreachable, never retried', async () => {
    const t = setup();
    t.ari.originateError = new AriError('http', 'POST', '/channels/x', 400, 'Invalid endpoint');
    t.dialer.start();
    const callId = t.alert('nowhere');
    t.dialer.enqueue(callId);
    expect((await t.final(callId)).state).toBe('unreachable');
    await new Promise((r) => setTimeout(r, 100));
    expect(t.ari.originated).toHaveLength(1);
  });

  it('a suspended account: failed, never dialed, handed on with no number', async () => {
    const t = setup();
    t.dialer.start();
    const callId = t.alert('suspended');
    t.accounts.update(t.account.userId, { status: 'suspended' });
    t.dialer.enqueue(callId);
    expect(await t.final(callId)).toMatchObject({ state: 'failed', phone: null });
    expect(t.ari.originated).toEqual([]);
  });

  it('at start: a call left in progress is interrupted (never redialed), an old queued one expires, a fresh one is dialed', async () => {
    const t = setup();
    const inProgress = t.alert('was ringing');
    t.progress.transition(inProgress, 'dialing', { phone: PHONE });
    const old = t.alert('old');
    t.db.prepare('UPDATE calls SET received_at = ? WHERE call_id = ?').run(Date.now() - 400_000, old);
    const fresh = t.alert('fresh');
    t.dialer.start();
    expect(await t.final(inProgress)).toMatchObject({ state: 'interrupted', phone: PHONE });
    expect(await t.final(old)).toMatchObject({ state: 'expired', phone: null });
    await waitFor('fresh originate', () => t.ari.originated[0]);
    expect(t.ari.originated.map((o) => o.appArgs![0])).toEqual([fresh]);
  });

  it('after a reconnect, a call whose channel is gone ends interrupted', async () => {
    const t = setup();
    t.dialer.start();
    const callId = t.alert('lost');
    t.dialer.enqueue(callId);
    await waitFor('originate', () => t.ari.originated[0]);
    t.ari.alive.clear();
    t.ari.emit('connected', { reconnect: true, downMs: 1000 });
    expect(await t.final(callId)).toMatchObject({ state: 'interrupted' });
    expect(t.row(callId).error).toBe('the call ended while the connection to Asterisk was down');
  });

  it('stop: a call that does not end in the grace period is hung up and ends interrupted', async () => {
    const t = setup();
    t.dialer.start();
    const callId = t.alert('cut');
    t.dialer.enqueue(callId);
    await waitFor('originate', () => t.ari.originated[0]);
    await t.dialer.stop(50);
    expect(t.ari.hungUp).toEqual([`rh-${callId}`]);
    expect((await t.final(callId)).state).toBe('interrupted');
  });
});
