// The store's step on a store that is asked one thing at a time (SQLite: each call is synchronous
// and local). The checks in the order of PostgreSQL's one step (webhook-one-step.ts): credentials,
// suspension, the allowed sources (the server's, then the account's), the payload (the body is read
// only now: nothing of it is read for a request refused before), a duplicate, the limits. Each
// refusal is kept in the account's history as it is decided.
import { receivesCalls, type Account } from '../core/account.js';
import { dedupeKey, dedupeSince } from '../core/webhook/dedupe.js';
import { newCallId } from '../core/ids.js';
import type { RejectionStatus } from '../core/records.js';
import {
  parseSourceRule,
  refusingRule,
  sourceRefusal,
  sourceRefusalReason,
  type SourceRule,
} from '../core/webhook/webhook-sources.js';
import type { WebhookCredentials } from '../core/webhook/webhook-path.js';
import type { Verdict, WebhookDeps } from './webhook-outcome.js';
import type { IncomingAlert, Payload } from './webhook-request.js';
import { CHECKS_BEFORE_LOCK, firstRefusalAwaiting } from '../core/webhook/accept-rules.js';

type StepDeps = Pick<WebhookDeps, 'store' | 'now' | 'logger'>;

/** A POST with credentials decided over the store's single steps; `server`: the server's allowed sources. */
export async function receiveStepByStep(
  incoming: IncomingAlert,
  credentials: WebhookCredentials,
  deps: StepDeps,
  server: SourceRule,
): Promise<Verdict> {
  const { userId, apiKey } = credentials;
  const account = await deps.store.accounts.authenticate(userId, apiKey);
  // The checks made before the account's lock, in core's order (core/webhook/accept-rules); each
  // fact is read only when its check is reached (the body only for an alert that got that far).
  const read: { refusedBy: ReturnType<typeof refusingRule>; payload?: Payload } = { refusedBy: null };
  const refusal = await firstRefusalAwaiting(
    {
      authenticated: () => account !== undefined,
      active: () => receivesCalls(account!),
      // The account's own rule is read only when it narrows anything (most say "any").
      sourceRefusedBy: () => {
        if (server.any && account!.webhookSources === 'any') return undefined;
        read.refusedBy = refusingRule(incoming.address, server, parseSourceRule(account!.webhookSources));
        return read.refusedBy?.setBy;
      },
      payloadValid: async () => {
        read.payload = await incoming.payload();
        return read.payload.ok;
      },
      // Under the account's lock: the store's accept asks these two (core's order there too).
      duplicateOf: () => undefined,
      limits: () => ({ allowed: true }),
    },
    CHECKS_BEFORE_LOCK,
  );
  if (!account) return { outcome: 'unauthorized' };
  const reject = (status: RejectionStatus, error: string, excerpt = '') =>
    keepRefusal(deps, account, status, error, excerpt);
  if (refusal?.outcome === 'suspended')
    return { outcome: 'suspended', account, rowId: reject('suspended', 'account suspended') };
  const { refusedBy, payload } = read;
  if (refusal?.outcome === 'source_not_allowed' && refusedBy) {
    const rowId = reject('source_not_allowed', sourceRefusalReason(incoming.address, refusedBy.rule));
    return { outcome: 'source_not_allowed', account, rowId, says: sourceRefusal(refusedBy) };
  }
  if (!payload) throw new Error('the payload was not read');
  if (!payload.ok) {
    const rowId = reject('invalid_payload', payload.error.message, payload.excerpt);
    return { outcome: 'invalid', account, rowId, error: payload.error };
  }

  const { alert } = payload;
  const key = dedupeKey(account.dedupeSeconds, { idempotencyKey: incoming.idempotencyKey, alert });
  const dedupe = key === null ? undefined : { key, since: dedupeSince(deps.now(), account.dedupeSeconds) };
  const accepted = await deps.store.calls.accept(account.userId, account.plan, alert, dedupe, account.hasCallback);
  if (!accepted.accepted)
    return {
      outcome: 'refused',
      account,
      decision: accepted.decision,
      ...(accepted.callId !== undefined && { rowId: accepted.callId }),
    };
  if ('duplicate' in accepted) return { outcome: 'duplicate', account, rowId: accepted.rowId, callId: accepted.callId };
  const outboxed = accepted.outboxed === true;
  return { outcome: 'accepted', account, callId: accepted.callId, alert, announced: false, outboxed };
}

/**
 * A refusal kept in the account's history; its row's id, for the live history. The answer does not
 * wait for the row's commit (a refusal promises nothing to keep): it goes in the next group commit,
 * before this process reads another request, and a write that fails is logged.
 */
function keepRefusal(
  deps: StepDeps,
  account: Account,
  status: RejectionStatus,
  error: string,
  excerpt: string,
): string {
  const rowId = newCallId();
  void Promise.resolve(
    deps.store.calls.recordRejection({ callId: rowId, userId: account.userId, status, error, excerpt }),
  ).catch((failure: unknown) => refusalNotKept(deps, account, failure));
  return rowId;
}

function refusalNotKept(deps: StepDeps, account: Account, error: unknown): void {
  deps.logger.warn('a refused alert could not be kept in the history', { user_id: account.userId, error });
}
