// The store's step on a store that decides everything in one step (PostgreSQL: one round trip,
// migration 014's function). The body is read and parsed first, and the store checks the credentials
// before anything else of it counts, then the suspension, the allowed sources, the payload, a
// duplicate and the limits, so the verdicts are those of the step-by-step path
// (webhook-step-by-step.ts): a wrong key is a 401 whatever the body, an address outside the sources
// a 403 whatever the body.
import type { AlertToReceive, ReceivedAlert } from '../core/records.js';
import {
  parseSourceRule,
  sourceRefusal,
  sourceRefusalReason,
  type SourceRule,
} from '../core/webhook/webhook-sources.js';
import type { CallRepo } from '../store/index.js';
import type { WebhookCredentials } from '../core/webhook/webhook-path.js';
import type { Verdict } from './webhook-outcome.js';
import type { IncomingAlert, Payload } from './webhook-request.js';

/** A POST with credentials decided by the store's one step; `server`: the server's allowed sources. */
export async function receiveInOneStep(
  incoming: IncomingAlert,
  credentials: WebhookCredentials,
  receive: NonNullable<CallRepo['receiveAlert']>,
  server: SourceRule,
): Promise<Verdict> {
  const payload = await incoming.payload();
  const received = await receive({
    ...credentials,
    payload: payload.ok ? payload : { ok: false, error: payload.error.message, excerpt: payload.excerpt },
    address: incoming.address,
    idempotencyKey: incoming.idempotencyKey,
    // Whether the account's rule refuses the address is the store's to say (only the database
    // knows the account's rule at that moment); the server's rule is known here.
    ...(!server.allows(incoming.address) && { serverRefusal: sourceRefusalReason(incoming.address, server) }),
  } satisfies AlertToReceive);
  return verdictOf(received, payload, server);
}

function verdictOf(received: ReceivedAlert, payload: Payload, server: SourceRule): Verdict {
  switch (received.outcome) {
    case 'unauthorized':
      return received;
    case 'suspended':
      return { outcome: 'suspended', account: received.account, rowId: received.callId };
    case 'source_not_allowed': {
      const { account, setBy } = received;
      const rule = setBy === 'server' ? server : parseSourceRule(account.webhookSources);
      return { outcome: 'source_not_allowed', account, rowId: received.callId, says: sourceRefusal({ rule, setBy }) };
    }
    case 'invalid':
      if (payload.ok) throw new Error('the store refused a payload the webhook parsed');
      return { outcome: 'invalid', account: received.account, rowId: received.callId, error: payload.error };
    case 'duplicate':
      return received;
    case 'refused':
      return { outcome: 'refused', account: received.account, rowId: received.callId, decision: received.decision };
    case 'accepted': {
      if (!payload.ok) throw new Error('the store accepted a payload the webhook refused');
      const { account, callId, announced, outboxed } = received;
      return { outcome: 'accepted', account, callId, alert: payload.alert, announced, ...(outboxed && { outboxed }) };
    }
  }
}
