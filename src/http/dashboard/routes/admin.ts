// The admin's read-only view of every account. Anybody else gets the same 404 as for an unknown account.
import { getRouterParam, type H3 } from 'h3';
import { z } from 'zod';
import { USER_ID_PATTERN } from '../../../core/ids.js';
import { pageRoute, type DashboardContext } from '../context.js';
import type { Viewer } from '../layout.js';
import { adminPage } from '../pages/admin.js';
import { errorPage } from '../pages/error.js';
import { historyBody } from '../pages/history.js';
import { overviewBody } from '../pages/overview.js';
import { page } from '../layout.js';
import { html } from '../html.js';
import { htmlResponse } from '../respond.js';
import { historyModel, overviewModel, smsGatewayNow } from '../models.js';
import { smsBackupWarning } from '../../../core/delivery/sms-truth.js';

const notFound = (viewer: Viewer) =>
  htmlResponse(404, errorPage({ status: 404, title: 'Not found', message: 'There is no such page.', viewer }));

export function mountAdminRoutes(app: H3, ctx: DashboardContext): void {
  app.get(
    '/admin',
    pageRoute(ctx, async (_event, { viewer }) => {
      if (!viewer.admin) return notFound(viewer);
      const rows = await Promise.all(
        (await ctx.deps.store.accounts.list()).map(async (account) => ({
          account,
          usedThisMonth: (await ctx.deps.store.calls.usage(account.userId)).used,
        })),
      );
      return htmlResponse(200, adminPage(viewer, rows, smsBackupWarning(await smsGatewayNow(ctx), 'admin')));
    }),
  );

  app.get(
    '/admin/accounts/:userId',
    pageRoute(ctx, async (event, { viewer }) => {
      if (!viewer.admin) return notFound(viewer);
      const userId = z.string().regex(USER_ID_PATTERN).safeParse(getRouterParam(event, 'userId'));
      const account = userId.success ? await ctx.deps.store.accounts.get(userId.data) : undefined;
      if (!account) return notFound(viewer);
      const basePath = `/admin/accounts/${account.userId}`;
      const history = await historyModel(ctx, event, viewer, account.userId, {
        basePath,
        heading: 'Call history',
        readOnly: true,
      });
      return htmlResponse(
        200,
        page({
          title: `Account ${account.name || account.userId}`,
          viewer,
          current: 'admin',
          body: html`${overviewBody(await overviewModel(ctx, viewer, account, true))}<section aria-label="Call history">${historyBody({ ...history, headingLevel: 2 })}</section>`,
        }),
      );
    }),
  );
}
