// The owner's dashboard: mounted on the app by createApp. Server-rendered pages, a small
// script for copy buttons and live history, sessions in cookies backed by the sessions table.
import type { H3, H3Event } from 'h3';
import { CSS, JS } from './assets.js';
import { faviconIco } from './favicon.js';
import type { DashboardContext } from './context.js';
import type { DashboardDeps } from './deps.js';

export type { DashboardDeps } from './deps.js';
import { WorkGate } from '../../lib/work-gate.js';
import { HASHING_LIMITS } from './hash-gate.js';
import { LIVE_LIMITS } from './live-caps.js';
import { LiveHub } from './live-hub.js';
import { PresessionTokens } from './presession.js';
import { asset } from './respond.js';
import { mountAdminRoutes } from './routes/admin.js';
import { mountAuthRoutes } from './routes/auth.js';
import { mountLiveRoutes } from './routes/live.js';
import { mountOwnerRoutes } from './routes/owner.js';
import { SignInThrottle } from './throttle.js';

function ownOrigins(publicUrl: string): (event: H3Event) => Set<string> {
  const configured = new URL(publicUrl).origin;
  return (event) => new Set([configured, event.url.origin]);
}

export function mountDashboard(app: H3, deps: DashboardDeps): void {
  const sessions = deps.store.sessions;
  const ctx: DashboardContext = {
    deps,
    sessions,
    auth: deps.store.ownerAuth,
    throttle: new SignInThrottle(deps.now),
    hashing: new WorkGate(HASHING_LIMITS),
    presession: new PresessionTokens(deps.signInFormKey, deps.now),
    live: new LiveHub({
      events: deps.events,
      sessionLive: async (token) => (await sessions.get(token)) !== undefined,
      limits: { ...LIVE_LIMITS, ...deps.liveLimits },
      shutdown: deps.shutdown,
      logger: deps.logger,
    }),
    origins: ownOrigins(deps.publicUrl),
  };
  app.get('/dashboard/assets/app.css', () => asset(CSS, 'text/css; charset=utf-8'));
  app.get('/dashboard/assets/app.js', () => asset(JS, 'text/javascript; charset=utf-8'));
  // Browsers ask for it on every site: an icon, not a 404 in the log and the console.
  const icon = faviconIco();
  app.get('/favicon.ico', () => asset(icon, 'image/x-icon'));
  mountAuthRoutes(app, ctx);
  mountOwnerRoutes(app, ctx);
  mountLiveRoutes(app, ctx);
  mountAdminRoutes(app, ctx);
}
