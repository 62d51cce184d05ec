// The owner's duplicate-alert window and allowed sources (#41), checked by the parsers the CLI's
// --dedupe and --sources use (core/webhook/dedupe, core/webhook/webhook-sources); a bad one is a 400 with its
// one-line reason and changes nothing.
import type { H3 } from 'h3';
import { z } from 'zod';
import { parseDedupeSeconds } from '../../../core/webhook/dedupe.js';
import { parseSourceRule } from '../../../core/webhook/webhook-sources.js';
import { formRoute, type DashboardContext } from '../context.js';
import { redirectTo } from '../respond.js';
import { overviewWithError, showInForm } from './form-error.js';
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
  app.post(
    '/dashboard/owner-controls',
    formRoute(
      ctx,
      ownerControlsForm,
      async (_event, { account }, data) => {
        await ctx.deps.store.accounts.update(account.userId, {
          dedupeSeconds: data.dedupe,
          webhookSources: data.sources,
        });
        ctx.deps.logger.info('dashboard: duplicates and sources changed', {
          user_id: account.userId,
          dedupe_seconds: data.dedupe,
          webhook_sources: data.sources,
        });
        return redirectTo('/?notice=owner-controls');
      },
      showInForm(ctx, 'controls'),
    ),
  );
  app.post(
    '/dashboard/decision-keys',
    formRoute(
      ctx,
      decisionKeysForm,
      async (_event, who, data) => {
        const { account } = who;
        if (needsCallbackUrl({ keys: data.keys }) && !(await ctx.deps.store.callbacks.settings(account.userId))?.url)
          return overviewWithError(ctx, who, {
            form: 'decision',
            reason:
              'decision keys need a status callback URL, where the decision is sent: set one in Status callbacks first',
            values: { keys: data.keys },
          });
        await ctx.deps.store.accounts.update(account.userId, { decisionKeys: data.keys });
        ctx.deps.logger.info('dashboard: decision keys changed', { user_id: account.userId, decision_keys: data.keys });
        return redirectTo('/?notice=decision-keys');
      },
      showInForm(ctx, 'decision'),
    ),
  );
}
