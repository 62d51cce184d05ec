// Sign-in over real HTTPS against the real app, as a browser does it: a sign-in page's pre-session cookie
// and CSRF field, then the form posted from a chosen loopback address (the throttle counts by address).
import type https from 'node:https';
import type { BrowserContext } from 'playwright-core';
import { expect } from 'vitest';
import type { Account } from '../../src/core/account.js';
import { SqliteOwnerAuthStore } from '../../src/store/sqlite/owner-auth.js';
import type { OwnerAuthRepo } from '../../src/store/contract/index.js';
import type { DashboardService } from './browser.js';
import { request, type Reply } from './https-client.js';

export const PASSWORD = 'correct horse battery staple';
export const PRESESSION = '__Host-ringhook_presession';
export const SESSION = '__Host-ringhook_session';

export interface SignInForm {
  cookie: string;
  csrf: string;
}

/** GET a sign-in page (the password form or a link's page) and keep its pre-session cookie and CSRF field. */
export async function signInForm(
  s: Pick<DashboardService, 'baseUrl' | 'ca'>,
  from = '127.0.0.1',
  path = '/login',
  agent?: https.Agent,
): Promise<SignInForm> {
  const page = await request(`${s.baseUrl}${path}`, {
    method: 'GET',
    ca: s.ca,
    localAddress: from,
    ...(agent && { agent }),
  });
  expect(page.status).toBe(200);
  const setCookie = ([] as string[])
    .concat(page.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith(`${PRESESSION}=`));
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (!setCookie || !csrf) throw new Error(`no pre-session token on ${path}: ${page.text}`);
  return { cookie: setCookie.split(';')[0]!, csrf };
}

export function postForm(
  s: Pick<DashboardService, 'baseUrl' | 'ca'>,
  path: string,
  form: SignInForm,
  fields: Record<string, string>,
  from = '127.0.0.1',
  agent?: https.Agent,
): Promise<Reply> {
  return request(`${s.baseUrl}${path}`, {
    method: 'POST',
    ca: s.ca,
    localAddress: from,
    ...(agent && { agent }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
    body: new URLSearchParams({ _csrf: form.csrf, ...fields }).toString(),
  });
}

export const signIn = async (s: DashboardService, userId: string, password: string, from = '127.0.0.1') =>
  postForm(s, '/login', await signInForm(s, from), { user_id: userId, password }, from);

/**
 * A session for a browser test that needs one but is not about signing in: the password form posted over
 * HTTPS (the product's own sign-in, pre-session cookie and CSRF field included) and the session cookie it
 * set handed to the context. Signing in through the page cost a page load, a form and a render (~1.3 s of
 * CPU) per test; the tests of signing in still use the page.
 */
export async function addSession(
  context: BrowserContext,
  s: DashboardService,
  userId: string,
  password = PASSWORD,
): Promise<void> {
  const reply = await signIn(s, userId, password);
  expect(reply.status, reply.text).toBe(303);
  const cookie = ([] as string[]).concat(reply.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${SESSION}=`));
  if (!cookie) throw new Error(`the sign-in of ${userId} set no session cookie`);
  const value = cookie.split(';')[0]!.slice(SESSION.length + 1);
  await context.addCookies([{ name: SESSION, value, url: s.baseUrl, secure: true, httpOnly: true, sameSite: 'Lax' }]);
}

export async function useLink(s: DashboardService, userId: string, from = '127.0.0.1'): Promise<Reply> {
  const { token } = new SqliteOwnerAuthStore(s.stores.db, s.clock.now).createLoginLink(userId);
  const form = await signInForm(s, from, `/login/link/${token}`);
  return postForm(s, '/login/link', form, { token }, from);
}

/** The session cookie (`name=value`) a one-time link gives, on a service of either store. */
export async function sessionByLink(
  s: Pick<DashboardService, 'baseUrl' | 'ca'>,
  ownerAuth: Pick<OwnerAuthRepo, 'createLoginLink'>,
  userId: string,
): Promise<string> {
  const { token } = await ownerAuth.createLoginLink(userId);
  const signed = await postForm(s, '/login/link', await signInForm(s, '127.0.0.1', `/login/link/${token}`), { token });
  const session = ([] as string[]).concat(signed.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${SESSION}=`));
  if (!session) throw new Error(`no session after the login link: ${signed.status} ${signed.text.slice(0, 200)}`);
  return session.split(';')[0]!;
}

export async function ownerWithPassword(s: DashboardService): Promise<Account> {
  const owner = s.createAccount({ plan: 'premium' });
  await new SqliteOwnerAuthStore(s.stores.db, s.clock.now).setPassword(owner.userId, PASSWORD);
  return owner;
}

export function count(replies: Reply[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const r of replies) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}
