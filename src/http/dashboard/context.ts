// What every dashboard route shares: the stores, the sign-in guards, the live streams, and the resolution of the signed-in
// viewer from the session cookie; plus the guards for pages and form posts.
import type { H3Event } from 'h3';
import { z } from 'zod';
import type { Account } from '../../core/account.js';
import type { AccountChanges, Session } from '../../core/records.js';
import type { OwnerAuthRepo, SessionRepo } from '../../store/index.js';
import type { DashboardDeps } from './deps.js';
import { readTokenCookie, SESSION_COOKIE } from './cookies.js';
import { sameToken } from '../same-token.js';
import { fromOurOrigin, parseForm, readForm } from './forms.js';
import type { Viewer } from './layout.js';
import { errorPage } from './pages/error.js';
import { htmlResponse, plain, redirectTo } from './respond.js';
import type { WorkGate } from '../../lib/work-gate.js';
import type { LiveHub } from './live-hub.js';
import type { PresessionTokens } from './presession.js';
import type { SignInThrottle } from './throttle.js';

export interface DashboardContext {
  deps: DashboardDeps;
  sessions: SessionRepo;
  auth: OwnerAuthRepo;
  throttle: SignInThrottle;
  /** Bounds the password checks (scrypt) running and waiting, across all sign-ins. */
  hashing: WorkGate;
  /** Issues and checks the sign-in forms' CSRF tokens. */
  presession: PresessionTokens;
  live: LiveHub;
  /** Origins our pages are served from (the request's own and the public URL's). */
  origins(event: H3Event): Set<string>;
}

export interface SignedIn {
  viewer: Viewer;
  account: Account;
  session: Session;
  token: string;
}

export async function signedIn(ctx: DashboardContext, event: H3Event): Promise<SignedIn | undefined> {
  const token = readTokenCookie(event.req, SESSION_COOKIE);
  if (!token) return undefined;
  const session = await ctx.sessions.get(token);
  if (!session) return undefined;
  const account = await ctx.deps.store.accounts.get(session.userId);
  if (!account) return undefined;
  const viewer: Viewer = {
    userId: account.userId,
    name: account.name,
    admin: await ctx.auth.isAdmin(account.userId),
    csrfToken: session.csrfToken,
  };
  return { viewer, account, session, token };
}

type Handler = (event: H3Event) => Response | Promise<Response>;

/** Wraps a route: an unexpected error becomes a logged 500 page, not the webhook's JSON. */
export function guarded(ctx: DashboardContext, handler: Handler): Handler {
  return async (event) => {
    try {
      return await handler(event);
    } catch (error) {
      ctx.deps.logger.error('dashboard request failed', { path: event.url.pathname, method: event.req.method, error });
      return htmlResponse(
        500,
        errorPage({
          status: 500,
          title: 'Something went wrong',
          message:
            'The server could not complete this request. Try again; if it keeps failing, tell your administrator.',
        }),
      );
    }
  };
}

type SignedInHandler = (event: H3Event, who: SignedIn) => Response | Promise<Response>;

/** A route for signed-in owners only: anybody else gets `refused()`. */
function signedInRoute(ctx: DashboardContext, handler: SignedInHandler, refused: () => Response): Handler {
  return guarded(ctx, async (event) => {
    const who = await signedIn(ctx, event);
    return who ? handler(event, who) : refused();
  });
}

/** Saves an owner's own settings, logs what changed (`logged`: the fields, by their form names), and shows the overview with `notice`. */
export async function saveSettings(
  ctx: DashboardContext,
  userId: string,
  changes: AccountChanges,
  logged: { what: string; fields: Record<string, unknown>; notice: string },
): Promise<Response> {
  await ctx.deps.store.accounts.update(userId, changes);
  ctx.deps.logger.info(`dashboard: ${logged.what} changed`, { user_id: userId, ...logged.fields });
  return redirectTo(`/?notice=${logged.notice}`);
}

/** A page for signed-in owners: anybody else is sent to the sign-in page. */
export const pageRoute = (ctx: DashboardContext, handler: SignedInHandler): Handler =>
  signedInRoute(ctx, handler, () => redirectTo('/login'));

/** A resource fetched by our script (fragments, events): 401 when not signed in. */
export const apiRoute = (ctx: DashboardContext, handler: SignedInHandler): Handler =>
  signedInRoute(ctx, handler, () => plain(401, 'Sign in first.'));

export function forbidden(viewer?: Viewer): Response {
  return htmlResponse(
    403,
    errorPage({
      status: 403,
      title: 'Form refused',
      message: 'This form has expired or did not come from your dashboard. Go back, reload the page and try again.',
      viewer,
    }),
  );
}

/** A form the owner sent that is not valid: 400, its one-line reason, nothing changed. */
export function invalidForm(reason: string, viewer?: Viewer): Response {
  return htmlResponse(
    400,
    errorPage({ status: 400, title: 'Invalid form', message: `The form was not valid: ${reason}.`, viewer }),
  );
}

const csrfSchema = z.object({ _csrf: z.string().max(100) });

/**
 * A form post of a signed-in owner: it must come from our origin and carry the session's CSRF
 * token, and its fields must match the schema.
 */
export function formRoute<S extends z.ZodObject>(
  ctx: DashboardContext,
  schema: S,
  handler: (event: H3Event, who: SignedIn, data: z.output<S>) => Response | Promise<Response>,
  /** A form of the overview: a bad value is shown in its card, with what was typed (a page of its own otherwise). */
  invalid?: (who: SignedIn, reason: string, form: Record<string, string>) => Response | Promise<Response>,
): Handler {
  return guarded(ctx, async (event) => {
    const who = await signedIn(ctx, event);
    if (!fromOurOrigin(event.req, ctx.origins(event))) return forbidden(who?.viewer);
    if (!who) return redirectTo('/login');
    const form = await readForm(event.req);
    const csrf = form ? csrfSchema.safeParse(form) : undefined;
    if (!form || !csrf?.success || !sameToken(csrf.data._csrf, who.session.csrfToken)) return forbidden(who.viewer);
    const parsed = parseForm(schema, form);
    if (!parsed.ok) return invalid ? invalid(who, parsed.reason, form) : invalidForm(parsed.reason, who.viewer);
    return handler(event, who, parsed.data);
  });
}
