// The owner's duplicate-alert window and allowed sources (#41), checked by the parsers the CLI's
// --dedupe and --sources use (core/webhook/dedupe, core/webhook/webhook-sources); a bad one is a 400 with its
// one-line reason and changes nothing.
import type { H3 } from 'h3';
import { z } from 'zod';
import { parseDedupeSeconds } from '../../../core/webhook/dedupe.js';
import { parseSourceRule } from '../../../core/webhook/webhook-sources.js';
import { saveSettings, type DashboardContext } from '../context.js';
import { overviewWithError, postOverviewForm } from './form-error.js';
import { formatDecisionKeys, needsCallbackUrl, parseDecisionKeys } from '../../../core/calls/decision-keys.js';

const dedupeField = z
  .string()
  .max(20, { error: 'the duplicate window must be "off" or a number of seconds' })
  .transform((value, check) => {
    const parsed = parseDedupeSeconds(value);
    if (parsed.ok) return parsed.seconds;
    check.issues.push({
      code: 'custom',
      input: value,
      message: parsed.error.replace(/^--dedupe/, 'the duplicate window'),
    });
    return z.NEVER;
  });

const sourcesField = z
  .string()
  .max(1000, { error: 'the allowed sources must be at most 1000 characters' })
  .transform((value, check) => {
    try {
      return parseSourceRule(value).text;
    } catch (error) {
      check.issues.push({ code: 'custom', input: value, message: `the allowed sources: ${(error as Error).message}` });
      return z.NEVER;
    }
  });

const ownerControlsForm = z.object({ dedupe: dedupeField, sources: sourcesField });

// Decision keys (#56): the text `account set --keys` takes; empty is off.
const decisionKeysForm = z.object({
  keys: z
    .string()
    .max(200, { error: 'the decision keys must be at most 200 characters' })
    .transform((value, check) => {
      const parsed = parseDecisionKeys(value.trim() === '' ? 'off' : value);
      if (parsed.ok) return formatDecisionKeys(parsed.keys);
      check.issues.push({ code: 'custom', input: value, message: `the decision keys: ${parsed.error}` });
      return z.NEVER;
    }),
});

export function mountOwnerControlsRoute(app: H3, ctx: DashboardContext): void {
  postOverviewForm(
    app,
    ctx,
    ['/dashboard/owner-controls', 'controls'],
    ownerControlsForm,
    async ({ account }, data) => {
      return saveSettings(
        ctx,
        account.userId,
        { dedupeSeconds: data.dedupe, webhookSources: data.sources },
        {
          what: 'duplicates and sources',
          fields: { dedupe_seconds: data.dedupe, webhook_sources: data.sources },
          notice: 'owner-controls',
        },
      );
    },
  );
  postOverviewForm(app, ctx, ['/dashboard/decision-keys', 'decision'], decisionKeysForm, async (who, data) => {
    const { account } = who;
    if (needsCallbackUrl({ keys: data.keys }) && !(await ctx.deps.store.callbacks.settings(account.userId))?.url)
      return overviewWithError(ctx, who, {
        form: 'decision',
        reason:
          'decision keys need a status callback URL, where the decision is sent: set one in Status callbacks first',
        values: { keys: data.keys },
      });
    return saveSettings(
      ctx,
      account.userId,
      { decisionKeys: data.keys },
      { what: 'decision keys', fields: { decision_keys: data.keys }, notice: 'decision-keys' },
    );
  });
}
