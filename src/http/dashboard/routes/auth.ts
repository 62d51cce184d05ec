// Sign-in (password, one-time link) and sign-out.
import { getRouterParam, type H3, type H3Event } from 'h3';
import { z } from 'zod';
import { USER_ID_PATTERN } from '../../../core/ids.js';
import { TOKEN_PATTERN } from '../../../store/index.js';
import { SESSION_MAX_AGE_MS } from '../../../core/records.js';
import { clientAddress } from '../../client-address.js';
import { guarded, signedIn, type DashboardContext } from '../context.js';
import { clearCookie, PRESESSION_COOKIE, readCookie, SESSION_COOKIE, setCookie } from '../cookies.js';
import { sameToken } from '../../same-token.js';
import { fromOurOrigin, parseForm, readForm } from '../forms.js';
import type { Notice } from '../layout.js';
import { noticeFromQuery } from '../notices.js';
import { errorPage } from '../pages/error.js';
import { loginLinkPage, loginPage } from '../pages/login.js';
import { PRESESSION_TTL_MS } from '../presession.js';
import { htmlResponse, redirectTo } from '../respond.js';

/** When the hashing queue is full: a few scrypt runs' time. */
const BUSY_RETRY_AFTER_S = 3;

const passwordForm = z.object({
  _csrf: z.string().max(100),
  user_id: z.string().trim().toLowerCase().max(64),
  password: z.string().max(1000),
});

const linkForm = z.object({ _csrf: z.string().max(100), token: z.string().regex(TOKEN_PATTERN) });

/** The browser's pre-session token when we issued it and it is still valid, or a new one to set. */
function presession(ctx: DashboardContext, request: Request): { token: string; cookies: string[] } {
  const existing = readCookie(request, PRESESSION_COOKIE);
  if (ctx.presession.valid(existing)) return { token: existing, cookies: [] };
  const token = ctx.presession.issue();
  return { token, cookies: [setCookie(PRESESSION_COOKIE, token, Math.floor(PRESESSION_TTL_MS / 1000), 'Strict')] };
}

/** A sign-in post from our origin whose form echoes the pre-session token we issued to this browser. */
function presessionOk(
  ctx: DashboardContext,
  request: Request,
  form: Record<string, string> | undefined,
  origins: Set<string>,
): form is Record<string, string> {
  const cookie = readCookie(request, PRESESSION_COOKIE);
  return (
    fromOurOrigin(request, origins) &&
    form !== undefined &&
    ctx.presession.valid(cookie) &&
    sameToken(form._csrf, cookie)
  );
}

async function startSession(ctx: DashboardContext, userId: string): Promise<Response> {
  const { token } = await ctx.sessions.create(userId);
  ctx.deps.logger.info('dashboard sign-in', { user_id: userId });
  return redirectTo('/', [
    setCookie(SESSION_COOKIE, token, Math.floor(SESSION_MAX_AGE_MS / 1000)),
    clearCookie(PRESESSION_COOKIE),
  ]);
}

function loginForm(
  ctx: DashboardContext,
  request: Request,
  status: number,
  notice?: Notice,
  userId?: string,
  headers: Record<string, string> = {},
): Response {
  const { token, cookies } = presession(ctx, request);
  return htmlResponse(status, loginPage({ csrfToken: token, notice, userId }), { cookies, headers });
}

const refusedForm = (ctx: DashboardContext, request: Request) =>
  loginForm(ctx, request, 403, { tone: 'error', text: 'The sign-in form expired. Please try again.' });

/** The sign-in pages and their forms: each route with its method and what answers it. */
const AUTH_ROUTES: ReadonlyArray<
  [
    method: 'get' | 'post',
    path: string,
    answer: (ctx: DashboardContext, event: H3Event) => Promise<Response> | Response,
  ]
> = [
  ['get', '/login', showSignIn],
  ['post', '/login', signInWithPassword],
  ['get', '/login/link/:token', showLinkSignIn],
  ['post', '/login/link', signInWithLink],
  ['post', '/logout', signOut],
];

export function mountAuthRoutes(app: H3, ctx: DashboardContext): void {
  for (const [method, path, answer] of AUTH_ROUTES)
    app[method](
      path,
      guarded(ctx, (event) => answer(ctx, event)),
    );
}

/** The sign-in form; a signed-in browser goes to its dashboard. */
async function showSignIn(ctx: DashboardContext, event: H3Event): Promise<Response> {
  if (await signedIn(ctx, event)) return redirectTo('/');
  return loginForm(ctx, event.req, 200, noticeFromQuery(event.url));
}

/** A password sign-in: throttled per account and address, checked in the hashing queue. */
async function signInWithPassword(ctx: DashboardContext, event: H3Event): Promise<Response> {
  const form = await readForm(event.req);
  if (!presessionOk(ctx, event.req, form, ctx.origins(event))) return refusedForm(ctx, event.req);
  const parsed = parseForm(passwordForm, form);
  if (!parsed.ok) return loginForm(ctx, event.req, 400, { tone: 'error', text: 'Enter your account ID and password.' });
  const { user_id: userId, password } = parsed.data;
  const address = clientAddress(event, ctx.deps.trustProxy);
  const account = USER_ID_PATTERN.test(userId) ? userId : undefined;
  const decision = ctx.throttle.begin(account, address);
  if (!decision.allowed) {
    const minutes = Math.ceil(decision.retryAfterSeconds / 60);
    ctx.deps.logger.warn('dashboard sign-in throttled', { user_id: account, address });
    return loginForm(
      ctx,
      event.req,
      429,
      {
        tone: 'error',
        text: `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}, or ask your administrator for a one-time sign-in link.`,
      },
      userId,
      { 'retry-after': String(decision.retryAfterSeconds) },
    );
  }
  const checking = ctx.hashing.tryRun(() => ctx.auth.checkPassword(account ?? '', password));
  if (!checking) {
    ctx.throttle.abandoned(decision.attempt);
    ctx.deps.logger.warn('dashboard sign-in refused: busy', { user_id: account, address });
    return loginForm(
      ctx,
      event.req,
      429,
      { tone: 'error', text: 'The server is busy checking other sign-ins. Try again in a few seconds.' },
      userId,
      {
        'retry-after': String(BUSY_RETRY_AFTER_S),
      },
    );
  }
  const ok = await checking;
  if (!ok || !account || !(await ctx.deps.store.accounts.get(account))) {
    ctx.deps.logger.info('dashboard sign-in failed', { user_id: account, address });
    return loginForm(ctx, event.req, 401, { tone: 'error', text: 'The account ID or the password is wrong.' }, userId);
  }
  ctx.throttle.succeeded(decision.attempt);
  return startSession(ctx, account);
}

/** A one-time link's page: the link is used only when its form is posted, so a link preview does not spend it. */
function showLinkSignIn(ctx: DashboardContext, event: H3Event): Response {
  const token = z.string().regex(TOKEN_PATTERN).safeParse(getRouterParam(event, 'token'));
  if (!token.success)
    return htmlResponse(
      404,
      errorPage({
        status: 404,
        title: 'Link not valid',
        message: 'This sign-in link is not valid. Ask your administrator for a new one.',
        action: { href: '/login', label: 'Sign in' },
      }),
    );
  const { token: csrf, cookies } = presession(ctx, event.req);
  return htmlResponse(200, loginLinkPage({ csrfToken: csrf, token: token.data }), { cookies });
}

/** A one-time link used: throttled per address, apart from passwords. */
async function signInWithLink(ctx: DashboardContext, event: H3Event): Promise<Response> {
  const form = await readForm(event.req);
  if (!presessionOk(ctx, event.req, form, ctx.origins(event))) return refusedForm(ctx, event.req);
  const address = clientAddress(event, ctx.deps.trustProxy);
  // Counted apart from passwords: a password lockout never stops a link.
  const decision = ctx.throttle.linkAllowed(address);
  if (!decision.allowed)
    return loginForm(
      ctx,
      event.req,
      429,
      { tone: 'error', text: 'Too many used or expired sign-in links from this address. Try again later.' },
      undefined,
      { 'retry-after': String(decision.retryAfterSeconds) },
    );
  const parsed = parseForm(linkForm, form);
  const userId = parsed.ok ? await ctx.auth.useLoginLink(parsed.data.token) : undefined;
  if (!userId || !(await ctx.deps.store.accounts.get(userId))) {
    ctx.throttle.linkFailed(address);
    return htmlResponse(
      410,
      errorPage({
        status: 410,
        title: 'Link expired or used',
        message:
          'This sign-in link was already used or is older than 15 minutes. Ask your administrator for a new one.',
        action: { href: '/login', label: 'Sign in with a password' },
      }),
    );
  }
  return startSession(ctx, userId);
}

/** Sign-out, from our own form only. */
async function signOut(ctx: DashboardContext, event: H3Event): Promise<Response> {
  const who = await signedIn(ctx, event);
  const form = await readForm(event.req);
  if (who && (!fromOurOrigin(event.req, ctx.origins(event)) || !sameToken(form?._csrf, who.session.csrfToken))) {
    return htmlResponse(
      403,
      errorPage({
        status: 403,
        title: 'Form refused',
        message: 'This form has expired or did not come from your dashboard. Reload the page and try again.',
        viewer: who.viewer,
      }),
    );
  }
  if (who) await ctx.sessions.delete(who.token);
  return redirectTo('/login?notice=signed-out', [clearCookie(SESSION_COOKIE)]);
}
