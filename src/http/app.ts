// The HTTP application: routes and the error boundary. Transport rules (HTTPS only, trusted
// proxies) are applied in front of it by server.ts.
import { H3 } from 'h3';
import { ApiError } from '../errors.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../log.js';
import { mountOperations, type OperationsDeps } from './operations.js';
import { errorResponse } from './respond.js';
import { mountDashboard, type DashboardDeps } from './dashboard/index.js';
import { createWebhookHandler, type WebhookDeps } from './webhook.js';

export interface AppDeps extends WebhookDeps, DashboardDeps, Partial<OperationsDeps> {
  db: Db;
  logger: Logger;
}

export function createApp(deps: AppDeps): H3 {
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

  const webhook = createWebhookHandler(deps);
  app.all('/webhook/**', webhook);

  mountOperations(app, { ...deps, health: deps.health ?? { db: deps.db } });

  mountDashboard(app, deps);

  app.all('/**', (event) => errorResponse(new ApiError('not_found', `Not found: ${event.req.method} ${event.url.pathname}`)));
  return app;
}
