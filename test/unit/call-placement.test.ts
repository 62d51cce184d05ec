// Placing a call against a stand-in ARI client (an object with the two methods placement uses):
// which refusals are the call's outcome and which mean nothing was dialed.
import { describe, expect, it } from 'vitest';
import { AriError } from '../../src/pbx/ari-error.js';
import { placeCall } from '../../src/calls/call-placement.js';
import { newSession } from '../../src/calls/call-session.js';
import { throughTrunk } from '../../src/pbx/endpoint.js';
import type { CallForDialing } from '../../src/core/records.js';
import { loadWaitingAlert } from '../../src/calls/waiting-alerts.js';
import { callSpeech, defaultVoice } from '../../src/core/speech/languages.js';

const call = { callId: 'c1', userId: 'u1', message: 'm', status: 'queued', kind: 'alert' } as unknown as CallForDialing;
const session = () => newSession({ calls: [call], phone: '+14155550100', requireConfirm: false, dialedAt: 0 });
const refused = (status: number) => new AriError('http', 'POST', '/channels', status, 'refused');
const standIn = (originate: () => Promise<unknown>, state = 'online') => ({
  originate: originate as never,
  getEndpoint: async () => ({ technology: 'PJSIP', resource: 'trunk', state, channel_ids: [] }) as never,
});

describe('placeCall', () => {
  it('placed: the originate went through, with the caller id, ring timeout and the call bound given', async () => {
    let params: unknown;
    const ari = standIn(async () => undefined);
    await expect(
      placeCall(
        { ...ari, originate: (async (p: unknown) => (params = p)) as never },
        {
          session: session(),
          endpoint: throughTrunk('+14155550100'),
          callerId: '+15550001',
          ringTimeoutSec: 30,
          maxCallSec: 900,
        },
      ),
    ).resolves.toEqual({ placed: true });
    expect(params).toMatchObject({
      channelId: 'rh-c1',
      endpoint: 'PJSIP/+14155550100@trunk',
      appArgs: ['c1'],
      callerId: '+15550001',
      timeoutSec: 30,
    });
    // Asterisk itself hangs the call up after the bound, even with serve gone.
    expect(params).toMatchObject({ variables: { 'TIMEOUT(absolute)': '900' } });
  });

  it('Asterisk stopping (503) or unreachable: nothing dialed, the alert may wait', async () => {
    const stopping = await placeCall(
      standIn(() => Promise.reject(refused(503))),
      { session: session(), endpoint: throughTrunk('+1'), ringTimeoutSec: 30, maxCallSec: 1_000 },
    );
    expect(stopping).toMatchObject({ placed: false, waitFor: expect.stringMatching(/^Asterisk not taking calls/) });
    const down = new AriError('network', 'POST', '/channels', undefined, undefined, {
      cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
    });
    expect(
      await placeCall(
        standIn(() => Promise.reject(down)),
        { session: session(), endpoint: throughTrunk('+1'), ringTimeoutSec: 30, maxCallSec: 1_000 },
      ),
    ).toMatchObject({ placed: false, waitFor: expect.stringMatching(/^Asterisk unreachable/) });
  });

  it('a 500 while the endpoint lookup itself fails as Asterisk stops (503, connection lost): nothing dialed; a lookup answered 404 keeps the refusal', async () => {
    const lookupFails = (error: AriError) => ({
      ...standIn(() => Promise.reject(refused(500))),
      getEndpoint: () => Promise.reject(error) as never,
    });
    for (const error of [
      new AriError('http', 'GET', '/endpoints/PJSIP/trunk', 503, 'Shutdown in progress'),
      new AriError('network', 'GET', '/endpoints/PJSIP/trunk', undefined, undefined, {
        cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
      }),
    ]) {
      expect(
        await placeCall(lookupFails(error), {
          session: session(),
          endpoint: throughTrunk('+1'),
          ringTimeoutSec: 30,
          maxCallSec: 1_000,
        }),
      ).toMatchObject({
        placed: false,
        waitFor: expect.stringMatching(/^Asterisk not taking calls/),
      });
    }
    const missing = lookupFails(new AriError('http', 'GET', '/endpoints/PJSIP/trunk', 404, 'Endpoint not found'));
    expect(
      await placeCall(missing, {
        session: session(),
        endpoint: throughTrunk('+1'),
        ringTimeoutSec: 30,
        maxCallSec: 1_000,
      }),
    ).toMatchObject({
      placed: false,
      outcome: { kind: 'originate-failed', endpointOffline: false },
    });
  });

  it('a 500 for an offline endpoint, or any other refusal, is the call outcome', async () => {
    const offline = await placeCall(
      standIn(() => Promise.reject(refused(500)), 'offline'),
      { session: session(), endpoint: throughTrunk('+1'), ringTimeoutSec: 30, maxCallSec: 1_000 },
    );
    expect(offline).toMatchObject({
      placed: false,
      outcome: { kind: 'originate-failed', refusedByAsterisk: true, endpointOffline: true },
    });
    const other = await placeCall(
      standIn(() => Promise.reject(new Error('boom'))),
      { session: session(), endpoint: throughTrunk('+1'), ringTimeoutSec: 30, maxCallSec: 1_000 },
    );
    expect(other).toMatchObject({
      placed: false,
      outcome: { kind: 'originate-failed', refusedByAsterisk: false, endpointOffline: false, message: 'boom' },
    });
  });
});

describe('loadWaitingAlert', () => {
  const calls: Record<string, { userId: string; kind: string; status: string; message?: string }> = {
    a: { userId: 'u1', kind: 'alert', status: 'queued', message: 'NVDA crossed 140' },
    b: { userId: 'gone', kind: 'alert', status: 'queued' },
    c: { userId: 'u2', kind: 'test', status: 'queued' },
    d: { userId: 'u1', kind: 'alert', status: 'queued', message: 'BTC fell below 90k' },
    e: { userId: 'u2', kind: 'alert', status: 'queued' },
    f: { userId: 'u1', kind: 'test', status: 'queued' },
    dialing: { userId: 'u1', kind: 'alert', status: 'dialing' },
    done: { userId: 'u1', kind: 'alert', status: 'completed' },
  };
  const u1 = {
    userId: 'u1',
    phone: '+1001',
    status: 'active',
    language: 'de',
    voice: defaultVoice('de'),
    intro: null,
  } as const;
  const accounts: Record<string, { userId: string; phone: string; status: string }> = {
    u1,
    u2: { userId: 'u2', phone: '+1002', status: 'suspended' },
  };
  // One stand-in answering at once (SQLite) and one later (PostgreSQL): the alert is the same.
  const now = {
    progress: { get: (id: string) => (calls[id] ? ({ callId: id, ...calls[id] } as never) : undefined) },
    accounts: { get: (id: string) => accounts[id] as never },
  };
  const later = {
    progress: { get: async (id: string) => now.progress.get(id) },
    accounts: { get: async (id: string) => now.accounts.get(id) },
  };

  it.each([
    ['at once', now],
    ['later', later],
  ])(
    'each queued alert with the phone it would ring and what its call would say alone; a gone or suspended account rings no phone; only a test call goes alone (store answering %s)',
    async (_, store) => {
      const load = (callId: string) => loadWaitingAlert(callId, store);
      const speech = callSpeech(u1);
      expect(await load('a')).toEqual({
        callId: 'a',
        userId: 'u1',
        phone: '+1001',
        alone: false,
        account: expect.objectContaining({ userId: 'u1' }),
        speaks: { message: 'NVDA crossed 140', speech },
      });
      expect(await load('b')).toEqual({ callId: 'b', userId: 'gone', phone: 'none:b', alone: false });
      expect(await load('c')).toEqual({
        callId: 'c',
        userId: 'u2',
        phone: 'none:c',
        alone: true,
        account: expect.objectContaining({ userId: 'u2' }),
      });
      expect(await load('d')).toEqual({
        callId: 'd',
        userId: 'u1',
        phone: '+1001',
        alone: false,
        account: expect.objectContaining({ userId: 'u1' }),
        speaks: { message: 'BTC fell below 90k', speech },
      });
      expect(await load('e')).toEqual({
        callId: 'e',
        userId: 'u2',
        phone: 'none:e',
        alone: false,
        account: expect.objectContaining({ userId: 'u2' }),
      });
      expect(await load('f')).toEqual({
        callId: 'f',
        userId: 'u1',
        phone: '+1001',
        alone: true,
        account: expect.objectContaining({ userId: 'u1' }),
      });
    },
  );

  it('an alert no longer queued (unknown, being dialed, or over) is undefined', async () => {
    for (const callId of ['missing', 'dialing', 'done']) {
      expect(await loadWaitingAlert(callId, now)).toBeUndefined();
      expect(await loadWaitingAlert(callId, later)).toBeUndefined();
    }
  });
});
