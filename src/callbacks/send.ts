// Signs one delivery and posts it: the headers of Standard Webhooks, a signature per secret in use.
import { callbackSignatureHeader } from '../core/callbacks/callback-events.js';
import { type PostDeps, type PostResult, postCallback } from './https-post.js';

export interface SignedSend {
  url: string;
  secrets: readonly string[];
  messageId: string;
  body: string;
  /** Now, in milliseconds: the timestamp signed is its whole seconds. */
  now: number;
}

export function sendSigned(send: SignedSend, deps: PostDeps): Promise<PostResult> {
  const timestamp = Math.floor(send.now / 1000);
  const headers = {
    'webhook-id': send.messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': callbackSignatureHeader(send.secrets, send.messageId, timestamp, send.body),
    'user-agent': 'ringhook-callbacks',
  };
  return postCallback(send.url, headers, send.body, deps);
}
