// The HTTP application: routes and the error boundary, behind the webhook's Node fast path.
// Transport rules (HTTPS only, trusted proxies) are applied in front of it by server.ts.
import { H3, toNodeHandler } from 'h3';
import { ApiError } from './errors.js';
import type { Logger } from '../lib/log.js';
import type { Store } from '../store/index.js';
import { mountOperations, type OperationsDeps } from './operations.js';
import { errorResponse } from './respond.js';
import { mountDashboard, type DashboardDeps } from './dashboard/index.js';
import { createWebhook, h3Webhook, type Webhook, type WebhookDeps } from './webhook.js';
import { withWebhookFastPath, type NodeHandler } from './webhook-node.js';

export interface AppDeps extends WebhookDeps, DashboardDeps, Partial<OperationsDeps> {
  store: Store;
  logger: Logger;
}

/** The Node request listener: plain webhook POSTs on the fast path, everything else through h3. */
export function createRequestListener(deps: AppDeps): NodeHandler {
  const webhook = createWebhook(deps);
  return withWebhookFastPath(webhook, toNodeHandler(createApp(deps, webhook)) as NodeHandler);
}

export function createApp(deps: AppDeps, webhook: Webhook = createWebhook(deps)): H3 {
  const app = new H3({
    onError(error, event) {
      const cause = (error as { cause?: unknown }).cause ?? error;
      if (cause instanceof ApiError) return errorResponse(cause);
      // h3's own refusals (a path it cannot decode, a malformed request line) are the client's fault.
      if (error.status >= 400 && error.status < 500) {
        return errorResponse(new ApiError('bad_request', `The request is malformed: ${error.message}.`));
      }
      deps.logger.error('request failed', { path: event.url.pathname, method: event.req.method, error: cause });
      return errorResponse(new ApiError('internal'));
    },
  });

  app.all('/webhook/**', h3Webhook(webhook));

  mountOperations(app, { ...deps, health: deps.health ?? { store: deps.store } });

  mountDashboard(app, deps);

  app.all('/**', (event) =>
    errorResponse(new ApiError('not_found', `Not found: ${event.req.method} ${event.url.pathname}`)),
  );
  return app;
}
