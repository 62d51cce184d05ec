// The overview's status-callbacks card: each delivery's status says what happened to it.
import { describe, expect, it } from 'vitest';
import type { CallbackDelivery } from '../../src/core/callbacks/callback-records.js';
import { callbacksSection } from '../../src/http/dashboard/pages/callbacks.js';

function delivery(fields: Partial<CallbackDelivery>): CallbackDelivery {
  return {
    id: 1,
    messageId: 'msg_1',
    eventKey: 'call_1:queued',
    userId: 'a'.repeat(32),
    callId: 'call_1',
    type: 'call.queued',
    body: '{}',
    createdAt: Date.parse('2026-11-22T14:00:00Z'),
    status: 'pending',
    attempts: 0,
    nextAttemptAt: Date.parse('2026-11-22T14:00:00Z'),
    lastAttemptAt: null,
    lastHttpStatus: null,
    lastError: null,
    deliveredAt: null,
    claim: null,
    ...fields,
  };
}

const statusCell = (d: CallbackDelivery) => {
  const markup = callbacksSection({ settings: undefined, deliveries: [d] }, 'csrf', true).value;
  return /<td class="delivery-status">([^<]*)/.exec(markup)?.[1];
};

describe('callbacks card', () => {
  it('an event never tried is waiting to be sent; one tried and failed is waiting to be tried again', () => {
    expect(statusCell(delivery({ attempts: 0 }))).toBe('waiting to be sent');
    expect(
      statusCell(delivery({ attempts: 2, lastHttpStatus: 500, nextAttemptAt: Date.parse('2026-11-22T14:05:00Z') })),
    ).toMatch(/^waiting to be tried again; next try /);
  });
});
