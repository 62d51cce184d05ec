// The owner's pages and actions: overview, history, its live row fragments, SMS backup,
// confirmation required, quiet hours (routes/quiet-hours.ts), duplicates and sources (routes/owner-controls.ts), language, voice and intro, "Hear it" (routes/hear.ts), the contact card,
// test call, regeneration of the webhook URL.
import { timelinesOf } from '../../../store/index.js';
import { getRouterParam, type H3, type H3Event } from 'h3';
import { z } from 'zod';
import { contactCard } from '../../../core/calls/contact-card.js';
import { chooseVoice, introSchema, languageSchema, voiceSchema } from '../../../core/speech/languages.js';
import { apiRoute, formRoute, pageRoute, saveSettings, type DashboardContext, type SignedIn } from '../context.js';
import { followedTestCall, noticeFromQuery, testCallNotice } from '../notices.js';
import { callItem, historyPage } from '../pages/history.js';
import { overviewPage, regeneratePage } from '../pages/overview.js';
import { htmlResponse, plain, redirectTo } from '../respond.js';
import { mountHearRoutes } from './hear.js';
import { overviewWithError, postOverviewForm } from './form-error.js';
import { mountQuietHoursRoute } from './quiet-hours.js';
import { mountOwnerControlsRoute } from './owner-controls.js';
import { mountCallbackRoutes } from './callbacks.js';
import { filterStatuses } from '../status.js';
import { historyModel, historyQuery, overviewModel } from '../models.js';

const callIdSchema = z.string().regex(/^call_[A-Za-z0-9_-]{1,64}$/);

/** The account's on/off settings: each flips one field and comes back with its notice. */
const switches = [
  { path: '/dashboard/sms-backup', field: 'sms_backup', setting: 'smsBackup', notice: 'sms' },
  { path: '/dashboard/require-confirm', field: 'require_confirm', setting: 'requireConfirm', notice: 'confirm' },
] as const;

type Switch = (typeof switches)[number];

const voiceForm = z.object({
  language: languageSchema,
  voice: z.union([z.literal(''), voiceSchema]),
  intro: introSchema,
});

export function mountOwnerRoutes(app: H3, ctx: DashboardContext): void {
  app.get(
    '/',
    pageRoute(ctx, (event, who) => showOverview(ctx, event, who)),
  );
  app.get(
    '/calls',
    pageRoute(ctx, (event, who) => showHistory(ctx, event, who)),
  );
  app.get(
    '/dashboard/calls/:callId/row',
    apiRoute(ctx, (event, who) => historyRow(ctx, event, who)),
  );
  for (const setting of switches) {
    app.post(
      setting.path,
      formRoute(ctx, z.object({ [setting.field]: z.enum(['on', 'off']) }), (_event, who, data) =>
        flipSwitch(ctx, who, setting, data[setting.field] as 'on' | 'off'),
      ),
    );
  }
  postOverviewForm(app, ctx, ['/dashboard/voice', 'voice'], voiceForm, (who, data) => setVoice(ctx, who, data));
  mountHearRoutes(app, ctx);
  mountQuietHoursRoute(app, ctx);
  mountOwnerControlsRoute(app, ctx);
  mountCallbackRoutes(app, ctx);
  app.get(
    '/dashboard/contact.vcf',
    pageRoute(ctx, () => contactCardFile(ctx)),
  );
  app.post(
    '/dashboard/test-call',
    formRoute(ctx, z.object({}), (_event, who) => requestTestCall(ctx, who)),
  );
  app.get(
    '/dashboard/regenerate',
    pageRoute(ctx, (_event, { viewer }) => htmlResponse(200, regeneratePage(viewer))),
  );
  app.post(
    '/dashboard/regenerate',
    formRoute(ctx, z.object({}), (_event, who) => regenerateUrl(ctx, who)),
  );
}

/** The overview: the webhook URL, the account's settings and cards, with the notice an action left. */
async function showOverview(ctx: DashboardContext, event: H3Event, { viewer, account }: SignedIn): Promise<Response> {
  const model = await overviewModel(ctx, viewer, account, false);
  return htmlResponse(200, overviewPage({ ...model, notice: noticeFromQuery(event.url) }));
}

/** The call history; after a test call, its notice follows that call. */
async function showHistory(ctx: DashboardContext, event: H3Event, { viewer, account }: SignedIn): Promise<Response> {
  const model = await historyModel(ctx, event, viewer, account.userId, {
    basePath: '/calls',
    heading: 'Call history',
    readOnly: false,
  });
  const followed = followedTestCall(event.url);
  const call = followed ? await ctx.deps.store.calls.getForAccount(account.userId, followed) : undefined;
  const notice = call ? testCallNotice(call) : noticeFromQuery(event.url);
  return htmlResponse(200, historyPage({ ...model, notice }));
}

/** One history entry as markup, for the live updates; 204 when it does not match the page's filter. */
async function historyRow(ctx: DashboardContext, event: H3Event, { account, viewer }: SignedIn): Promise<Response> {
  const callId = callIdSchema.safeParse(getRouterParam(event, 'callId'));
  const entry = callId.success ? await ctx.deps.store.calls.getForAccount(account.userId, callId.data) : undefined;
  if (!entry) return plain(404, 'No such call.');
  const statuses = filterStatuses(historyQuery.parse(Object.fromEntries(event.url.searchParams)).status);
  if (statuses.length > 0 && !statuses.includes(entry.status)) return new Response(null, { status: 204 });
  const timeline = (await timelinesOf(ctx.deps.store.progress, [entry])).get(entry.callId);
  return htmlResponse(200, callItem(entry, { details: viewer.admin, timeline }).value);
}

async function flipSwitch(
  ctx: DashboardContext,
  { account }: SignedIn,
  { field, setting, notice }: Switch,
  value: 'on' | 'off',
): Promise<Response> {
  return saveSettings(
    ctx,
    account.userId,
    { [setting]: value === 'on' },
    { what: 'setting', fields: { [field]: value }, notice: `${notice}-${value}` },
  );
}

/** Language, voice and intro together: the voice must speak the language ('' is the language's default). */
async function setVoice(ctx: DashboardContext, who: SignedIn, data: z.output<typeof voiceForm>): Promise<Response> {
  const { account } = who;
  const chosen = chooseVoice(account, { language: data.language, voice: data.voice === '' ? undefined : data.voice });
  if (!chosen.ok)
    return overviewWithError(ctx, who, {
      form: 'voice',
      reason: chosen.error,
      values: { ...data, intro: data.intro ?? '' },
    });
  const { language, voice } = chosen;
  return saveSettings(
    ctx,
    account.userId,
    { language, voice, intro: data.intro },
    { what: 'voice', fields: { language, voice }, notice: 'voice' },
  );
}

/** The caller id as a contact card, to save in the phone and let through Do Not Disturb. */
function contactCardFile(ctx: DashboardContext): Response {
  const card = ctx.deps.callerId === undefined ? undefined : contactCard(ctx.deps.callerId);
  if (!card) return plain(404, 'This server has no caller id to save (RINGHOOK_CALLER_ID is not set).');
  return plain(200, card, {
    'content-type': 'text/vcard; charset=utf-8',
    'content-disposition': 'attachment; filename="ringhook-alerts.vcf"',
  });
}

/** Queues a test call to the owner's phone; the history then follows it, or says why there is none. */
async function requestTestCall(ctx: DashboardContext, { account }: SignedIn): Promise<Response> {
  if (!ctx.deps.placeTestCall) return redirectTo('/calls?notice=telephony-off');
  const result = await ctx.deps.placeTestCall(account);
  if (!result.accepted)
    return redirectTo(
      result.reason === 'suspended'
        ? '/calls?notice=suspended'
        : `/calls?notice=test-call-limited&retry=${result.retryAfterSeconds}`,
    );
  ctx.deps.logger.info('dashboard: test call', { user_id: account.userId, call_id: result.callId });
  return redirectTo(`/calls?notice=test-call&call=${encodeURIComponent(result.callId)}`);
}

/** A new webhook URL: the old one stops working at once. */
async function regenerateUrl(ctx: DashboardContext, { account }: SignedIn): Promise<Response> {
  await ctx.deps.store.accounts.regenerateKey(account.userId);
  ctx.deps.logger.info('dashboard: webhook URL regenerated', { user_id: account.userId });
  return redirectTo('/?notice=regenerated');
}
