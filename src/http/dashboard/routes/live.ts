// GET /dashboard/events: server-sent events telling an open history page which of the owner's
// calls changed (ids and statuses only; the page fetches the row itself).
import type { Server } from 'node:net';
import type { H3, H3Event } from 'h3';
import type { CallChange } from '../../../events.js';
import { apiRoute, type DashboardContext } from '../context.js';
import { SECURITY_HEADERS } from '../respond.js';

const HEARTBEAT_MS = 20_000;
/** Checks whether the session is still valid and the server still listening. */
const CHECK_MS = 1_000;
/** A stream ends after this long; the browser reconnects by itself (and so re-checks the session). */
const MAX_STREAM_MS = 10 * 60_000;

// The listening server of the request: a stream open while the service stops must end, or the
// server's close() would wait for it.
function listeningServer(event: H3Event): Server | undefined {
  const socket = event.runtime?.node?.req?.socket as { server?: Server } | undefined;
  return socket?.server;
}

export function mountLiveRoutes(app: H3, ctx: DashboardContext): void {
  app.get('/dashboard/events', apiRoute(ctx, (event, who) => {
    const encoder = new TextEncoder();
    const server = listeningServer(event);
    const started = Date.now();
    let cleanup = () => {};

    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        let closed = false;
        const send = (text: string) => {
          if (closed) return;
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            cleanup();
          }
        };
        const unsubscribe = ctx.deps.events.subscribe((change: CallChange) => {
          if (change.userId !== who.account.userId) return;
          send(`event: call\ndata: ${JSON.stringify({ callId: change.callId, status: change.status })}\n\n`);
        });
        let sinceHeartbeat = 0;
        const timer = setInterval(() => {
          const stopping = ctx.deps.shutdown?.aborted || (server !== undefined && !server.listening);
          if (stopping || Date.now() - started > MAX_STREAM_MS || !ctx.sessions.get(who.token)) {
            cleanup();
            return;
          }
          sinceHeartbeat += CHECK_MS;
          if (sinceHeartbeat >= HEARTBEAT_MS) {
            sinceHeartbeat = 0;
            send(': keep-alive\n\n');
          }
        }, CHECK_MS);
        timer.unref();
        const onAbort = () => cleanup();
        ctx.deps.shutdown?.addEventListener('abort', onAbort);
        event.req.signal?.addEventListener('abort', onAbort);
        cleanup = () => {
          if (closed) return;
          closed = true;
          clearInterval(timer);
          unsubscribe();
          ctx.deps.shutdown?.removeEventListener('abort', onAbort);
          try {
            controller.close();
          } catch {
            // already closed by the client going away
          }
        };
        send('retry: 2000\n: connected\n\n');
      },
      cancel() {
        cleanup();
      },
    });

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
  }));
}
