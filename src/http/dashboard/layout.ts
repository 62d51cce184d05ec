// The page shell: header with navigation and sign-out, one main region, our own CSS and JS.
import { html, type HtmlValue, type SafeHtml } from './html.js';

export type NavItem = 'overview' | 'calls' | 'admin';

export interface Viewer {
  userId: string;
  name: string;
  admin: boolean;
  csrfToken: string;
}

export interface Notice {
  tone: 'info' | 'ok' | 'error';
  text: string;
  /** The call whose state the notice tells (a test call): the page's script updates it live. */
  follow?: string | undefined;
}

export interface PageOptions {
  title: string;
  viewer?: Viewer | undefined;
  current?: NavItem;
  notice?: Notice | undefined;
  body: HtmlValue;
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

function navLink(href: string, label: string, active: boolean): SafeHtml {
  return html`<a href="${href}"${active ? html` aria-current="page"` : ''}>${label}</a>`;
}

function header(viewer: Viewer | undefined, current: NavItem | undefined): SafeHtml {
  const nav = viewer
    ? html`<nav aria-label="Main">
        ${navLink('/', 'Overview', current === 'overview')}
        ${navLink('/calls', 'Call history', current === 'calls')}
        ${viewer.admin ? navLink('/admin', 'All accounts', current === 'admin') : ''}
        <form method="post" action="/logout">${csrfField(viewer.csrfToken)}<button type="submit" class="link">Sign out</button></form>
      </nav>`
    : '';
  return html`<header class="top"><div class="bar"><a class="brand" href="/">ringhook</a>${nav}</div></header>`;
}

export function renderNotice(notice: Notice | undefined): SafeHtml {
  if (!notice) return html``;
  const role = notice.tone === 'error' ? 'alert' : 'status';
  const follow = notice.follow ? html` id="call-notice" data-follow="${notice.follow}"` : '';
  return html`<div class="notice ${notice.tone}" role="${role}"${follow}>${notice.text}</div>`;
}

export function page(options: PageOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title} · ringhook</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/dashboard/assets/app.css">
<script src="/dashboard/assets/app.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header(options.viewer, options.current)}
<main id="main" tabindex="-1">
${renderNotice(options.notice)}
${options.body}
</main>
</body>
</html>
`.value;
}
