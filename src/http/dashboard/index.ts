// The owner's dashboard: mounted on the app by createApp. Server-rendered pages, a small
// script for copy buttons and live history, sessions in cookies backed by the sessions table.
import type { H3, H3Event } from 'h3';
import type { Account } from '../../core/account.js';
import type { TestCallResult } from '../../core/test-call.js';
import type { ServiceDeps } from '../../lib/deps.js';
import type { AddressMatcher } from '../address-match.js';
import { CSS, JS } from './assets.js';
import type { DashboardContext } from './context.js';
import { WorkGate } from '../../lib/work-gate.js';
import { HASHING_LIMITS } from './hash-gate.js';
import { LIVE_LIMITS, type LiveLimits } from './live-caps.js';
import { LiveHub } from './live-hub.js';
import { PresessionTokens } from './presession.js';
import { asset } from './respond.js';
import { mountAdminRoutes } from './routes/admin.js';
import { mountAuthRoutes } from './routes/auth.js';
import { mountLiveRoutes } from './routes/live.js';
import { mountOwnerRoutes } from './routes/owner.js';
import { SignInThrottle } from './throttle.js';

export interface DashboardDeps extends ServiceDeps {
  /** Base of the webhook URLs shown to owners. */
  publicUrl: string;
  /** The number calls come from (RINGHOOK_CALLER_ID), offered as a contact card. */
  callerId?: string | undefined;
  /** Places a test call to the account's phone (the dialer); absent when telephony is off. */
  placeTestCall?: (account: Account) => Promise<TestCallResult>;
  /** A short WAV of the account's intro and a sample alert in its voice; absent when telephony is off. */
  speechSample?: (account: Account) => Promise<Buffer>;
  /** Reverse proxies whose X-Forwarded-For names the client (for sign-in throttling by address). */
  trustProxy?: AddressMatcher;
  /** Aborted when the service stops: open live-history streams end so the server can close. */
  shutdown?: AbortSignal;
  /** Caps on open live-history streams (tests lower them). */
  liveLimits?: Partial<LiveLimits>;
  /** Signs the sign-in forms (SecretBox.signInFormKey): every node must have the same. */
  signInFormKey: Buffer;
}

function ownOrigins(publicUrl: string): (event: H3Event) => Set<string> {
  const configured = new URL(publicUrl).origin;
  return (event) => new Set([configured, event.url.origin]);
}

export function mountDashboard(app: H3, deps: DashboardDeps): void {
  const sessions = deps.sessions;
  const ctx: DashboardContext = {
    deps,
    sessions,
    auth: deps.ownerAuth,
    throttle: new SignInThrottle(deps.now),
    hashing: new WorkGate(HASHING_LIMITS),
    presession: new PresessionTokens(deps.signInFormKey, deps.now),
    live: new LiveHub({
      events: deps.events,
      sessionLive: async (token) => (await sessions.get(token)) !== undefined,
      limits: { ...LIVE_LIMITS, ...deps.liveLimits },
      shutdown: deps.shutdown,
    }),
    origins: ownOrigins(deps.publicUrl),
  };
  app.get('/dashboard/assets/app.css', () => asset(CSS, 'text/css; charset=utf-8'));
  app.get('/dashboard/assets/app.js', () => asset(JS, 'text/javascript; charset=utf-8'));
  mountAuthRoutes(app, ctx);
  mountOwnerRoutes(app, ctx);
  mountLiveRoutes(app, ctx);
  mountAdminRoutes(app, ctx);
}
