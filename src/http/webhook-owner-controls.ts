// The webhook's owner controls (#41): the allowed sources (403 source_not_allowed, kept in the
// history as refused) and the answer to a duplicate alert (200 with the first alert's call).
import type { Account } from '../core/account.js';
import type { AddressMatcher } from '../core/address-match.js';
import { ANY_SOURCE, parseSourceRule, refusingRule, sourceRefusal, type SourceRule } from '../core/webhook-sources.js';
import { newCallId } from '../core/ids.js';
import { ApiError } from '../lib/errors.js';
import type { CallRepo } from '../store/contract.js';
import { exactAddressOf } from './client-address.js';
import { jsonAnswer, type JsonAnswer } from './respond.js';

interface SourceDeps {
  readonly store: { readonly calls: Pick<CallRepo, 'recordRejection'> };
  trustProxy?: AddressMatcher | undefined;
  onRejectionRecorded?: ((rejection: { callId: string; userId: string }) => void) | undefined;
}

/**
 * The 403's error when the client's address is outside the server's or the account's allowed
 * sources (the refusal recorded in the account's history first), or null when the alert may pass.
 */
export async function refuseSource(
  request: { peer: string | undefined; forwardedFor: string | undefined },
  deps: SourceDeps,
  account: Account,
  serverSources: SourceRule,
): Promise<ApiError | null> {
  if (serverSources.any && account.webhookSources === 'any') return null;
  const address = exactAddressOf(request.peer, request.forwardedFor, deps.trustProxy);
  const accountSources = account.webhookSources === 'any' ? ANY_SOURCE : parseSourceRule(account.webhookSources);
  const refusal = refusingRule(address, serverSources, accountSources);
  if (!refusal) return null;
  const callId = newCallId();
  await deps.store.calls.recordRejection({
    callId,
    userId: account.userId,
    status: 'source_not_allowed',
    error: sourceRefusalReason(address, refusal.rule),
    excerpt: '',
  });
  deps.onRejectionRecorded?.({ callId, userId: account.userId });
  return sourceRefusalError(refusal.rule, refusal.setBy);
}

/** The refusal's reason in the account's history (both stores, both paths). */
export function sourceRefusalReason(address: string | undefined, rule: SourceRule): string {
  return `from ${address ?? 'an unknown address'}: not in ${rule.text}`;
}

/** The 403 for an address outside the rule set by the server or the account. */
export function sourceRefusalError(rule: SourceRule, setBy: 'server' | 'account'): ApiError {
  return new ApiError('source_not_allowed', sourceRefusal({ rule, setBy }));
}

/** A duplicate: 200 with the first alert's call; nothing placed, nothing counted. */
export function duplicateAnswer(now: number, firstCallId: string): JsonAnswer {
  return jsonAnswer(200, {
    success: true,
    message: 'Duplicate of an alert received earlier: no new call is placed.',
    call_id: firstCallId,
    duplicate: true,
    timestamp: new Date(now).toISOString(),
  });
}
