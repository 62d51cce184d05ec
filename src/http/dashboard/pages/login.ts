// Sign-in pages: account ID + password, and the confirmation step of a one-time sign-in link
// (a button, so that a link preview or scanner fetching the URL does not spend it).
import { html } from '../html.js';
import { csrfField, page, type Notice } from '../layout.js';

export function loginPage(options: {
  csrfToken: string;
  userId?: string | undefined;
  notice?: Notice | undefined;
}): string {
  return page({
    title: 'Sign in',
    notice: options.notice,
    body: html`<h1>Sign in</h1>
<section class="card">
  <form method="post" action="/login">
    ${csrfField(options.csrfToken)}
    <label for="user_id">Account ID</label>
    <input type="text" id="user_id" name="user_id" required autocomplete="username" autocapitalize="off" spellcheck="false"
      inputmode="text" pattern="[0-9a-fA-F]{32}" aria-describedby="user_id_hint" value="${options.userId ?? ''}">
    <p class="hint" id="user_id_hint">The 32-character user_id your administrator gave you.</p>
    <label for="password">Password</label>
    <input type="password" id="password" name="password" required autocomplete="current-password">
    <p><button type="submit">Sign in</button></p>
  </form>
  <p class="hint">No password? Ask your administrator for a one-time sign-in link.</p>
</section>`,
  });
}

export function loginLinkPage(options: { csrfToken: string; token: string }): string {
  return page({
    title: 'Sign in with a link',
    body: html`<h1>Sign in with a link</h1>
<section class="card">
  <p>This one-time link signs you in to your ringhook dashboard. It works once and for 15 minutes.</p>
  <form method="post" action="/login/link">
    ${csrfField(options.csrfToken)}
    <input type="hidden" name="token" value="${options.token}">
    <button type="submit">Sign in</button>
  </form>
</section>`,
  });
}
