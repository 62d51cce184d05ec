// The owner's status-callback actions: set or clear the URL (the first URL makes the secret, shown
// once on the page that answers), and make a new secret with a day's overlap.
import type { H3 } from 'h3';
import { z } from 'zod';
import { parseCallbackUrl } from '../../../core/callbacks/callback-url.js';
import { CALLBACK_URL_MAX } from '../../../core/callbacks/callback-events.js';
import { rotateCallbackSecret, setCallbackUrl } from '../../../callbacks/index.js';
import { formRoute, type DashboardContext } from '../context.js';
import { callbackSecretPage } from '../pages/callbacks.js';
import { htmlResponse, redirectTo } from '../respond.js';
import { overviewWithError, postOverviewForm } from './form-error.js';

export function mountCallbackRoutes(app: H3, ctx: DashboardContext): void {
  postOverviewForm(
    app,
    ctx,
    ['/dashboard/callback-url', 'callback'],
    z.object({ url: z.string().max(CALLBACK_URL_MAX + 100) }),
    async (who, data) => {
      const { account, viewer } = who;
      const parsed = parseCallbackUrl(data.url);
      if ('error' in parsed)
        return overviewWithError(ctx, who, { form: 'callback', reason: parsed.error, values: data });
      const { secret } = await setCallbackUrl(ctx.deps.store.callbacks, account.userId, parsed.url);
      ctx.deps.logger.info('dashboard: callback URL changed', { user_id: account.userId, on: parsed.url !== null });
      if (secret) return htmlResponse(200, callbackSecretPage(viewer, secret, false));
      return redirectTo(`/?notice=${parsed.url ? 'callback-on' : 'callback-off'}`);
    },
  );

  app.post(
    '/dashboard/callback-secret',
    formRoute(ctx, z.object({}), async (_event, { account, viewer }) => {
      const rotated = await rotateCallbackSecret(ctx.deps.store.callbacks, account.userId, ctx.deps.now());
      if (!rotated) return redirectTo('/?notice=callback-off');
      ctx.deps.logger.info('dashboard: callback secret rotated', { user_id: account.userId });
      return htmlResponse(200, callbackSecretPage(viewer, rotated.secret, true));
    }),
  );
}
