// The overview again after one of its forms was refused (400): the error and the typed values in
// that form's card, every other card as saved.
import type { H3 } from 'h3';
import type { z } from 'zod';
import { type DashboardContext, formRoute, type SignedIn } from '../context.js';
import type { FailedForm, OverviewForm } from '../form-error.js';
import { overviewModel } from '../models.js';
import { overviewPage } from '../pages/overview.js';
import { htmlResponse } from '../respond.js';

export async function overviewWithError(ctx: DashboardContext, who: SignedIn, failed: FailedForm): Promise<Response> {
  const model = await overviewModel(ctx, who.viewer, who.account, false);
  const notice = { tone: 'error', text: 'Nothing was saved: the form marked below says what to change.' } as const;
  return htmlResponse(400, overviewPage({ ...model, formError: failed, notice }));
}

/** The handler formRoute calls for a bad value of FORM. */
export function showInForm(ctx: DashboardContext, form: OverviewForm) {
  return (who: SignedIn, reason: string, values: Record<string, string>) =>
    overviewWithError(ctx, who, { form, reason, values: withoutToken(values) });
}

function withoutToken(values: Record<string, string>): Record<string, string> {
  const { _csrf: _token, ...fields } = values;
  return fields;
}

/** One of the overview's forms, posted to `path`: a bad value is shown in the form's card with what was typed. */
export function postOverviewForm<S extends z.ZodObject>(
  app: H3,
  ctx: DashboardContext,
  [path, form]: [path: string, form: OverviewForm],
  schema: S,
  save: (who: SignedIn, data: z.output<S>) => Response | Promise<Response>,
): void {
  app.post(
    path,
    formRoute(ctx, schema, (_event, who, data) => save(who, data), showInForm(ctx, form)),
  );
}
