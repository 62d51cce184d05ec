// Status callbacks (#41), as the rest of ringhook sees them: an account's URL and secret set at once
// (the CLI's account and callbacks commands, the dashboard), and what is loaded only when used: the
// service's feed and sender (startCallbacks) and a signed POST (sendSigned). Loaded lazily, so that
// `ringhook account` does not load an HTTPS client and a DNS resolver it never uses
// (test/cli/start-up.test.ts): a module this entry re-exported would be loaded with it.
import type { PostDeps, PostResult } from './https-post.js';
import type { SignedSend } from './send.js';
import type { CallbacksDeps } from './service.js';

export { setCallbackUrl, rotateCallbackSecret, ROTATION_OVERLAP_MS } from './settings.js';
export type { CallbacksDeps } from './service.js';
export type { SignedSend } from './send.js';

/** Starts this node's feed and sender; stop() ends both. */
export async function startCallbacks(deps: CallbacksDeps): Promise<{ stop(): Promise<void> }> {
  return (await import('./service.js')).startCallbacks(deps);
}

/** One delivery, signed and posted (ringhook callbacks test). */
export async function sendSigned(send: SignedSend, deps: PostDeps): Promise<PostResult> {
  return (await import('./send.js')).sendSigned(send, deps);
}
