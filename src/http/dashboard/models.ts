// What the owner's overview and history pages show, read from the store: shared by the owner's
// own routes and the admin's read-only view of any account.
import { timelinesOf } from '../../store/index.js';
import { ANY_SOURCE } from '../../core/webhook/webhook-sources.js';
import type { H3Event } from 'h3';
import { z } from 'zod';
import { webhookUrl, type Account } from '../../core/account.js';
import { callerIdNumber } from '../../core/calls/contact-card.js';
import { PLAN_LIMITS } from '../../core/webhook/limits.js';
import { SMS_ATTEMPTS_READ, smsGatewayState, type SmsGatewayState } from '../../core/delivery/sms-truth.js';
import type { DashboardContext } from './context.js';
import type { Viewer } from './layout.js';
import type { HistoryModel } from './pages/history.js';
import type { OverviewModel } from './pages/overview.js';
import { FILTERS, filterStatuses } from './status.js';

export const HISTORY_PAGE_SIZE = 25;
export const CALLBACK_DELIVERIES_SHOWN = 10;

export const historyQuery = z.object({
  status: z
    .enum(FILTERS.map((f) => f.value) as [string, ...string[]])
    .optional()
    .catch(undefined),
  before: z.coerce.number().int().positive().optional().catch(undefined),
});

export async function overviewModel(
  ctx: DashboardContext,
  viewer: Viewer,
  account: Account,
  readOnly: boolean,
): Promise<OverviewModel> {
  return {
    viewer,
    account,
    webhookUrl: readOnly ? null : webhookUrl(ctx.deps.publicUrl, account),
    usage: await ctx.deps.store.calls.usage(account.userId),
    limits: PLAN_LIMITS[account.plan],
    testCallsAvailable: ctx.deps.placeTestCall !== undefined,
    sampleAvailable: ctx.deps.speechSample !== undefined,
    callerId: ctx.deps.callerId === undefined ? undefined : callerIdNumber(ctx.deps.callerId),
    sms: await smsGatewayNow(ctx),
    readOnly,
    now: ctx.deps.now(),
    serverSources: ctx.deps.webhookSources ?? ANY_SOURCE,
    callbacks: {
      settings: await ctx.deps.store.callbacks.settings(account.userId),
      deliveries: await ctx.deps.store.callbacks.recent(account.userId, CALLBACK_DELIVERIES_SHOWN),
    },
  };
}

/** The SMS gateway as the server knows it: its setting and its last SMS attempts. */
export async function smsGatewayNow(ctx: DashboardContext): Promise<SmsGatewayState> {
  const setting = ctx.deps.smsGateway ?? 'none';
  const tried = setting === 'http' || setting === 'smpp';
  return smsGatewayState(setting, tried ? await ctx.deps.store.calls.recentSmsAttempts(SMS_ATTEMPTS_READ) : []);
}

export async function historyModel(
  ctx: DashboardContext,
  event: H3Event,
  viewer: Viewer,
  userId: string,
  options: { basePath: string; heading: string; readOnly: boolean },
): Promise<HistoryModel> {
  const query = historyQuery.parse(Object.fromEntries(event.url.searchParams));
  const page = await ctx.deps.store.calls.page(userId, {
    before: query.before,
    limit: HISTORY_PAGE_SIZE,
    statuses: filterStatuses(query.status),
  });
  return {
    viewer,
    page,
    timelines: await timelinesOf(ctx.deps.store.progress, page.entries),
    filter: query.status,
    first: query.before === undefined,
    basePath: options.basePath,
    heading: options.heading,
    live: !options.readOnly,
    testCallsAvailable: options.readOnly ? null : ctx.deps.placeTestCall !== undefined,
  };
}
