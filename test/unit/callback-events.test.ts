// Status callbacks' events and signatures, the signatures checked by the standardwebhooks package.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  CALLBACK_SECRET_PATTERN,
  callbackBody,
  callbackEventsFor,
  callbackSignatureHeader,
  newCallbackSecret,
  type CallbackCallFacts,
} from '../../src/core/callbacks/callback-events.js';
import { parseCallbackUrl } from '../../src/core/callbacks/callback-url.js';

const call: CallbackCallFacts = {
  callId: 'call_abc',
  userId: 'u1',
  kind: 'alert',
  status: 'queued',
  error: null,
  smsStatus: null,
  smsError: null,
  smsParts: null,
  receivedAt: Date.parse('2026-11-29T01:00:00Z'),
  answeredAt: null,
  endedAt: null,
};

describe('secrets and signatures', () => {
  it('makes whsec_ secrets of 32 random bytes', () => {
    const secret = newCallbackSecret();
    expect(secret).toMatch(CALLBACK_SECRET_PATTERN);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newCallbackSecret()).not.toBe(secret);
  });

  it('signs so that a Standard Webhooks receiver verifies with either secret during a rotation', () => {
    const [older, newer] = [newCallbackSecret(), newCallbackSecret()];
    const body = callbackBody('call.queued', Date.now(), { call_id: 'call_abc' });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = callbackSignatureHeader([newer, older], 'msg_1', timestamp, body);
    expect(signature.split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    expect(new Webhook(newer).verify(body, headers)).toMatchObject({ type: 'call.queued' });
    expect(new Webhook(older).verify(body, headers)).toMatchObject({ type: 'call.queued' });
    expect(() => new Webhook(newCallbackSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(newer).verify(`${body} `, headers)).toThrow();
  });
});

describe('callbackEventsFor', () => {
  it('names the call steps, and nothing for dialing or a refused alert', () => {
    expect(callbackEventsFor('queued', call).map((e) => e.type)).toEqual(['call.queued']);
    expect(callbackEventsFor('ringing', call).map((e) => e.type)).toEqual(['call.ringing']);
    expect(callbackEventsFor('answered', call).map((e) => e.type)).toEqual(['call.answered']);
    expect(callbackEventsFor('dialing', call)).toEqual([]);
    expect(callbackEventsFor('refused', call)).toEqual([]);
  });

  it('gives call.final its outcome and reason, then the SMS outcome once the record has one', () => {
    const missed = { ...call, status: 'no_answer', error: 'Nobody answered within 30 s.' };
    const [final] = callbackEventsFor('no_answer', missed);
    expect(final).toMatchObject({
      type: 'call.final',
      key: 'call_abc:call.final',
      data: { outcome: 'no_answer', reason: 'Nobody answered within 30 s.', answered: false },
    });
    expect(callbackEventsFor('no_answer', { ...missed, smsStatus: 'sent', smsParts: 1 }).map((e) => e.type)).toEqual([
      'call.final',
      'sms.sent',
    ]);
    expect(callbackEventsFor('sms', { ...missed, smsStatus: 'failed', smsError: 'gateway down' })).toMatchObject([
      { type: 'sms.failed', data: { reason: 'gateway down' } },
    ]);
    expect(callbackEventsFor('sms', { ...missed, smsStatus: 'sending' })).toEqual([]);
  });

  it('never carries the phone number or the message', () => {
    const text = JSON.stringify(callbackEventsFor('completed', { ...call, answeredAt: 1, endedAt: 2 }));
    expect(text).not.toMatch(/phone|message/);
  });
});

describe('parseCallbackUrl', () => {
  it('takes https URLs and off, refuses the rest in one line', () => {
    expect(parseCallbackUrl(' https://example.com/hook ')).toEqual({ url: 'https://example.com/hook' });
    expect(parseCallbackUrl('off')).toEqual({ url: null });
    expect(parseCallbackUrl('')).toEqual({ url: null });
    expect(parseCallbackUrl('http://example.com/')).toEqual({ error: expect.stringContaining('https://') });
    expect(parseCallbackUrl('https://u:p@example.com/')).toEqual({ error: expect.stringContaining('user') });
    expect(parseCallbackUrl('not a url')).toEqual({ error: expect.stringContaining('not a URL') });
    expect(parseCallbackUrl(`https://example.com/${'a'.repeat(3000)}`)).toEqual({
      error: expect.stringContaining('longer'),
    });
  });
});

describe('call.decision (#56)', () => {
  const decided = {
    ...call,
    status: 'acknowledged',
    answeredAt: Date.parse('2026-11-29T01:00:10Z'),
    endedAt: Date.parse('2026-11-29T01:00:20Z'),
    decisionKey: '7',
    decisionLabel: 'buy',
    decidedAt: Date.parse('2026-11-29T01:00:20Z'),
  };

  it('comes once per call, just before call.final, with the key, label and time', () => {
    const events = callbackEventsFor('acknowledged', { ...decided, attempt: 2 });
    expect(events.map((e) => e.type)).toEqual(['call.decision', 'call.final']);
    expect(events[0]).toEqual({
      type: 'call.decision',
      key: 'call_abc:call.decision',
      callId: 'call_abc',
      data: {
        call_id: 'call_abc',
        user_id: 'u1',
        kind: 'alert',
        attempt: 2,
        key: '7',
        label: 'buy',
        decided_at: '2026-11-29T01:00:20.000Z',
      },
    });
  });

  it("names the alert's ticker, action, id and Idempotency-Key when it had them, never other extra fields", () => {
    const [event] = callbackEventsFor('acknowledged', {
      ...decided,
      ticker: 'BTCUSD',
      action: 'buy',
      extra: { id: 42, note: 'not sent' },
      idempotencyKey: 'order-77',
    });
    expect(event!.data).toMatchObject({ ticker: 'BTCUSD', action: 'buy', alert_id: 42, idempotency_key: 'order-77' });
    expect(JSON.stringify(event)).not.toContain('not sent');
  });

  it('nothing without a decision, and nothing before the call ends', () => {
    expect(callbackEventsFor('acknowledged', { ...decided, decisionKey: null }).map((e) => e.type)).toEqual([
      'call.final',
    ]);
    expect(callbackEventsFor('answered', decided).map((e) => e.type)).toEqual(['call.answered']);
  });
});
