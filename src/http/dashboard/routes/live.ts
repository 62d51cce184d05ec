// GET /dashboard/events: server-sent events telling an open history page which of the owner's
// calls changed (ids and statuses only; the page fetches the row itself). The streams themselves
// live in the LiveHub; this route admits them or answers 429.
import type { Server } from 'node:net';
import type { H3, H3Event } from 'h3';
import { apiRoute, type DashboardContext } from '../context.js';
import { plain, SECURITY_HEADERS } from '../respond.js';
import { refusalTally } from '../../../lib/refusal-tally.js';

/** A refused stream: the browser's EventSource stops; a reload after this long may get a slot. */
const REFUSED_RETRY_AFTER_S = 30;

// The listening server of the request: a stream open while the service stops must end, or the
// server's close() would wait for it.
function listeningServer(event: H3Event): Server | undefined {
  const socket = event.runtime?.node?.req?.socket as { server?: Server } | undefined;
  return socket?.server;
}

export function mountLiveRoutes(app: H3, ctx: DashboardContext): void {
  // One owner reloading in a loop could otherwise write a line per refusal.
  const refusals = refusalTally(ctx.deps.logger, 'dashboard live streams refused');
  ctx.deps.shutdown?.addEventListener('abort', () => refusals.flush(), { once: true });
  app.get(
    '/dashboard/events',
    apiRoute(ctx, (event, who) => {
      const body = ctx.live.open(
        { token: who.token, userId: who.account.userId },
        listeningServer(event),
        event.req.signal,
      );
      if ('refused' in body) {
        refusals.note(body.refused, { user_id: who.account.userId });
        return plain(429, 'Too many live views are open. Close a dashboard tab and reload.', {
          'retry-after': String(REFUSED_RETRY_AFTER_S),
        });
      }
      return new Response(body, {
        status: 200,
        headers: {
          ...SECURITY_HEADERS,
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          // Tells nginx not to buffer the stream.
          'x-accel-buffering': 'no',
        },
      });
    }),
  );
}
