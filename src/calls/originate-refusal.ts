// When an originate fails, was anything dialed? If Asterisk never got the request, or answered
// that it cannot take calls at all, nothing was: the call may wait for Asterisk and be placed
// later. Any other failure is the call's outcome (one attempt only).
import { errorCode } from '../lib/errors.js';
import type { AriClient } from '../pbx/index.js';
import { AriError } from '../pbx/index.js';
import type { Endpoint } from '../pbx/index.js';

/** True when the request never got to Asterisk (connection refused). */
function neverReachedAsterisk(error: unknown): boolean {
  return error instanceof AriError && error.kind === 'network' && errorCode(error.cause) === 'ECONNREFUSED';
}

/**
 * Asterisk answers 503 ("Shutdown in progress") as it stops, and "Allocation failed" (500) when
 * it cannot make the channel. If the endpoint is offline (a softphone not registered), that 500
 * is the call's outcome; otherwise Asterisk itself is not taking calls (a graceful restart waits
 * for the calls in progress). Either way no channel was made.
 */
async function asteriskNotTakingCalls(
  error: unknown,
  endpoint: Endpoint,
  ari: Pick<AriClient, 'getEndpoint'>,
): Promise<'yes' | 'no' | 'endpoint offline'> {
  if (!(error instanceof AriError) || error.kind !== 'http') return 'no';
  if (error.status === 503) return 'yes';
  if (error.status !== 500) return 'no';
  try {
    const { state } = await ari.getEndpoint(endpoint.technology, endpoint.resource);
    return state === 'offline' ? 'endpoint offline' : 'yes';
  } catch (lookup) {
    // Asterisk went away meanwhile, or is shutting down (503): it is not taking calls. Any other
    // answer (the endpoint does not exist): take the refusal.
    return lookup instanceof AriError && (lookup.kind === 'network' || lookup.status === 503) ? 'yes' : 'no';
  }
}

/**
 * Why nothing was dialed (`waitFor`: the call may wait for Asterisk), or, when the failure is the
 * call's outcome, whether Asterisk refused it because the endpoint is offline (no phone registered).
 */
export async function judgeRefusal(
  error: unknown,
  endpoint: Endpoint,
  ari: Pick<AriClient, 'getEndpoint'>,
): Promise<{ waitFor: string } | { endpointOffline: boolean }> {
  if (neverReachedAsterisk(error)) return { waitFor: 'Asterisk unreachable' };
  const taking = await asteriskNotTakingCalls(error, endpoint, ari);
  if (taking === 'yes') return { waitFor: 'Asterisk not taking calls' };
  return { endpointOffline: taking === 'endpoint offline' };
}
