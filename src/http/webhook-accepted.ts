// The webhook's 200s: an accepted alert (its call handed to the dialer) or a duplicate (the first
// alert's call). For an account with quiet hours (#41) the accepted answer says its delivery: what
// will happen to the alert, from the decision the dialer's claim makes (core/delivery/quiet-delivery), as
// `"delivery": "call" | "sms"` or `"held_until": <ISO time>`. Nothing for an account without quiet
// hours: SPEC's answer as it was.
import type { Account } from '../core/account.js';
import { decideDelivery, deliveryField } from '../core/delivery/quiet-delivery.js';
import type { SmsGatewaySetting } from '../core/delivery/sms-truth.js';
import type { Alert } from '../core/webhook/payload.js';
import type { Reply, Verdict, WebhookDeps } from './webhook-outcome.js';

type Welcomed = Extract<Verdict, { outcome: 'accepted' | 'duplicate' }>;

/** The 200 for an accepted alert, told to the dialer first; or for a duplicate: nothing placed, nothing counted. */
export function acceptedReply(
  verdict: Welcomed,
  deps: Pick<WebhookDeps, 'onCallQueued' | 'logger' | 'now' | 'smsGateway'>,
): Reply {
  const { account, callId } = verdict;
  if (verdict.outcome === 'duplicate') {
    const body = {
      success: true,
      message: 'Duplicate of an alert received earlier: no new call is placed.',
      call_id: callId,
      duplicate: true,
      timestamp: new Date(deps.now()).toISOString(),
    };
    return { result: 'duplicate', userId: account.userId, callId, status: 200, body };
  }
  const { alert, announced, outboxed } = verdict;
  deps.onCallQueued?.({
    callId,
    kind: 'alert',
    message: alert.message,
    messageTruncated: alert.truncated,
    account,
    announced,
    ...(outboxed && { outboxed }),
  });
  deps.logger.debug('alert text', { call_id: callId, message: alert.message });
  const body = acceptedBody(account, callId, alert, deps.now(), deps.smsGateway);
  return { result: 'accepted', userId: account.userId, callId, status: 200, body };
}

export interface QuietAnswer {
  says: string;
  field: ReturnType<typeof deliveryField>;
}

/** Whether this server sends SMS at all. */
export const sendsSms = (setting: SmsGatewaySetting | undefined): boolean => setting === 'http' || setting === 'smpp';

export function quietAnswer(
  account: Account,
  now: number,
  smsGateway: SmsGatewaySetting | undefined,
): QuietAnswer | null {
  if (account.quietHours === '') return null;
  const delivery = decideDelivery(account, now, { gateway: sendsSms(smsGateway), smsBackup: account.smsBackup });
  const field = deliveryField(delivery);
  switch (delivery.delivery) {
    case 'call':
      return { says: 'the call is being placed.', field };
    case 'sms':
      return { says: 'quiet hours: it is sent as an SMS instead of a call.', field };
    case 'held':
      return {
        says: `quiet hours: it is held and called when they end (${new Date(delivery.until).toISOString()}), in one call with the others held.`,
        field,
      };
  }
}

/** The 200's body for an accepted alert; the delivery field only for an account with quiet hours. */
export function acceptedBody(
  account: Account,
  callId: string,
  alert: Alert,
  now: number,
  smsGateway: SmsGatewaySetting | undefined,
): Record<string, unknown> {
  const truncatedNote = alert.truncated ? ' The message was longer than 500 characters and was truncated.' : '';
  const quiet = quietAnswer(account, now, smsGateway);
  return {
    success: true,
    message: `Alert received; ${quiet?.says ?? 'the call is being placed.'}${truncatedNote}`,
    call_id: callId,
    timestamp: new Date(now).toISOString(),
    truncated: alert.truncated,
    ...quiet?.field,
  };
}
